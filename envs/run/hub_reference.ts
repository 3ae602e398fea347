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
// a test runner's `--test` must not reach the child. A bare `--import tsx` is resolved from here, since the child
// may start in a folder without node_modules.
function loaderFlags(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  const located = (spec: string) => (/^[\w@]/.test(spec) && !/^\w+:/.test(spec) ? import.meta.resolve(spec) : spec);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const joined = a.match(/^--(import|require|loader|experimental-loader)=(.*)$/);
    if (joined) out.push(`--${joined[1]}`, joined[1] === "require" ? joined[2] : located(joined[2]));
    else if (/^(--import|--require|-r|--loader|--experimental-loader)$/.test(a) && i + 1 < argv.length) {
      const spec = argv[++i];
      out.push(a, a === "--require" || a === "-r" ? spec : located(spec));
    }
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
  const last = out.stdout.trim().split("\n").pop() ?? "";
  let result: { path?: string; error?: string };
  try {
    result = JSON.parse(last);
  } catch {
    const said = out.stderr.trim().split("\n").pop();
    return new Error(
      `the Hub download for ${reference} ended without a result (exit code ${out.status}${said ? `: ${said}` : ""})`,
    );
  }
  // The child's notes (a download, an offline read) are this process's to show.
  for (const line of out.stderr.split("\n")) if (line.trim()) console.log(line);
  if (typeof result.path === "string") return result.path;
  return new Error(result.error ?? `the Hub download for ${reference} failed`);
}
