// Vectorized environments stepped in parallel, as `gymnasium.vector.AsyncVectorEnv` (0.29): each sub-env lives
// in its own worker thread, so N envs use up to N cores while the learner waits.
//
// The API and results are SyncVectorEnv's (envs/gymnasium/vector.ts): flat typed-array batches, Gymnasium's seeding rule
// and 0.29's same-step autoreset with `final_observation` / `final_info`. What differs is the plumbing:
//
// - Envs are described, not passed. A worker cannot receive a closure, so each sub-env is an `EnvFnSpec`
//   `{ module, exportName, args }`: the worker imports `module` and calls `exportName(...args)`, a
//   CleanRL-style `makeEnv(...)` that returns the thunk (or the env itself). A training script passes its own
//   `import.meta.url` and guards its main code so importing it in a worker does not train.
// - Zero-copy batches, like 0.29's `shared_memory=True`: observations, actions, rewards, terminations and
//   truncations live in SharedArrayBuffers that workers read and write in place; nothing is cloned per step but
//   the (small) info dicts, and terminal observations at episode ends.
// - Several envs per worker (`numWorkers`): with more envs than cores, one thread per env only adds messaging
//   and threads contending for the same cores; a worker then hosts a contiguous run of envs, steps them one after
//   the other and answers once for all of them. Every env still writes its own slot of the shared batch.
// - Synchronous steps: the caller's loop is synchronous, so instead of promises each worker has a shared
//   Int32Array control block. The main thread bumps a request counter and `Atomics.notify`s; the worker, parked
//   in `Atomics.wait`, runs the command, writes its results, bumps the response counter and notifies back. Infos
//   travel over a MessageChannel and are read with `receiveMessageOnPort`, also synchronous.
// - Failure is an Error, never a hang: a worker catches whatever its env throws (construction, reset, step) and
//   reports it with its stack; a worker that exits flags that in its control block; and every wait is bounded
//   (`timeoutMs`), which is the only way to notice a worker killed outright (out of memory), since the main
//   thread's event loop, where 'exit' events arrive, does not run while it waits.
// - TypeScript in workers: Node 20 does not apply the parent's `--import tsx` loader hooks to worker threads, so
//   each worker starts from a tiny bootstrap that registers tsx's ESM hooks (`tsx/esm/api`) before importing this
//   file and the env module. That works the same whether the parent runs under `npx tsx` or `node --import tsx`.
// - Light workers: the env module is usually the training script, which imports tfjs at top level. The bootstrap
//   also registers envs/gymnasium/worker_stubs.ts's hook, so that in a worker tfjs (and webgpu) resolve to a stub that
//   costs nothing to import and throws one clear line when used, so a worker of ppo_atari.ts starts in less CPU
//   time and memory (benchmark/README.md, "Env worker start-up").

import {
  MessageChannel,
  type MessagePort,
  Worker,
  receiveMessageOnPort,
  workerData as threadData,
} from "node:worker_threads";
import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import type { Env, Info, Metadata, ResetArgs } from "./core.ts";
import {
  Box,
  Discrete,
  type DType,
  MultiBinary,
  MultiDiscrete,
  type Space,
  type TypedArray,
  zerosOf,
} from "./spaces.ts";
import { type VectorInfo, type VectorResetArgs, type VectorStepResult, addInfo, batchSpace } from "./vector_utils.ts";
import { HOOKS_URL, STUB_MESSAGE, loadedExportNames } from "./worker_stubs.ts";

/** One sub-env, described so that a worker thread can build it (the stand-in for one of Python's `env_fns`). */
export interface EnvFnSpec {
  /** File URL (e.g. `import.meta.url`) or path of the ES module to import; .ts modules are fine. */
  module: string;
  /** The module's named export to call: returns a thunk `() => Env`, or an Env. Default "makeEnv". */
  exportName?: string;
  /** Arguments for the export; they must survive structured cloning (numbers, strings, plain objects...). */
  args?: unknown[];
}

export interface AsyncVectorEnvOptions {
  /** As SyncVectorEnv's `copy`: `false` returns the shared observation batch itself, overwritten by the next call. */
  copy?: boolean;
  /**
   * Longest wait, in milliseconds, for one worker to answer one call before the call fails: an env that hangs, or
   * a worker that died without a word; default 120 s.
   */
  timeoutMs?: number;
  /** The same for the workers' startup (importing the env module and building the envs); default `timeoutMs`. */
  startupTimeoutMs?: number;
  /**
   * Replace tfjs (every `@tensorflow/*` package) and `webgpu` by a throwing stub inside the workers (default
   * true): envs do not use tensors, and the training script the workers import would otherwise load tfjs in
   * each of them. `false` for an env that really computes with tfjs in its worker.
   */
  stubTfjs?: boolean;
  /**
   * How many worker threads host the envs (default: one per env, as Gymnasium). Fewer, e.g. one per core, split
   * the envs into contiguous runs (envs 0-3 in worker 0, 4-7 in worker 1, ...), each stepped in turn by its
   * worker: the same results, less messaging and no threads contending for a core.
   */
  numWorkers?: number;
}

// Slots of a worker's control block.
const REQUEST = 0; // sequence number of the last command sent (main thread writes)
const RESPONSE = 1; // sequence number of the last command finished (worker writes)
const COMMAND = 2;
const STATUS = 3; // OK or FAILED, for the last response
const HAS_MESSAGE = 4; // 1 when the worker posted a message with the last response
const EXITED = 5; // 1 once the worker thread is exiting
const EXIT_CODE = 6;
const CONTROL_SLOTS = 8;

const OK = 0;
const FAILED = 1;

// Command 0 is the implicit first one (REQUEST starts at 1): build the env and describe it.
const CMD_ATTACH = 1;
const CMD_RESET = 2;
const CMD_STEP = 3;
const CMD_CALL = 4;
const CMD_CLOSE = 5;

/** Bootstrap of every worker: register tsx, import this file, run the worker loop; report a failure to start. */
const BOOTSTRAP = `
import { workerData } from "node:worker_threads";
const { control, port } = workerData;
try {
  if (workerData.tsxApi !== null) (await import(workerData.tsxApi)).register();
  // Registered after tsx's, so it resolves first: tfjs never reaches tsx or Node's loader in a worker.
  // (module.register is Node >= 20.6; on older Nodes workers load the real tfjs, as before.)
  const { register } = await import("node:module");
  if (workerData.stubs !== null && typeof register === "function") register(workerData.stubs.hooks, { data: workerData.stubs.data });
  const { runAsyncVectorWorker } = await import(workerData.self);
  await runAsyncVectorWorker(workerData);
} catch (error) {
  try {
    port.postMessage({ error: { message: String(error && error.message || error), stack: String(error && error.stack || "") } });
    Atomics.store(control, ${HAS_MESSAGE}, 1);
  } catch {}
  Atomics.store(control, ${STATUS}, ${FAILED});
  Atomics.store(control, ${RESPONSE}, Atomics.load(control, ${REQUEST}));
  Atomics.notify(control, ${RESPONSE});
}
`;
const BOOTSTRAP_URL = new URL(`data:text/javascript,${encodeURIComponent(BOOTSTRAP)}`);

interface WorkerData {
  control: Int32Array;
  port: MessagePort;
  /** The global index of this worker's first env; its envs are `first`, `first + 1`, ... */
  first: number;
  specs: Required<EnvFnSpec>[];
  tsxApi: string | null;
  /** The stub hook's URL and its `initialize` data, or null when the workers load the real tfjs. */
  stubs: { hooks: string; data: { names: Record<string, string[]>; message: string } } | null;
  self: string;
}

/** The shared batch arrays, one view each on a SharedArrayBuffer; workers get views on the same memory. */
interface SharedBatch {
  observations: TypedArray;
  actions: Float64Array;
  rewards: Float64Array;
  terminations: Uint8Array;
  truncations: Uint8Array;
}

interface WorkerError {
  message: string;
  stack: string;
  /** The global index of the env that failed, when the failure was one env's. */
  env?: number;
}

type SpaceDescription =
  | { kind: "Box"; low: TypedArray; high: TypedArray; shape: number[]; dtype: DType }
  | { kind: "Discrete"; n: number; start: number }
  | { kind: "MultiDiscrete"; nvec: Int32Array }
  | { kind: "MultiBinary"; n: number };

interface EnvDescription {
  observationSpace: SpaceDescription;
  actionSpace: SpaceDescription;
  metadata: Metadata;
  specId: string | null;
}

function describeSpace(space: Space): SpaceDescription {
  if (space instanceof Box)
    return { kind: "Box", low: space.low, high: space.high, shape: [...space.shape], dtype: space.dtype };
  if (space instanceof Discrete) return { kind: "Discrete", n: space.n, start: space.start };
  if (space instanceof MultiDiscrete) return { kind: "MultiDiscrete", nvec: space.nvec };
  if (space instanceof MultiBinary) return { kind: "MultiBinary", n: space.n };
  throw new TypeError(`AsyncVectorEnv: cannot send ${space} to the main thread`);
}

function reviveSpace(d: SpaceDescription): Space {
  switch (d.kind) {
    case "Box":
      return new Box(d.low, d.high, d.shape, d.dtype);
    case "Discrete":
      return new Discrete(d.n, d.start);
    case "MultiDiscrete":
      return new MultiDiscrete(d.nvec);
    case "MultiBinary":
      return new MultiBinary(d.n);
  }
}

/** A typed array of `dtype` (the class `zerosOf` uses) on a new SharedArrayBuffer. */
function sharedArray(dtype: DType, length: number): TypedArray {
  const Ctor = zerosOf(dtype, 0).constructor as {
    new (buffer: SharedArrayBuffer): TypedArray;
    BYTES_PER_ELEMENT: number;
  };
  return new Ctor(new SharedArrayBuffer(Math.max(1, length) * Ctor.BYTES_PER_ELEMENT));
}

function errorOf(error: unknown, env?: number): WorkerError {
  if (error instanceof Error) return { message: `${error.name}: ${error.message}`, stack: error.stack ?? "", env };
  return { message: String(error), stack: "", env };
}

function moduleUrl(module: string): string {
  if (/^(file|data|node):/.test(module)) return module;
  return pathToFileURL(isAbsolute(module) ? module : resolve(module)).href;
}

/** tsx's ESM hook API, resolved from this file so workers find it whatever the current directory. */
function tsxApiUrl(): string | null {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return null;
  }
}

export class AsyncVectorEnv {
  readonly numEnvs: number;
  readonly singleObservationSpace: Space;
  readonly singleActionSpace: Space;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly metadata: Metadata;
  readonly isVectorEnv = true;
  closed = false;

  private readonly workers: Worker[] = [];
  private readonly controls: Int32Array[] = [];
  private readonly ports: MessagePort[] = [];
  /** Worker w hosts envs `firsts[w]` to `firsts[w + 1] - 1` (`firsts` ends with numEnvs). */
  private readonly firsts: number[] = [];
  /** Error events the main thread received from each worker (only seen when its event loop got to run). */
  private readonly workerEvents: (Error | null)[] = [];
  private readonly copy: boolean;
  private readonly timeoutMs: number;
  private readonly specId: string | null;
  private readonly shared: SharedBatch;
  private readonly obsSize: number;
  private readonly actSize: number;

  /** `envFns` describe the sub-envs, like CleanRL's `[make_env(...) for i in range(num_envs)]`; see EnvFnSpec. */
  /**
   * One env per entry of `argsList`, each built in a worker by `module`'s export `exportName(...args)()` (a
   * variant's `makeEnv`), with one worker per core unless `options.numWorkers` says otherwise.
   */
  static fromModule(
    module: string,
    exportName: string,
    argsList: unknown[][],
    options: AsyncVectorEnvOptions = {},
  ): AsyncVectorEnv {
    const envFns = argsList.map((args) => ({ module, exportName, args }));
    return new AsyncVectorEnv(envFns, { numWorkers: availableParallelism(), ...options });
  }

  constructor(envFns: readonly EnvFnSpec[], options: AsyncVectorEnvOptions = {}) {
    if (envFns.length === 0) throw new RangeError("AsyncVectorEnv: needs at least one env");
    this.numEnvs = envFns.length;
    this.copy = options.copy ?? true;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    const numWorkers = Math.min(options.numWorkers ?? this.numEnvs, this.numEnvs);
    if (!Number.isInteger(numWorkers) || numWorkers < 1)
      throw new RangeError(`AsyncVectorEnv: numWorkers must be a positive integer, got ${options.numWorkers}`);
    const tsxApi = tsxApiUrl();
    const stubs =
      (options.stubTfjs ?? true)
        ? { hooks: HOOKS_URL, data: { names: loadedExportNames(), message: STUB_MESSAGE } }
        : null;
    // Contiguous runs as even as can be: with 8 envs and 3 workers, 3 + 3 + 2.
    for (let w = 0; w <= numWorkers; w++) this.firsts.push(Math.round((w * this.numEnvs) / numWorkers));
    for (let w = 0; w < numWorkers; w++) {
      const specs = envFns
        .slice(this.firsts[w], this.firsts[w + 1])
        .map(({ module, exportName = "makeEnv", args = [] }) => ({ module: moduleUrl(module), exportName, args }));
      const control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
      control[REQUEST] = 1; // the start command, run as soon as the worker is up
      const { port1, port2 } = new MessageChannel();
      const data: WorkerData = {
        control,
        port: port2,
        first: this.firsts[w],
        specs,
        tsxApi,
        stubs,
        self: import.meta.url,
      };
      const worker = new Worker(BOOTSTRAP_URL, { workerData: data, transferList: [port2] });
      // Like Python's daemon workers: a forgotten close() must not keep the process alive.
      worker.unref();
      port1.unref();
      this.workerEvents.push(null);
      worker.on("error", (error) => {
        this.workerEvents[w] = error;
        markExited(control, 1);
      });
      worker.on("exit", (code) => markExited(control, code));
      this.workers.push(worker);
      this.controls.push(control);
      this.ports.push(port1);
    }
    try {
      const startupTimeoutMs = options.startupTimeoutMs ?? this.timeoutMs;
      const descriptions = this.workers.flatMap(
        (_, w) => this.receive(w, "construction", startupTimeoutMs) as EnvDescription[],
      );
      const first = descriptions[0];
      this.singleObservationSpace = reviveSpace(first.observationSpace);
      this.singleActionSpace = reviveSpace(first.actionSpace);
      this.metadata = first.metadata;
      this.specId = first.specId;
      // Gymnasium's `_check_spaces`: every sub-env must have the first env's spaces.
      for (let i = 1; i < this.numEnvs; i++) {
        const obs = reviveSpace(descriptions[i].observationSpace);
        const act = reviveSpace(descriptions[i].actionSpace);
        if (obs.toString() !== this.singleObservationSpace.toString()) {
          throw new Error(
            `AsyncVectorEnv: env ${i}'s observation space ${obs} differs from ${this.singleObservationSpace}`,
          );
        }
        if (act.toString() !== this.singleActionSpace.toString())
          throw new Error(`AsyncVectorEnv: env ${i}'s action space ${act} differs from ${this.singleActionSpace}`);
      }
      this.observationSpace = batchSpace(this.singleObservationSpace, this.numEnvs);
      this.actionSpace = batchSpace(this.singleActionSpace, this.numEnvs);
      this.obsSize = this.singleObservationSpace.size;
      this.actSize = this.singleActionSpace.size;
      this.shared = {
        observations: sharedArray(this.singleObservationSpace.dtype, this.numEnvs * this.obsSize),
        actions: sharedArray("float64", this.numEnvs * this.actSize) as Float64Array,
        rewards: sharedArray("float64", this.numEnvs) as Float64Array,
        terminations: sharedArray("uint8", this.numEnvs) as Uint8Array,
        truncations: sharedArray("uint8", this.numEnvs) as Uint8Array,
      };
      for (let w = 0; w < numWorkers; w++) this.send(w, CMD_ATTACH, this.shared);
      for (let w = 0; w < numWorkers; w++) this.receive(w, "attach");
    } catch (error) {
      this.terminate();
      throw error;
    }
  }

  reset(args: VectorResetArgs = {}): [observations: TypedArray, infos: VectorInfo] {
    this.assertOpen();
    const { seed, options } = args;
    if (Array.isArray(seed) && seed.length !== this.numEnvs) {
      throw new RangeError(`AsyncVectorEnv.reset: got ${seed.length} seeds for ${this.numEnvs} envs`);
    }
    const perEnv = Array.from({ length: this.numEnvs }, (_, i) => {
      const envSeed =
        typeof seed === "number" ? seed + i : (seed as readonly (number | null | undefined)[] | undefined)?.[i];
      const resetArgs: ResetArgs = {};
      if (envSeed !== undefined && envSeed !== null) resetArgs.seed = envSeed;
      if (options !== undefined) resetArgs.options = options;
      return resetArgs;
    });
    for (let w = 0; w < this.workers.length; w++)
      this.send(w, CMD_RESET, perEnv.slice(this.firsts[w], this.firsts[w + 1]));
    const infos = this.collectInfos("reset");
    return [this.copy ? this.shared.observations.slice() : this.shared.observations, infos];
  }

  /** As SyncVectorEnv.step: `actions[i]` for Discrete sub-envs, else a flat numEnvs * action-size array. */
  step(actions: ArrayLike<number>): VectorStepResult {
    this.assertOpen();
    const n = this.numEnvs;
    if (actions.length !== n * this.actSize) {
      throw new RangeError(
        `AsyncVectorEnv.step: expected ${n * this.actSize} action values for ${n} envs, got ${actions.length}`,
      );
    }
    this.shared.actions.set(actions);
    for (let w = 0; w < this.workers.length; w++) this.send(w, CMD_STEP);
    const infos = this.collectInfos("step");
    const { observations, rewards, terminations, truncations } = this.shared;
    return [
      this.copy ? observations.slice() : observations,
      rewards.slice(),
      terminations.slice(),
      truncations.slice(),
      infos,
    ];
  }

  /**
   * Gymnasium's `call(name, *args)`: each sub-env's `name(...args)`, or the attribute itself when it is not a
   * method. Arguments and results are structured-cloned.
   */
  call(name: string, ...args: unknown[]): unknown[] {
    this.assertOpen();
    for (let w = 0; w < this.workers.length; w++) this.send(w, CMD_CALL, { name, args });
    return this.workers.flatMap((_, w) => this.receive(w, `call(${name})`) as unknown[]);
  }

  /** Each sub-env's `render()` result. */
  render(): unknown[] {
    return this.call("render");
  }

  /**
   * Closes every sub-env in its worker (as 0.29's `close`), then ends the workers. Closing twice is fine; any
   * other call after `close` throws.
   */
  close(): void {
    if (this.closed) return;
    const asked: number[] = [];
    for (let w = 0; w < this.workers.length; w++) {
      if (Atomics.load(this.controls[w], EXITED) === 1) continue;
      this.send(w, CMD_CLOSE);
      asked.push(w);
    }
    try {
      for (const w of asked) this.receive(w, "close", Math.min(this.timeoutMs, 10_000));
    } catch {
      // A failed close has already ended every worker; Gymnasium's close does not raise it either.
    }
    this.terminate();
  }

  toString(): string {
    return this.specId !== null ? `AsyncVectorEnv(${this.specId}, ${this.numEnvs})` : `AsyncVectorEnv(${this.numEnvs})`;
  }

  private assertOpen(): void {
    if (this.closed)
      throw new Error(
        "AsyncVectorEnv: trying to operate on an AsyncVectorEnv after close() (or after a worker failed)",
      );
  }

  private terminate(): void {
    this.closed = true;
    for (const worker of this.workers) void worker.terminate().catch(() => {});
    for (const port of this.ports) port.close();
  }

  /** Every worker's answer to a reset or step: its envs' infos (undefined when all were empty), merged in env order. */
  private collectInfos(what: string): VectorInfo {
    const infos: VectorInfo = {};
    for (let w = 0; w < this.workers.length; w++) {
      const envInfos = this.receive(w, what) as (Info | undefined)[] | undefined;
      if (envInfos === undefined) continue;
      for (let j = 0; j < envInfos.length; j++)
        if (envInfos[j] !== undefined) addInfo(infos, envInfos[j] as Info, this.firsts[w] + j, this.numEnvs);
    }
    return infos;
  }

  /** Posts the command's argument (if any) and wakes worker w. */
  private send(w: number, command: number, argument?: unknown): void {
    const control = this.controls[w];
    if (argument !== undefined) this.ports[w].postMessage(argument);
    control[COMMAND] = command;
    Atomics.add(control, REQUEST, 1);
    Atomics.notify(control, REQUEST);
  }

  /**
   * Waits until worker w has answered its last command and returns the message it sent with the answer, if any.
   * A failure in the worker, a worker that exited, or no answer within the timeout closes the whole vector env
   * (as a failed worker leaves Gymnasium's unusable) and throws an Error naming the env (or envs) and the cause.
   */
  private receive(w: number, what: string, timeoutMs = this.timeoutMs): unknown {
    const control = this.controls[w];
    const request = Atomics.load(control, REQUEST);
    // Time waited, counted slice by slice: a slice counts at most what it asked for, so a process that was
    // suspended (Ctrl-Z then fg, SIGSTOP/SIGCONT, a laptop lid) does not wake up to a timeout it never waited for.
    let waited = 0;
    for (;;) {
      const response = Atomics.load(control, RESPONSE);
      if (response === request) break;
      if (Atomics.load(control, EXITED) === 1) {
        const event = this.workerEvents[w];
        throw this.fail(
          w,
          this.envsOf(w),
          what,
          `its worker exited (code ${control[EXIT_CODE]})${event ? `: ${event.stack ?? event.message}` : ""}`,
        );
      }
      const left = timeoutMs - waited;
      if (left <= 0) throw this.fail(w, this.envsOf(w), what, `no answer from its worker within ${timeoutMs} ms`);
      // Bounded slices: an exit flag can be raised without a notify on this slot reaching us.
      const slice = Math.min(left, 1000);
      const start = performance.now();
      Atomics.wait(control, RESPONSE, response, slice);
      waited += Math.min(performance.now() - start, slice + 50);
    }
    const message = control[HAS_MESSAGE] === 1 ? this.take(w) : undefined;
    if (control[STATUS] === FAILED) {
      const error = (message as { error?: WorkerError } | undefined)?.error;
      const envs = error?.env !== undefined ? `env ${error.env}` : this.envsOf(w);
      throw this.fail(
        w,
        envs,
        what,
        error ? `${error.message}\n--- worker stack ---\n${error.stack}` : "unknown error",
      );
    }
    return message;
  }

  /** "env 3", or "envs 2-3" for a worker hosting several: who a worker-wide failure concerns. */
  private envsOf(w: number): string {
    const first = this.firsts[w];
    const last = this.firsts[w + 1] - 1;
    return first === last ? `env ${first}` : `envs ${first}-${last}`;
  }

  /** The worker posts before it answers, so its message is already queued; a short bounded retry is a safeguard. */
  private take(w: number): unknown {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const received = receiveMessageOnPort(this.ports[w]);
      if (received !== undefined) return received.message;
      Atomics.wait(this.controls[w], CONTROL_SLOTS - 1, 0, 1);
    }
    throw this.fail(w, this.envsOf(w), "receive", "its worker answered but its message never arrived");
  }

  /** The error that ends the vector env: it names the env(s) and the worker thread hosting them. */
  private fail(w: number, envs: string, what: string, cause: string): Error {
    this.terminate();
    return new Error(`AsyncVectorEnv: ${envs} (worker thread ${w}) failed in ${what}: ${cause}`);
  }
}

function markExited(control: Int32Array, code: number): void {
  control[EXIT_CODE] = code;
  Atomics.store(control, EXITED, 1);
  Atomics.notify(control, RESPONSE);
}

/** One env inside a worker: the env, its global index and its slot of the shared observation batch. */
interface HostedEnv {
  env: Env;
  index: number;
  observation: TypedArray;
  actionSize: number;
  discreteActions: boolean;
}

/** Builds one env from its spec, as Python's worker calls its pickled thunk. */
async function buildEnv(spec: Required<EnvFnSpec>): Promise<Env> {
  const module = (await import(spec.module)) as Record<string, unknown>;
  const factory = module[spec.exportName];
  if (typeof factory !== "function") throw new TypeError(`${spec.module} has no function export "${spec.exportName}"`);
  let made: unknown = factory(...spec.args);
  if (typeof made === "function") made = made();
  if (
    made === null ||
    typeof made !== "object" ||
    typeof (made as Env).step !== "function" ||
    typeof (made as Env).reset !== "function"
  ) {
    throw new TypeError(`${spec.exportName}(...) must return an Env or a thunk returning one`);
  }
  return made as Env;
}

/**
 * The worker side (called by the bootstrap; not part of the public API): builds its envs, answers the start
 * command with their spaces, then serves commands, each for all its envs in turn, until close or a failure.
 */
export async function runAsyncVectorWorker(data: WorkerData = threadData as WorkerData): Promise<void> {
  const { control, port, first, specs } = data;
  process.on("exit", (code) => markExited(control, code));
  let sequence = Atomics.load(control, REQUEST);
  const answer = (status: number, message?: unknown) => {
    let hasMessage = message !== undefined;
    if (hasMessage) {
      try {
        port.postMessage(message);
      } catch (error) {
        // Typically an info value that cannot be cloned (a function, a class with private state...).
        port.postMessage({
          error: errorOf(new Error(`could not send the result to the main thread: ${errorOf(error).message}`)),
        });
        status = FAILED;
        hasMessage = true;
      }
    }
    control[HAS_MESSAGE] = hasMessage ? 1 : 0;
    control[STATUS] = status;
    Atomics.store(control, RESPONSE, sequence);
    Atomics.notify(control, RESPONSE);
    return status;
  };

  // The env being worked on, so that a failure names it.
  let current = first;
  const hosted: HostedEnv[] = [];
  try {
    const descriptions: EnvDescription[] = [];
    for (let j = 0; j < specs.length; j++) {
      current = first + j;
      const env = await buildEnv(specs[j]);
      hosted.push({ env, index: current, observation: new Float64Array(0), actionSize: 0, discreteActions: false });
      descriptions.push({
        observationSpace: describeSpace(env.observationSpace),
        actionSpace: describeSpace(env.actionSpace),
        metadata: env.metadata,
        specId: env.spec?.id ?? null,
      });
    }
    answer(OK, descriptions);
  } catch (error) {
    answer(FAILED, { error: errorOf(error, current) });
    return;
  }

  let shared: SharedBatch | null = null;
  const argument = () => receiveMessageOnPort(port)?.message;
  const write = (h: HostedEnv, obs: unknown) => {
    if (typeof obs === "number") {
      h.observation[0] = obs;
      return;
    }
    const values = obs as ArrayLike<number>;
    if (values.length !== h.observation.length)
      throw new RangeError(
        `env ${h.index} returned ${values.length} observation values, expected ${h.observation.length}`,
      );
    h.observation.set(values);
  };
  // A view of a bigger buffer would be cloned whole; slice() sends just the observation (and keeps it safe
  // from an env that reuses its buffer, as SyncVectorEnv's copy does).
  const detached = (obs: unknown) => (ArrayBuffer.isView(obs) ? (obs as TypedArray).slice() : obs);
  const nonEmpty = (info: Info) => {
    for (const _ in info) return info;
    return undefined;
  };
  const step = (h: HostedEnv, batch: SharedBatch): Info | undefined => {
    const { env, index, actionSize } = h;
    let action: unknown;
    if (h.discreteActions) action = batch.actions[index];
    else {
      // The same conversion as SyncVectorEnv: the env's own copy, in the action space's dtype.
      const typed = zerosOf(env.actionSpace.dtype, actionSize);
      for (let j = 0; j < actionSize; j++) typed[j] = batch.actions[index * actionSize + j];
      action = typed;
    }
    const [obs, reward, terminated, truncated, info] = env.step(action);
    batch.rewards[index] = reward;
    batch.terminations[index] = terminated ? 1 : 0;
    batch.truncations[index] = truncated ? 1 : 0;
    if (terminated || truncated) {
      const finalObservation = detached(obs);
      const [resetObs, resetInfo] = env.reset();
      write(h, resetObs);
      return { ...resetInfo, final_observation: finalObservation, final_info: info };
    }
    write(h, obs);
    return nonEmpty(info);
  };
  // Per-env infos of one command, or undefined when all are empty (the common step: nothing to clone).
  const infosOf = (infos: (Info | undefined)[]) => (infos.some((info) => info !== undefined) ? infos : undefined);

  for (;;) {
    Atomics.wait(control, REQUEST, sequence);
    sequence = Atomics.load(control, REQUEST);
    const command = control[COMMAND];
    let message: unknown;
    current = first;
    try {
      if (command === CMD_ATTACH) {
        shared = argument() as SharedBatch;
        for (const h of hosted) {
          const size = h.env.observationSpace.size;
          h.observation = shared.observations.subarray(h.index * size, (h.index + 1) * size);
          h.actionSize = h.env.actionSpace.size;
          h.discreteActions = h.env.actionSpace instanceof Discrete;
        }
      } else if (command === CMD_RESET) {
        const perEnv = argument() as ResetArgs[];
        const infos: (Info | undefined)[] = [];
        for (let j = 0; j < hosted.length; j++) {
          current = hosted[j].index;
          const [obs, info] = hosted[j].env.reset(perEnv[j]);
          write(hosted[j], obs);
          infos.push(nonEmpty(info));
        }
        message = infosOf(infos);
      } else if (command === CMD_STEP) {
        const infos: (Info | undefined)[] = [];
        for (const h of hosted) {
          current = h.index;
          infos.push(step(h, shared as SharedBatch));
        }
        message = infosOf(infos);
      } else if (command === CMD_CALL) {
        const { name, args } = argument() as { name: string; args: unknown[] };
        const results: unknown[] = [];
        for (const { env, index } of hosted) {
          current = index;
          const member = (env as unknown as Record<string, unknown>)[name];
          results.push(
            typeof member === "function" ? (member as (...a: unknown[]) => unknown).apply(env, args) : member,
          );
        }
        message = results;
      } else if (command === CMD_CLOSE) {
        for (const { env, index } of hosted) {
          current = index;
          env.close();
        }
      } else {
        throw new Error(`unknown command ${command}`);
      }
    } catch (error) {
      answer(FAILED, { error: errorOf(error, current) });
      return;
    }
    if (answer(OK, message) === FAILED || command === CMD_CLOSE) return;
  }
}
