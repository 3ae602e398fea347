// A script's bad command line checked in-process (not a test file itself). Not in helpers.ts: the async_vector
// tests' worker threads import that file, and need none of envs/main.ts's imports.

import assert from "node:assert/strict";

import { UsageError } from "../envs/cli.ts";
import { errorLine } from "../envs/main.ts";

/**
 * `main(args)` must reject with a UsageError, which runMain (envs/main.ts) prints as one `error:` line with exit 2;
 * returns that line. tests/errors.test.ts runs every variant as a child process to check runMain's part end to end.
 * `env` is set in process.env for the call and restored afterwards (e.g. ALE_ROMS_DIR: "" to hide the workplace's ROMs).
 */
export async function usageErrorLine(main: (argv: string[]) => Promise<void>, args: string[], env: Record<string, string> = {}): Promise<string> {
  const saved = Object.entries(env).map(([name]) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  try {
    let line = "";
    await assert.rejects(main(args), (e: Error) => {
      assert.ok(e instanceof UsageError, `${args.join(" ")}: ${e} is not a UsageError (exit 2)`);
      line = errorLine(e);
      return true;
    });
    return line;
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
