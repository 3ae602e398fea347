// nn.framesToInput, the image-input convention of the CNN variants: bytes in the env's layout, [N, H, W, C] float32
// out, the pixel channels divided by 255 and any channels after them (SuperSuit's agent indicators) as they are.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";

before(async () => {
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
});

/** Two observations of 6 channels × 4 × 4 in channels-last order, bytes spread over 0-255. */
const HWC = Uint8Array.from({ length: 2 * 4 * 4 * 6 }, (_, i) => (i * 37) % 256);

/** HWC's observations in channels-first order, as FrameStack gives them. */
function toChw(hwc: Uint8Array): Uint8Array {
  const chw = new Uint8Array(hwc.length);
  for (let n = 0; n < 2; n++)
    for (let p = 0; p < 16; p++) for (let c = 0; c < 6; c++) chw[n * 96 + c * 16 + p] = hwc[n * 96 + p * 6 + c];
  return chw;
}

test("channels-last frames come out in the same order, each byte v as float32 v / 255", () => {
  const x = nn.framesToInput(HWC, [6, 4, 4], "hwc");
  assert.deepEqual(x.shape, [2, 4, 4, 6]);
  assert.deepEqual(
    Array.from(x.dataSync()),
    Array.from(HWC, (v) => Math.fround(v / 255)),
  );
  x.dispose();
});

test("channels-first frames are transposed to channels last", () => {
  const chw = toChw(HWC);
  const [fromChw, fromHwc] = [nn.framesToInput(chw, [6, 4, 4], "chw"), nn.framesToInput(HWC, [6, 4, 4], "hwc")];
  assert.deepEqual(fromChw.dataSync(), fromHwc.dataSync());
  tf.dispose([fromChw, fromHwc]);
});

test("only the first `scaled` channels are divided by 255, in either layout", () => {
  const expected = Array.from(HWC, (v, i) => (i % 6 < 4 ? Math.fround(v / 255) : v));
  const hwc = nn.framesToInput(HWC, [6, 4, 4], "hwc", 4);
  assert.deepEqual(Array.from(hwc.dataSync()), expected);
  const chw = toChw(HWC);
  const fromChw = nn.framesToInput(chw, [6, 4, 4], "chw", 4);
  assert.deepEqual(Array.from(fromChw.dataSync()), expected);
  tf.dispose([hwc, fromChw]);
});

test("the division by table gives the bits of the backend's float32 division of the bytes, for every byte value", () => {
  // ppo_pettingzoo_ma_atari.ts divided the int32 observation tensor by [255, 255, 255, 255, 1, 1] on the backend.
  const bytes = Uint8Array.from({ length: 256 * 6 }, (_, i) => Math.floor(i / 6));
  const table = nn.framesToInput(bytes, [6, 16, 16], "hwc", 4);
  const divided = tf.div(tf.tensor4d(bytes, [1, 16, 16, 6], "int32"), [255, 255, 255, 255, 1, 1]);
  assert.deepEqual(
    new Uint32Array(table.dataSync().slice().buffer),
    new Uint32Array((divided.dataSync() as Float32Array).slice().buffer),
  );
  tf.dispose([table, divided]);
});
