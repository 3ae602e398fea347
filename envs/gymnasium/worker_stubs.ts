// Light AsyncVectorEnv workers: inside a worker thread, tfjs and its backends resolve to a stub.
//
// A worker builds its env by importing the training script itself (`{ module: import.meta.url, exportName:
// "makeEnv" }`), so that each variant keeps its CleanRL-style `make_env` in its own file. Importing the script
// also imports everything it imports at top level, tfjs first: start-up time and memory in every worker
// (benchmark/README.md, "Env worker start-up") for a library an env never calls. So each worker registers, after
// tsx's, a Node module-resolution hook (`module.register`, Node >= 20.6) that answers every `@tensorflow/*` and
// `webgpu` import with a generated stub module: importing it costs nothing, and *using* it fails loudly. Evaluating a
// variant module only touches `tf` inside functions (types aside), so the variants run unchanged.
//
// The stub's export names: an ES module's names are fixed when it is written, and `import * as tf` needs
// `tf.tidy` to exist to throw a useful error rather than "tf.tidy is not a function". Reading the names from
// the package without running it (as Node's CJS lexer does) costs as much as loading tfjs, so the main thread,
// which has loaded tfjs already in every training script, hands its export names to the workers. A package the
// main thread has not loaded gets a stub with only a default export: using it still fails, with Node's
// "... is not a function". Named imports of a missing name fail when the worker links the module; the
// variants use namespace imports (`import * as tf`).
//
// Limits: the hook covers ES `import`s (Node 20's hooks do not see CJS `require`), and an env that really needs
// tensors in its worker can opt out with `new AsyncVectorEnv(fns, { stubTfjs: false })`.

import { createRequire } from "node:module";

/** The one line a worker's env gets when it touches tfjs (followed by the name it used). */
export const STUB_MESSAGE =
  "tfjs is not available in env worker threads: makeEnv and the envs it builds must not use tensors";

/** Packages whose export names the main thread passes on when it has them loaded. */
const KNOWN_PACKAGES = [
  "@tensorflow/tfjs",
  "@tensorflow/tfjs-core",
  "@tensorflow/tfjs-backend-wasm",
  "@tensorflow/tfjs-backend-webgpu",
  "@tensorflow/tfjs-node",
  "@tensorflow/tfjs-node-gpu",
  "webgpu",
];

/**
 * Export names of the stubbed packages this (main) thread has loaded, by specifier. Costs a few resolutions:
 * a package counts only if it is already in the CommonJS cache (tfjs's Node builds are CommonJS).
 */
export function loadedExportNames(): Record<string, string[]> {
  const require = createRequire(import.meta.url);
  const names: Record<string, string[]> = {};
  for (const specifier of KNOWN_PACKAGES) {
    let path: string;
    try {
      path = require.resolve(specifier);
    } catch {
      continue; // not installed (tfjs-node is optional)
    }
    const cached = require.cache[path];
    if (cached !== undefined)
      names[specifier] = Object.keys(cached.exports as object).filter((name) => name !== "default");
  }
  return names;
}

/**
 * The hooks module, registered by each worker's bootstrap. Plain JavaScript in a data: URL: it runs on Node's
 * hooks thread, which only knows TypeScript through tsx's hooks, and it needs nothing from the project.
 * `initialize` gets the export names; `resolve` answers a stubbed specifier with the stub's source, itself a
 * data: URL, and passes everything else on (to tsx's resolve, then Node's).
 */
const HOOKS = `
let names = {};
let message = "";
export function initialize(data) {
  names = data.names;
  message = data.message;
}
const STUBBED = /^(@tensorflow\\/|webgpu$|webgpu\\/)/;
function stubSource(specifier) {
  const exported = names[specifier] ?? [];
  // Every export is a stub that throws on use: a call, a new, or reading a property of it.
  const lines = [
    "const make = (name) => {",
    "  const fail = () => { throw new Error(" + JSON.stringify(message) + " + ' (' + name + ')'); };",
    "  return new Proxy(function () {}, { apply: fail, construct: fail, get: (target, key) => (key === Symbol.toPrimitive || key === 'then' ? undefined : fail()) });",
    "};",
    "export default make(" + JSON.stringify(specifier) + ");",
  ];
  exported.forEach((name, i) => lines.push("const s" + i + " = make(" + JSON.stringify(specifier + ": " + name) + "); export { s" + i + " as " + JSON.stringify(name) + " };"));
  return "data:text/javascript," + encodeURIComponent(lines.join("\\n"));
}
export async function resolve(specifier, context, nextResolve) {
  if (STUBBED.test(specifier)) return { url: stubSource(specifier), format: "module", shortCircuit: true };
  return nextResolve(specifier, context);
}
`;

export const HOOKS_URL = `data:text/javascript,${encodeURIComponent(HOOKS)}`;
