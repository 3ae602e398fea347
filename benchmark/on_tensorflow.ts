// Benchmark-only runner that trains a variant on native TensorFlow (@tensorflow/tfjs-node, built by
// benchmark/native_tf.sh) where the variant's own backend selection cannot pick it yet:
//   npx tsx benchmark/on_tensorflow.ts ppo_atari.ts --env-id BreakoutNoFrameskip-v4 --rom-dir ~/roms ...
// When the variant selects "wasm", the wasm backend is initialised as usual (so envs/backend.ts finds it) and then
// the engine switches to "tensorflow". The variant's "backend:" line still names wasm; this file prints the truth.
import * as tf from "@tensorflow/tfjs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [variant, ...argv] = process.argv.slice(2);
if (variant == null) {
  console.error("error: usage: npx tsx benchmark/on_tensorflow.ts <variant.ts> [variant args]");
  process.exit(2);
}
process.env.TF_CPP_MIN_LOG_LEVEL ??= "2";
try {
  await import("@tensorflow/tfjs-node" as string);
} catch (err) {
  console.error(`error: @tensorflow/tfjs-node does not load (${String((err as Error).message).split("\n")[0]}); run bash benchmark/native_tf.sh`);
  process.exit(1);
}
const engine = tf.engine();
const setBackend = engine.setBackend.bind(engine);
engine.setBackend = async (name: string): Promise<boolean> => {
  const ok = await setBackend(name);
  if (name !== "wasm" || !ok) return ok;
  const switched = await setBackend("tensorflow");
  const version = (tf.backend() as unknown as { binding: { TF_Version: string } }).binding.TF_Version;
  console.log(`benchmark override: running on "${tf.getBackend()}" (libtensorflow ${version}) instead of wasm`);
  return switched;
};
const mod = (await import(pathToFileURL(resolve(variant)).href)) as { main(argv: string[]): Promise<void> };
await mod.main(argv);
