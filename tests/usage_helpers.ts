// A script's bad command line checked in-process (not a test file itself). Not in helpers.ts: the async_vector
// tests' worker threads import that file, and need none of envs/run/main.ts's imports.

import assert from "node:assert/strict";
import { existsSync, readdirSync, rmSync } from "node:fs";

import { UsageError } from "../envs/run/cli.ts";
import { errorLine } from "../envs/run/main.ts";

/**
 * `main(args)` must reject with a UsageError, which runMain (envs/run/main.ts) prints as one `error:` line with exit 2;
 * returns that line. tests/errors.test.ts runs every variant as a child process to check runMain's part end to end.
 * `env` is set in process.env for the call and restored afterwards (e.g. ALE_ROMS_DIR: "" to hide the workplace's ROMs).
 * A script that opens its run directory before it fails (CleanRL's order: the writer, then the envs) would leave
 * runs/<run> in the working directory, the repository when tests run; what the call adds there is removed. (Not a
 * chdir to a scratch folder: the threaded WASM backend's workers resolve `--import tsx` from the working directory.)
 */
export async function usageErrorLine(
  main: (argv: string[]) => Promise<void>,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const saved = Object.entries(env).map(([name]) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  const runsBefore = new Set(existsSync("runs") ? readdirSync("runs") : []);
  try {
    let line = "";
    await assert.rejects(main(args), (e: Error) => {
      assert.ok(e instanceof UsageError, `${args.join(" ")}: ${e} is not a UsageError (exit 2)`);
      line = errorLine(e);
      return true;
    });
    return line;
  } finally {
    if (existsSync("runs")) {
      for (const run of readdirSync("runs"))
        if (!runsBefore.has(run)) rmSync(`runs/${run}`, { recursive: true, force: true });
      if (runsBefore.size === 0 && readdirSync("runs").length === 0) rmSync("runs", { recursive: true, force: true });
    }
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
