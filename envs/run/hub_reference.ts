// `--eval-checkpoint <entity>/<repo>`: a Hugging Face Hub model repo given where a checkpoint file is expected.
// Checkpoints are read synchronously (envs/torch/checkpoint.ts `readCheckpoint`), the Hub client is asynchronous:
// the download runs in a child Node process (envs/run/hub.ts `resolve`, under the same TypeScript loader) that
// this process waits for. Only names that are no local file get here, so a typo in a local path costs no request
// unless it also reads as a repo id.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

// A bare `<entity>/<repo>` (the Hub's rules for names: letters, digits, `-_.`; a repo named like one of our files
// is taken for a missing local file), or `hf://<entity>/<repo>[/<path in repo>]` for a given file in a repo.
const BARE_REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const HF_URL = /^hf:\/\/[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*(\/[\w.-]+)*$/;

/** Whether `reference` reads as a Hub repo id, or an hf:// reference to a repo or a file in one. */
export function isHubReference(reference: string): boolean {
  if (reference.includes("..")) return false;
  return (
    HF_URL.test(reference) || (BARE_REPO.test(reference) && !/\.(safetensors|json|cleanrl_model)$/.test(reference))
  );
}

// The loader flags this process runs under (tsx's `--import`/`--require`), and nothing else of its command line:
// a test runner's `--test` must not reach the child.
function loaderFlags(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (/^--(import|require|loader|experimental-loader)=/.test(a)) out.push(a);
    else if (/^(--import|--require|-r|--loader|--experimental-loader)$/.test(a) && i + 1 < argv.length)
      out.push(a, argv[++i]);
  }
  return out;
}

/**
 * The local file for Hub reference `reference` (downloaded into the Hub cache, or found there offline), null when
 * `reference` is no Hub reference, or an Error whose message is one line.
 */
export function resolveHubCheckpoint(reference: string): string | null | Error {
  if (!isHubReference(reference)) return null;
  const script = fileURLToPath(new URL("./hub.ts", import.meta.url));
  const out = spawnSync(process.execPath, [...loaderFlags(), script, "resolve", reference], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: process.env,
  });
  if (out.error) return new Error(`cannot start the Hub download for ${reference}: ${out.error.message}`);
  for (const line of out.stderr.split("\n")) if (line.trim()) console.log(line);
  const last = out.stdout.trim().split("\n").pop() ?? "";
  let result: { path?: string; error?: string };
  try {
    result = JSON.parse(last);
  } catch {
    return new Error(`the Hub download for ${reference} ended without a result (exit code ${out.status})`);
  }
  if (typeof result.path === "string") return result.path;
  return new Error(result.error ?? `the Hub download for ${reference} failed`);
}
