// envs/torch/optim.ts's `backward`: the gradient of the loss, and the tensors kept beside it, owned by the caller.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import { backward } from "../envs/torch/optim.ts";

before(async () => {
  await setupBackend("cpu", { quiet: true });
});

test("backward returns the loss's gradient and the kept tensors, and the caller's tidy disposes them all", () => {
  const w = tf.variable(tf.tensor1d([1, 2, 3]));
  const tensorsBefore = tf.memory().numTensors;
  const [kept, grad] = tf.tidy(() => {
    const { grads, kept } = backward([w], () => {
      const loss = tf.sum(tf.square(w)) as tf.Scalar;
      return [loss, tf.mul(loss, 2)];
    });
    return [kept[0].dataSync()[0], Array.from(grads[w.name].dataSync())];
  });
  assert.equal(kept, 28); // 2 · (1 + 4 + 9)
  assert.deepEqual(grad, [2, 4, 6]); // d/dw Σw² = 2w
  assert.equal(tf.memory().numTensors, tensorsBefore, "a tensor outlived the tidy scope");
  w.dispose();
});
