// How a script ends. Every variant's `if __name__ == "__main__"` block is `await runMain(main)`, which gives it:
//
//   * Failures a user can read: any error ends the script with one line `error: <message>` on stderr and exit
//     code 2 for a bad command line (a UsageError from envs/run/cli.ts), 1 for anything else. The stack trace is
//     printed only with `--debug` or `DEBUG=1`. Python prints a traceback; a user of these scripts is better
//     served by the line that says what to change, and the stack is one flag away.
//   * Clean interrupts: Ctrl-C (SIGINT) or SIGTERM closes what the script registered with `closeOnExit` (the vector
//     env, which closes its worker threads and finishes its videos; the TensorBoard writer; the wandb run), in
//     that order, and exits 130 / 143 (128 + the signal's number, the shell convention). A second signal exits at
//     once. The training loop is synchronous, so a signal's handler only runs when the loop yields: variants call
//     `await pollSignals()` once per iteration, which bounds how long Ctrl-C takes to one iteration.
//   * The same cleanup after an error, so a run that fails half-way still leaves a complete event file.
// Scripts written as top-level code (most of benchmark/) call `handleExits()` first instead: same lines, same codes.
//
// Also here, because they end a script the same way in every variant: the NaN guard (`checkFinite`), the env-id
// check against a variant's spaces before any env is built (`checkEnvSpaces`), and the removal of the exit
// handlers that tfjs-backend-wasm's Emscripten module installs (`removeWasmExitHandlers`).

import { UsageError, usageError } from "./cli.ts";
import { isWandbSdkError } from "./logging.ts";
import { type SpaceKinds, spaceKinds } from "../gymnasium/registration.ts";

/** Something `closeOnExit` can close: a vector env, a SummaryWriter, a wandb Tracker (finished), or nothing. */
export type Closable = { close(): unknown } | { finish(): Promise<void> } | null | undefined;

const toClose: Closable[] = [];
let exiting = false;

/** Whether to print stack traces: `--debug` anywhere on the command line, or DEBUG set to anything but 0/false. */
export function debugEnabled(argv = process.argv.slice(2), env = process.env): boolean {
  const flag = env.DEBUG;
  return (
    argv.includes("--debug") || (flag !== undefined && flag !== "" && flag !== "0" && flag.toLowerCase() !== "false")
  );
}

/**
 * Registers resources to close, in the order given, when the script is interrupted or fails (after a normal end
 * the script closes them itself; closing twice is harmless for all of them). Call it right after creating them.
 */
export function closeOnExit(...resources: Closable[]): void {
  toClose.push(...resources);
}

/** Closes the registered resources once, in order; a failing close is reported (with --debug) and skipped. */
async function closeAll(): Promise<void> {
  const resources = toClose.splice(0);
  for (const r of resources) {
    try {
      if (r == null) continue;
      if ("close" in r) r.close();
      else await r.finish();
    } catch (e) {
      if (debugEnabled()) process.stderr.write(`while closing after the failure: ${(e as Error)?.stack ?? e}\n`);
    }
  }
}

/** Thrown when training cannot go on (a non-finite loss...): its message already says what to do. */
export class TrainingError extends Error {
  override name = "TrainingError";
}

/** The one line a failure prints: the message with its line breaks folded, plus a hint where it lacks one. */
export function errorLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const folded = message.replace(/\s*\n\s*/g, " ").trim() || (e instanceof Error ? e.name : "unknown error");
  if (e instanceof UsageError) return `error: ${folded}`;
  if (e instanceof TrainingError) return `error: ${folded}`;
  return `error: ${folded} (rerun with --debug for the stack trace)`;
}

function exitCodeOf(e: unknown): number {
  return e instanceof UsageError ? 2 : 1;
}

/** Prints the failure (one line; the stack too with --debug), closes what is registered, exits 2 or 1. */
async function fail(e: unknown): Promise<never> {
  if (exiting) process.exit(exitCodeOf(e));
  exiting = true;
  process.stderr.write(`${errorLine(e)}\n`);
  if (e instanceof UsageError) process.stderr.write("(run with --help to list the flags)\n");
  if (debugEnabled() && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  await closeAll();
  process.exit(exitCodeOf(e));
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

async function onSignal(signal: keyof typeof SIGNAL_EXIT_CODES): Promise<void> {
  const code = SIGNAL_EXIT_CODES[signal];
  if (exiting) process.exit(code);
  exiting = true;
  process.stderr.write(
    `\n${signal}: closing the envs and writers, then exiting (${signal === "SIGINT" ? "Ctrl-C" : "SIGTERM"} again quits at once)\n`,
  );
  await closeAll();
  process.exit(code);
}

/**
 * Lets a pending Ctrl-C / SIGTERM run its handler. Node delivers signals through the event loop, which a
 * synchronous training loop never reaches; one `setImmediate` turn passes through the loop's poll phase, where
 * the signal is picked up. Costs a few microseconds: call it once per iteration.
 */
export function pollSignals(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

let handlersInstalled = false;

/**
 * Installs what `runMain` relies on: SIGINT / SIGTERM handlers, and listeners that end any error thrown outside a
 * promise chain (a timer, an event listener) with one line. A script written as top-level code (no `main`) calls
 * this first instead of `runMain`: an error thrown by top-level code reaches the `uncaughtException` listener too.
 */
export function handleExits(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("SIGINT", () => void onSignal("SIGINT"));
  process.on("SIGTERM", () => void onSignal("SIGTERM"));
  // The wandb SDK's errors are left to envs/run/logging.ts's own listener, which turns them into "tracking stopped"
  // while training goes on.
  process.on("uncaughtException", (e) => {
    if (!isWandbSdkError(e)) void fail(e);
  });
  process.on("unhandledRejection", (e) => void fail(e));
}

/**
 * Runs a script's `main`: one `error:` line and exit 2 (usage) or 1 (anything else) on failure, the stack only with
 * `--debug` / `DEBUG=1`; SIGINT / SIGTERM close what `closeOnExit` registered and exit 130 / 143.
 */
export async function runMain(main: () => Promise<void>): Promise<void> {
  handleExits();
  try {
    await main();
  } catch (e) {
    await fail(e);
  }
  toClose.length = 0;
}

/**
 * tfjs-backend-wasm 4.22's Emscripten module, when its factory runs (on `tf.setBackend("wasm")`), adds two process
 * listeners: `uncaughtException` (`if (!(ex instanceof ExitStatus)) throw ex`) and `unhandledRejection`
 * (`throw reason`). Rethrowing from inside a listener makes Node print the throwing source line, which is the
 * module's whole minified source (tens of kilobytes on one line), and exit 7; and any unhandled rejection
 * anywhere becomes a crash. Call this right after the wasm backend initialised: it removes exactly those two
 * listeners, recognised by their source (the module exposes no handle to them), and returns how many it removed.
 */
export function removeWasmExitHandlers(): number {
  let removed = 0;
  for (const listener of process.listeners("uncaughtException")) {
    if (/\binstanceof ExitStatus\b[\s\S]*\bthrow ex\b/.test(Function.prototype.toString.call(listener))) {
      process.removeListener("uncaughtException", listener);
      removed++;
    }
  }
  for (const listener of process.listeners("unhandledRejection")) {
    if (/^function\s*\(reason\)\s*\{\s*throw reason;?\s*\}$/.test(Function.prototype.toString.call(listener))) {
      process.removeListener("unhandledRejection", listener);
      removed++;
    }
  }
  return removed;
}

/**
 * The NaN guard. `values` are the metrics of one update step, named by `names`; if one is NaN or infinite, throws
 * a TrainingError naming it and the iteration. `save` (given with --save-model) runs first and returns where the
 * last good agent went: the variants check the metrics before applying the gradient, so the agent still holds the
 * parameters of the last finite update.
 */
export function checkFinite(
  values: ArrayLike<number>,
  names: readonly string[],
  iteration: number,
  save: (() => string) | null,
): void {
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i])) continue;
    const saved = save === null ? "" : `; the last good agent is saved in ${save()}`;
    throw new TrainingError(
      `non-finite ${names[i] ?? `metric ${i}`} (${values[i]}) at iteration ${iteration}: training stopped before applying that update${saved}. ` +
        "Try a lower --learning-rate or --max-grad-norm, and check the env's rewards and observations for NaN",
    );
  }
}

/** The variant that takes an env with these spaces (for the error message's hint). */
function variantFor(kinds: SpaceKinds): string | null {
  if (kinds.action === "continuous") return kinds.observation === "vector" ? "ppo_continuous_action.ts" : null;
  return kinds.observation === "vector" ? "ppo.ts" : "ppo_atari.ts";
}

/**
 * Checks `envId` against the spaces a variant supports, from the kinds declared at registration, so that a wrong
 * id fails in one line before any env is built (a MuJoCo env cannot even be built before MuJoCo is loaded).
 * Ids registered without them pass: the variant's check on the built env's spaces then decides.
 */
export function checkEnvSpaces(envId: string, supported: Partial<SpaceKinds>): void {
  const kinds = spaceKinds(envId);
  if (kinds === null) return;
  const other = variantFor(kinds);
  const hint = other === null ? "" : ` (${other} takes it)`;
  if (supported.action !== undefined && kinds.action !== supported.action) {
    usageError(
      `only ${supported.action} action space is supported; ${envId} has a ${kinds.action} action space${hint}`,
    );
  }
  if (supported.observation !== undefined && kinds.observation !== supported.observation) {
    usageError(
      `only ${supported.observation} observations are supported; ${envId} has ${kinds.observation} observations${hint}`,
    );
  }
}
