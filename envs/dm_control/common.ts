// What the suite's domains share: reading the bundled models, and small NumPy helpers whose rounding the rewards
// and observations depend on.

import { readFileSync } from "node:fs";

import { numpySum } from "../mujoco/mujoco_env.ts";

/** Directory of the bundled MJCF models. */
export const ASSETS_DIR = new URL("./assets/", import.meta.url);

/** The text of a bundled model (`common.read_model`). */
export function readModel(fileName: string): string {
  return readFileSync(new URL(fileName, ASSETS_DIR), "utf8");
}

/** `np.mean`: numpy's pairwise sum divided by the count. */
export function mean(x: ArrayLike<number>): number {
  return numpySum(x) / x.length;
}

/** `np.prod` of a short array. */
export function prod(x: ArrayLike<number>): number {
  let p = 1;
  for (let i = 0; i < x.length; i++) p *= x[i];
  return p;
}

/** `np.min`. */
export function min(x: ArrayLike<number>): number {
  let m = Number.POSITIVE_INFINITY;
  for (let i = 0; i < x.length; i++) if (x[i] < m || Number.isNaN(x[i])) m = x[i];
  return m;
}

/** `np.linalg.norm` of a short vector: the square root of the left-to-right sum of squares. */
export function norm(x: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i] * x[i];
  return Math.sqrt(sum);
}

/** `np.hstack` of numbers and arrays into one float64 array. */
export function hstack(...parts: (number | ArrayLike<number>)[]): Float64Array {
  let n = 0;
  for (const p of parts) n += typeof p === "number" ? 1 : p.length;
  const out = new Float64Array(n);
  let k = 0;
  for (const p of parts) {
    if (typeof p === "number") out[k++] = p;
    else for (let i = 0; i < p.length; i++) out[k++] = p[i];
  }
  return out;
}

/**
 * Removes the element `<tag name="name" ...>` and everything inside it from an MJCF string (what dm_control does
 * with `xml_tools.find_element(...).getparent().remove(...)` when it builds a task's variant of a model).
 */
export function removeElement(xml: string, tag: string, name: string): string {
  const start = xml.indexOf(`<${tag} name="${name}"`);
  if (start < 0) throw new Error(`removeElement: no <${tag} name="${name}">`);
  const open = new RegExp(`<${tag}[\\s>/]|</${tag}>`, "g");
  open.lastIndex = start;
  let depth = 0;
  for (let m = open.exec(xml); m !== null; m = open.exec(xml)) {
    if (m[0].startsWith("</")) depth--;
    else {
      const close = xml.indexOf(">", m.index);
      if (xml[close - 1] !== "/") depth++;
      else if (depth === 0) return xml.slice(0, start) + xml.slice(close + 1);
    }
    if (depth === 0) return xml.slice(0, start) + xml.slice(m.index + m[0].length);
  }
  throw new Error(`removeElement: <${tag} name="${name}"> is not closed`);
}
