// Checkpoints: the safetensors format, torch's layouts, Adam's and the generator's state, and --resume of a whole
// ppo.ts run (2·N iterations against N, resume, N: the same parameters, and the same curve across the two folders).
import * as tf from "@tensorflow/tfjs";
import { MathBackendCPU } from "@tensorflow/tfjs-backend-cpu";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import * as gym from "../envs/gymnasium/index.ts";
import { setupBackend } from "../envs/torch/backend.ts";
import {
  CheckpointError,
  atomicWrite,
  fromTorch,
  loadParameters,
  readCheckpoint,
  toTorch,
  writeCheckpoint,
} from "../envs/torch/checkpoint.ts";
import { SummaryWriter, readRunDir } from "../envs/run/logging.ts";
import { type StatefulOptimizer, adam } from "../envs/torch/optim.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";
import {
  SafetensorsError,
  type StoredTensor,
  deserialize,
  f32,
  serialize,
  toFloat32,
} from "../envs/torch/safetensors.ts";
import { Agent as ppoAgent, main as ppoMain } from "../ppo.ts";

let workDir = "";
const startDir = process.cwd();
before(async () => {
  await setupBackend("cpu", { quiet: true });
  workDir = mkdtempSync(join(tmpdir(), "ppo-checkpoint-test-"));
});
after(() => {
  process.chdir(startDir);
  rmSync(workDir, { recursive: true, force: true });
});

test("safetensors: a written file reads back, its header padded to 8 bytes and its tensors tiling the data", () => {
  const tensors = new Map([
    ["b", f32([3], Float32Array.of(1, -2, 3.5))],
    ["a.weight", f32([2, 2], Float32Array.of(0.25, 0, -0, 1e-30))],
  ]);
  const bytes = serialize(tensors, { format: "pt", note: "ü" });
  const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  assert.equal(headerLength % 8, 0);
  const back = deserialize(bytes);
  assert.deepEqual(back.metadata, { format: "pt", note: "ü" });
  assert.deepEqual([...back.tensors.keys()], ["b", "a.weight"]);
  assert.deepEqual(Array.from(toFloat32(back.tensors.get("a.weight")!)), [0.25, 0, -0, Math.fround(1e-30)]);
  assert.deepEqual(back.tensors.get("b")!.shape, [3]);
  // Other dtypes a torch user may save read as float32.
  const f64 = { dtype: "F64" as const, shape: [2], bytes: new Uint8Array(Float64Array.of(0.5, -3).buffer) };
  const bf16 = { dtype: "BF16" as const, shape: [1], bytes: Uint8Array.of(0x80, 0x3f) }; // 1.0
  const f16 = { dtype: "F16" as const, shape: [1], bytes: Uint8Array.of(0x00, 0xc0) }; // -2.0
  const more = deserialize(
    serialize(
      new Map<string, StoredTensor>([
        ["x", f64],
        ["y", bf16],
        ["z", f16],
      ]),
    ),
  );
  assert.deepEqual(Array.from(toFloat32(more.tensors.get("x")!)), [0.5, -3]);
  assert.deepEqual(Array.from(toFloat32(more.tensors.get("y")!)), [1]);
  assert.deepEqual(Array.from(toFloat32(more.tensors.get("z")!)), [-2]);
});

test("safetensors: truncated, padded, overlapping and foreign files are one-line errors", () => {
  const good = serialize(new Map([["w", f32([4], Float32Array.of(1, 2, 3, 4))]]));
  const cases: [Uint8Array, RegExp][] = [
    [good.subarray(0, good.length - 3), /truncated/],
    [Uint8Array.from([...good, 0]), /trailing bytes/],
    [good.subarray(0, 5), /too short/],
    [
      new TextEncoder().encode("PK\x03\x04 a zip file, as torch.save writes"),
      /(over the 100 MB limit|not a JSON object|truncated)/,
    ],
  ];
  const overlapping = new TextEncoder().encode(
    JSON.stringify({
      a: { dtype: "F32", shape: [1], data_offsets: [0, 4] },
      b: { dtype: "F32", shape: [1], data_offsets: [0, 4] },
    }),
  );
  const file = new Uint8Array(8 + overlapping.length + 4);
  new DataView(file.buffer).setBigUint64(0, BigInt(overlapping.length), true);
  file.set(overlapping, 8);
  cases.push([file, /gap or an overlap/]);
  for (const [bytes, message] of cases) {
    assert.throws(
      () => deserialize(bytes),
      (e: Error) => e instanceof SafetensorsError && message.test(e.message) && !e.message.includes("\n"),
    );
  }
});

test("layouts: torch's Linear, Conv2d and Linear-after-Flatten weights compute what ours do", () => {
  const rng = new RandomGenerator(5);
  const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
  // Conv2d: our [kh, kw, in, out] against torch's [out, in, kh, kw], by a direct 2x2 valid convolution at one pixel.
  const [kh, kw, cin, cout] = [2, 2, 3, 2];
  const ours = rand(kh * kw * cin * cout);
  const t = toTorch(ours, [kh, kw, cin, cout], "conv2d");
  assert.deepEqual(t.shape, [cout, cin, kh, kw]);
  for (let o = 0; o < cout; o++)
    for (let i = 0; i < cin; i++)
      for (let y = 0; y < kh; y++)
        for (let x = 0; x < kw; x++) {
          assert.equal(t.data[((o * cin + i) * kh + y) * kw + x], ours[((y * kw + x) * cin + i) * cout + o]);
        }
  assert.deepEqual(fromTorch(t.data, t.shape, "conv2d"), ours);
  // Linear after Flatten: a [c, h, w] feature map flattened channels-last (ours) and channels-first (torch).
  const [h, w, c, out] = [3, 2, 4, 5];
  const weight = rand(h * w * c * out);
  const feature = rand(h * w * c); // [h, w, c], ours
  const tw = toTorch(weight, [h * w * c, out], { flattened: [h, w, c] });
  assert.deepEqual(tw.shape, [out, c * h * w]);
  for (let o = 0; o < out; o++) {
    let a = 0;
    let b = 0;
    for (let k = 0; k < h * w * c; k++) a += feature[k] * weight[k * out + o];
    for (let ch = 0; ch < c; ch++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) b += feature[(y * w + x) * c + ch] * tw.data[o * c * h * w + (ch * h + y) * w + x];
    assert.ok(Math.abs(a - b) < 1e-4, `${a} != ${b}`);
  }
  assert.deepEqual(fromTorch(tw.data, tw.shape, { flattened: [h, w, c] }), weight);
  const lin = rand(6);
  assert.deepEqual(fromTorch(toTorch(lin, [2, 3], "linear").data, [3, 2], "linear"), lin);
});

test("the generator's state continues its stream exactly, a pending normal included", () => {
  const a = new RandomGenerator(9);
  a.normal(); // leaves a spare
  const b = new RandomGenerator(0);
  b.setState(JSON.parse(JSON.stringify(a.getState())));
  for (let i = 0; i < 5; i++) assert.equal(b.normal(), a.normal());
  for (let i = 0; i < 5; i++) assert.equal(b.integers(0, 1000), a.integers(0, 1000));
});

test("Adam's exported state, imported into a fresh optimizer, continues the same steps bit for bit", () => {
  const init = Float32Array.of(0.5, -1, 2, 0.1, 3);
  const grads = (k: number) => tf.tensor(Float32Array.from(init, (v, i) => Math.sin(k + i) * v));
  const a = tf.variable(tf.tensor(init));
  const optA = adam(1e-2, 0.9, 0.999, 1e-5);
  for (let k = 0; k < 3; k++) tf.tidy(() => optA.applyGradients({ [a.name]: grads(k) }));
  const state = optA.exportState();
  assert.equal(state.step, 3);
  const b = tf.variable(a.clone());
  const optB = adam(1e-2, 0.9, 0.999, 1e-5);
  optB.importState({ step: state.step, moments: new Map([[b.name, state.moments.get(a.name)!]]) });
  assert.deepEqual(optB.exportState().moments.get(b.name), state.moments.get(a.name));
  for (let k = 3; k < 6; k++) {
    tf.tidy(() => optA.applyGradients({ [a.name]: grads(k) }));
    tf.tidy(() => optB.applyGradients({ [b.name]: grads(k) }));
  }
  assert.deepEqual(b.dataSync(), a.dataSync());
  assert.equal(optB.exportState().step, 6);
  // A state for other variables is refused at the step, not silently ignored.
  const c = tf.variable(tf.tensor(init));
  const optC = adam(1e-2);
  optC.importState(state);
  assert.throws(
    () => tf.tidy(() => optC.applyGradients({ [c.name]: grads(0) })),
    /restored state has moments for 1 variables.*1 without a moment/,
  );
  tf.dispose([a, b, c]);
  [optA, optB, optC].forEach((o) => o.dispose());
});

test("on a backend the WebAssembly loop does not serve, tfjs's Adam exports and imports the same state, to and from the loop's", async () => {
  // A second name for the cpu backend: adam() takes it for a device backend and runs tfjs's own AdamOptimizer.
  if (tf.findBackend("device-like") === null) {
    tf.registerBackend("device-like", () => new MathBackendCPU());
    for (const kernel of tf.getKernelsForBackend("cpu")) tf.registerKernel({ ...kernel, backendName: "device-like" });
  }
  const init = Float32Array.of(0.5, -1, 2, 0.1, 3, 7);
  const grads = (k: number) =>
    tf.tensor(
      Float32Array.from(init, (v, i) => Math.cos(k * 3 + i) * v),
      [2, 3],
    );
  const run = (
    backend: string,
    steps: number[],
    from: { state: ReturnType<StatefulOptimizer["exportState"]>; values: Float32Array } | null,
  ) => {
    tf.setBackend(backend);
    const v = tf.variable(tf.tensor(from?.values ?? init, [2, 3]));
    const opt = adam(1e-2, 0.9, 0.999, 1e-5);
    if (from)
      opt.importState({ step: from.state.step, moments: new Map([[v.name, [...from.state.moments.values()][0]]]) });
    for (const k of steps) tf.tidy(() => opt.applyGradients({ [v.name]: grads(k) }));
    const out = { state: opt.exportState(), values: Float32Array.from(v.dataSync()) };
    v.dispose();
    opt.dispose();
    return out;
  };
  try {
    const straight = run("device-like", [0, 1, 2, 3, 4], null);
    const resumed = run("device-like", [3, 4], run("device-like", [0, 1, 2], null));
    assert.equal(resumed.state.step, 5);
    assert.deepEqual(resumed.values, straight.values);
    assert.deepEqual([...resumed.state.moments.values()], [...straight.state.moments.values()]);
    // Across paths (the loop on cpu, then tfjs's Adam, and back): the same update, up to float rounding.
    const crossed = run("cpu", [3, 4], run("device-like", [0, 1, 2], null));
    const crossedBack = run("device-like", [3, 4], run("cpu", [0, 1, 2], null));
    for (const other of [crossed, crossedBack])
      other.values.forEach((x, i) =>
        assert.ok(Math.abs(x - straight.values[i]) < 1e-6, `${x} != ${straight.values[i]}`),
      );
  } finally {
    tf.setBackend("cpu");
  }
});

test("a checkpoint write into an unwritable folder leaves the previous file intact and says so in one line", (t) => {
  const dir = join(workDir, "readonly");
  mkdirSync(dir);
  atomicWrite(join(dir, "c.safetensors"), Uint8Array.of(1, 2, 3));
  // Root ignores permission bits: an immutable folder (chattr +i) stops it as a read-only one stops a user.
  const asRoot = process.getuid?.() === 0;
  const lock = (on: boolean) =>
    asRoot ? spawnSync("chattr", [on ? "+i" : "-i", dir]).status === 0 : (chmodSync(dir, on ? 0o500 : 0o700), true);
  if (!lock(true))
    return t.skip(
      "running as root on a file system without immutable folders (chattr +i): nothing makes a folder unwritable to root here",
    );
  try {
    assert.throws(
      () => atomicWrite(join(dir, "c.safetensors"), Uint8Array.of(4)),
      /^CheckpointError: cannot write checkpoint .*c\.safetensors: .*(EACCES|EPERM).*; the previous checkpoint there is intact$/,
    );
  } finally {
    lock(false);
  }
  assert.deepEqual([...readFileSync(join(dir, "c.safetensors"))], [1, 2, 3]);
  assert.deepEqual(readdirSync(dir), ["c.safetensors"]);
});

test(
  "a checkpoint write onto a full disk leaves the previous file intact and says so in one line",
  { skip: existsSync("/dev/full") ? false : "no /dev/full here" },
  () => {
    // /dev/full answers every write with ENOSPC: the temporary file is made a link to it.
    const dir = join(workDir, "full");
    mkdirSync(dir);
    const target = join(dir, "c.safetensors");
    atomicWrite(target, Uint8Array.of(1, 2, 3));
    const tmp = `${target}.tmp-${process.pid}`;
    try {
      // open() follows the link, so the checkpoint's bytes go to /dev/full and the write fails with ENOSPC.
      symlinkSync("/dev/full", tmp);
      assert.throws(
        () => atomicWrite(target, Uint8Array.of(4, 5)),
        /^CheckpointError: cannot write checkpoint .*c\.safetensors: the disk is full; the previous checkpoint there is intact$/,
      );
    } finally {
      rmSync(tmp, { force: true });
    }
    assert.deepEqual([...readFileSync(target)], [1, 2, 3]);
  },
);

test("a full disk under the event file is one line naming the file", (t) => {
  // A 64 KiB tmpfs, filled by the events: needs root (mount), as the namespace tests do.
  const dir = join(workDir, "tiny");
  mkdirSync(dir);
  if (process.getuid?.() !== 0 || spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).status !== 0)
    return t.skip("cannot mount a small tmpfs here (needs root)");
  try {
    const writer = new SummaryWriter(dir, null, { maxQueue: 1 });
    assert.throws(() => {
      for (let step = 0; step < 100_000; step++) writer.addScalar("losses/value_loss", step, step);
    }, /^Error: cannot write TensorBoard event file .*tiny\/events\.out\.tfevents\.[^ ]+: the disk is full$/);
    writer.close(); // what failed to be written is dropped, not retried forever
  } finally {
    spawnSync("umount", ["-l", dir]);
  }
});

test("truncated, foreign and other scripts' checkpoints are one-line errors", () => {
  const variable = tf.variable(tf.ones([2, 3]));
  const params = [{ name: "actor.weight", variable, layout: "linear" as const }];
  const progress = {
    runName: "r",
    iteration: 1,
    globalStep: 8,
    rng: [new RandomGenerator(1).getState()],
    args: { envId: "CartPole-v1" },
  };
  const file = writeCheckpoint(join(workDir, "ok.safetensors"), "ppo.ts", params, null, progress);
  const bytes = readFileSync(file);
  writeFileSync(join(workDir, "cut.safetensors"), bytes.subarray(0, bytes.length - 10));
  writeFileSync(join(workDir, "foreign.pt"), Buffer.from("PK\x03\x04\x14\x00\x00\x00\x08\x00 torch.save's zip"));
  writeFileSync(join(workDir, "half.json"), '{"format": "ppo.ts/agent@1", "parameters": [');
  for (const [name, script, message] of [
    ["cut.safetensors", "ppo.ts", /is not a readable checkpoint: .*truncated/],
    ["foreign.pt", "ppo.ts", /is not a readable checkpoint: /],
    ["half.json", "ppo.ts", /is not a readable checkpoint: not safetensors, and not complete JSON/],
    ["ok.safetensors", "ppo_atari.ts", /was written by ppo\.ts, not ppo_atari\.ts/],
    ["missing.safetensors", "ppo.ts", /cannot read checkpoint .*missing\.safetensors: no such file/],
  ] as const) {
    assert.throws(
      () => readCheckpoint(join(workDir, name), script),
      (e: Error) => e instanceof CheckpointError && message.test(e.message) && !e.message.includes("\n"),
      name,
    );
  }
  variable.dispose();
});

test("an older JSON checkpoint (parameters in parameters() order, tfjs layouts) still loads", () => {
  manualSeed(3);
  const saved = new ppoAgent(4, 2);
  const json = {
    format: "ppo.ts/agent@1",
    script: "ppo.ts",
    envId: "CartPole-v1",
    obsDim: 4,
    numActions: 2,
    parameters: saved.parameters().map((p) => ({ shape: p.shape, data: Array.from(p.dataSync()) })),
  };
  writeFileSync(join(workDir, "old.json"), JSON.stringify(json));
  const checkpoint = readCheckpoint(join(workDir, "old.json"), "ppo.ts");
  assert.equal(checkpoint.envId, "CartPole-v1");
  manualSeed(4);
  const loaded = new ppoAgent(4, 2);
  loadParameters(checkpoint, loaded.namedParameters());
  loaded.parameters().forEach((p, i) => assert.deepEqual(p.dataSync(), saved.parameters()[i].dataSync()));
  tf.dispose([...saved.parameters(), ...loaded.parameters()]);
});

test("readRunDir applies a resumed writer's purge step: the old file's steps past the checkpoint are dropped", () => {
  const dir = join(workDir, "purge");
  const first = new SummaryWriter(dir);
  for (const step of [10, 20, 30]) first.addScalar("x", step, step);
  first.close();
  const second = new SummaryWriter(dir, null, { purgeStep: 21 });
  for (const step of [30, 40]) second.addScalar("x", -step, step);
  second.close();
  assert.deepEqual(
    readRunDir(dir).map((e) => [e.step, e.value]),
    [
      [10, 10],
      [20, 20],
      [30, -30],
      [40, -40],
    ],
  );
});

// A deterministic env whose reset state is always the same: 4-step episodes, observation a function of the step
// within the episode, reward for matching its parity. With --num-steps a multiple of 4 every rollout ends on an
// episode boundary, so a resumed run's fresh reset is exactly where the uninterrupted run stands. It throws once
// `crashAfter` steps (over all its instances) have been taken: a run that dies half-way through an iteration.
let stepsTaken = 0;
let crashAfter = Infinity;
class Parity extends gym.Env<gym.spaces.TypedArray, number> {
  observationSpace = new gym.spaces.Box(-1, 1, [4]);
  actionSpace = new gym.spaces.Discrete(2);
  private t = 0;
  private obs(): gym.spaces.TypedArray {
    return Float32Array.of(1 - this.t / 4, this.t / 4, this.t % 2, -1);
  }
  override reset(args = {}): [gym.spaces.TypedArray, Record<string, unknown>] {
    super.reset(args);
    this.t = 0;
    return [this.obs(), {}];
  }
  step(action: number): [gym.spaces.TypedArray, number, boolean, boolean, Record<string, unknown>] {
    if (++stepsTaken > crashAfter) throw new Error("simulated crash");
    const reward = action === this.t % 2 ? 1 : 0;
    this.t += 1;
    return [this.obs(), reward, this.t === 4, false, {}];
  }
}

/** The first run directory under `cwd`/runs (in name order: a run before its continuation). */
function runDir(cwd: string): string {
  const [name] = readdirSync(join(cwd, "runs")).sort();
  return join(cwd, "runs", name);
}

test("--resume: 2·N iterations equal N, a crash, resume, N: the same parameters; the run's curve to the checkpoint and the continuation's are the straight run's", async () => {
  gym.register({ id: "Parity-v0", entryPoint: () => new Parity() });
  // 6 iterations of 2 envs x 8 steps, learning rate annealed over all 6.
  const common = [
    "--env-id",
    "Parity-v0",
    "--backend",
    "cpu",
    "--num-envs",
    "2",
    "--num-steps",
    "8",
    "--num-minibatches",
    "2",
    "--update-epochs",
    "2",
    "--total-timesteps",
    "96",
    "--seed",
    "7",
  ];
  const [straight, interrupted] = ["straight", "interrupted"].map((name) => join(workDir, name));
  const log = console.log;
  console.log = () => {};
  try {
    mkdirSync(straight);
    process.chdir(straight);
    await ppoMain([...common, "--save-model", "--eval-episodes", "1"]);
    mkdirSync(interrupted);
    process.chdir(interrupted);
    crashAfter = stepsTaken + 3 * 16 + 5; // 3 iterations, then 5 steps into the 4th
    await assert.rejects(ppoMain([...common, "--checkpoint-every", "1", "--checkpoint-keep", "2"]), /simulated crash/);
    crashAfter = Infinity;
    const checkpoints = readdirSync(join(runDir(interrupted), "checkpoints"));
    assert.deepEqual(checkpoints, ["iteration_00000002.safetensors", "iteration_00000003.safetensors"]);
    // Only --resume and the flags of this process: the rest (schedule, sizes, seed) comes from the checkpoint.
    await ppoMain([
      "--resume",
      join(runDir(interrupted), "checkpoints", checkpoints[1]),
      "--backend",
      "cpu",
      "--save-model",
      "--eval-episodes",
      "1",
    ]);
  } finally {
    console.log = log;
    process.chdir(startDir);
  }
  // The continuation has its own folder, named after the interrupted run, which keeps only what it wrote itself.
  const parent = runDir(interrupted);
  const continuation = `${parent}__resumed_at_iteration_3`;
  assert.deepEqual(
    readdirSync(join(interrupted, "runs")).sort(),
    [parent, continuation].map((d) => d.slice(join(interrupted, "runs").length + 1)),
  );
  assert.equal(existsSync(join(parent, "ppo.safetensors")), false);
  const final = (dir: string) => readCheckpoint(join(dir, "ppo.safetensors"), "ppo.ts");
  const [a, b] = [final(runDir(straight)), final(continuation)];
  assert.equal(a.tensors.size, 36); // 12 parameters, their exp_avg and exp_avg_sq
  assert.equal(b.progress!.globalStep, 96);
  assert.equal(b.optimizerStep, a.optimizerStep);
  for (const [name, t] of a.tensors) assert.deepEqual(toFloat32(b.tensors.get(name)!), toFloat32(t), name);
  // The interrupted run's scalars up to the checkpoint's step (3 iterations of 16) and the continuation's together
  // are the straight run's; all but the timings.
  const scalars = (dir: string, steps: (step: number) => boolean = () => true) =>
    readRunDir(dir)
      .filter((e) => e.tag !== "charts/SPS" && e.text === undefined && steps(e.step))
      .map((e) => `${e.tag}@${e.step}=${e.value}`);
  const checkpointStep = 48;
  assert.ok(scalars(continuation).length > 0);
  const training = scalars(continuation).filter((s) => !s.startsWith("eval/")); // evaluation logs episodes as steps
  assert.ok(
    training.every((s) => Number(s.split(/[@=]/)[1]) > checkpointStep),
    training.join(" "),
  );
  assert.deepEqual(
    [...scalars(parent, (step) => step <= checkpointStep), ...scalars(continuation)].sort(),
    scalars(runDir(straight)).sort(),
  );
  assert.ok(scalars(runDir(straight)).includes("charts/learning_rate@96=" + Math.fround(2.5e-4 / 6)));
});
