// Shared by the backend tests (not a test file itself): deterministic inputs and a cross-backend comparison of a
// function's value and gradients, computed by switching backends inside one process (tf.setBackend).

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";

/** Deterministic values in [-0.5, 0.5), independent of any backend's RNG. */
export function randomArray(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

export const size = (shape: number[]): number => shape.reduce((a, b) => a * b, 1);

/** max |a - b| / max |b|: one number per tensor, robust to entries near zero. */
export function relError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  assert.equal(actual.length, expected.length);
  let num = 0;
  let den = 0;
  for (let i = 0; i < expected.length; i++) {
    num = Math.max(num, Math.abs(actual[i] - expected[i]));
    den = Math.max(den, Math.abs(expected[i]));
  }
  return num / Math.max(den, 1e-12);
}

/**
 * On `backend`: the value of f(inputs) and the gradients of sum(f(inputs) · r) w.r.t. all inputs, where r
 * weights the outputs non-uniformly. Element 0 is the value, then one gradient per input.
 */
export async function valueAndGradsOn(
  backend: string,
  shapes: number[][],
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  seed: number,
): Promise<Float32Array[]> {
  await tf.setBackend(backend);
  return tf.tidy(() => {
    const xs = shapes.map((s, i) => tf.tensor(randomArray(size(s), seed + i), s));
    const y = f(...xs);
    const r = tf.tensor(randomArray(size(y.shape), seed + 100), y.shape);
    const g = tf.grads((...args: tf.Tensor[]) => tf.sum(tf.mul(f(...args), r)))(xs);
    return [y, ...g].map((t) => Float32Array.from(t.dataSync()));
  });
}

/** The gradients only (valueAndGradsOn without the value). */
export async function gradsOn(
  backend: string,
  shapes: number[][],
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  seed: number,
): Promise<Float32Array[]> {
  return (await valueAndGradsOn(backend, shapes, f, seed)).slice(1);
}

/**
 * Asserts that every actual[i] matches expected[i] to a relative error (relError) below `tol`; `what(i)` names
 * entry i in the failure message.
 */
export function assertRelClose(
  actual: ArrayLike<number>[],
  expected: ArrayLike<number>[],
  tol: number,
  what: (i: number) => string = (i) => `gradient ${i}`,
): void {
  assert.equal(actual.length, expected.length, "number of tensors");
  expected.forEach((e, i) => {
    const err = relError(actual[i], e);
    assert.ok(err < tol, `${what(i)}: relative error ${err.toExponential(2)}`);
  });
}
