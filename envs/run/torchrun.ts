// torchrun for TypeScript scripts: starts one process per rank with torch.distributed's environment variables.
//
//   npx tsx envs/run/torchrun.ts --standalone --nnodes=1 --nproc-per-node=2 ppo_atari_multigpu.ts --env-id BreakoutNoFrameskip-v4
//   # several machines: run on each, with its own --node-rank
//   npx tsx envs/run/torchrun.ts --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 10.0.0.1 --master-port 29500 ppo_atari_multigpu.ts
//
// The interface is torchrun's (torch.distributed.run), the subset CleanRL's commands use: flags before the script
// (dashes or underscores, `--flag value` or `--flag=value`), everything after the script is the script's. Each rank
// gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and MASTER_PORT, which
// `initProcessGroup` (envs/torch/distributed.ts) reads. `--standalone` is torchrun's single-machine mode: rendezvous on
// localhost at a free port. Each line a rank prints comes out prefixed `[rank N]: ` (torchrun's `--tee` with its
// rank prefix), on the same stream it was written to. If any rank fails, the others are stopped and the launcher
// exits non-zero, as torchrun does without restarts; Ctrl-C (SIGINT) and SIGTERM are passed on to every rank once.
// .ts scripts run under tsx's loader, with the same `process.execPath`.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { basename, dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface LaunchConfig {
  nnodes: number;
  nodeRank: number;
  nprocPerNode: number;
  masterAddr: string;
  masterPort: number | null;
  standalone: boolean;
  script: string;
  scriptArgs: string[];
}

const USAGE = `usage: npx tsx envs/run/torchrun.ts [--standalone] [--nnodes N] [--node-rank R] [--nproc-per-node K]
                                [--master-addr HOST] [--master-port PORT] script.ts [script args...]`;

/** Parses torchrun's flags up to the script; throws an Error with a one-line message for a bad command line. */
export function parseLaunchArgs(argv: string[]): LaunchConfig | "help" {
  const cfg: LaunchConfig = {
    nnodes: 1,
    nodeRank: 0,
    nprocPerNode: 1,
    masterAddr: "127.0.0.1",
    masterPort: null,
    standalone: false,
    script: "",
    scriptArgs: [],
  };
  let masterAddrGiven = false;
  let i = 0;
  const positiveInt = (name: string, raw: string, min: number) => {
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${name} expects an integer >= ${min}, got "${raw}"`);
    return v;
  };
  for (; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith("-")) break;
    if (token === "-h" || token === "--help") return "help";
    const [rawName, inlineValue] = token.replace(/^--?/, "").split(/=(.*)/s, 2);
    const name = rawName.replace(/_/g, "-");
    if (name === "standalone") {
      cfg.standalone = true;
      continue;
    }
    const value = inlineValue ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} expects a value`);
    switch (name) {
      case "nnodes":
        cfg.nnodes = positiveInt(name, value, 1);
        break;
      case "node-rank":
        cfg.nodeRank = positiveInt(name, value, 0);
        break;
      case "nproc-per-node":
        cfg.nprocPerNode = positiveInt(name, value, 1);
        break;
      case "master-addr":
        cfg.masterAddr = value;
        masterAddrGiven = true;
        break;
      case "master-port":
        cfg.masterPort = positiveInt(name, value, 1);
        break;
      default:
        throw new Error(`unknown flag --${name} (torchrun's flags come before the script; the script's after it)`);
    }
  }
  if (i >= argv.length) throw new Error("no script given");
  cfg.script = argv[i];
  cfg.scriptArgs = argv.slice(i + 1);
  if (cfg.nodeRank >= cfg.nnodes)
    throw new Error(`--node-rank ${cfg.nodeRank} is out of range for --nnodes ${cfg.nnodes}`);
  if (cfg.standalone && cfg.nnodes !== 1)
    throw new Error(`--standalone runs on one machine: --nnodes must be 1, got ${cfg.nnodes}`);
  if (cfg.nnodes > 1 && (!masterAddrGiven || cfg.masterPort === null))
    throw new Error(
      "with --nnodes > 1, give --master-addr and --master-port (the address of node 0, reachable from every node)",
    );
  return cfg;
}

/**
 * Throws a one-line Error unless `script` is a file: otherwise every rank would fail with Node's own multi-line
 * module-not-found trace. Names the file of that folder the script most likely meant.
 */
export function checkScript(script: string): void {
  let kind: "file" | "folder" | null = null;
  try {
    kind = statSync(script).isFile() ? "file" : "folder";
  } catch {
    // missing: reported below
  }
  if (kind === "file") return;
  if (kind === "folder") throw new Error(`script ${script} is a folder, not a script`);
  const dir = dirname(resolve(script));
  let siblings: string[] = [];
  try {
    siblings = readdirSync(dir).filter((n) => /\.[cm]?[jt]s$/.test(n));
  } catch {
    // the folder is missing too
  }
  const name = basename(script);
  const near = siblings.find((n) => n.startsWith(name.replace(/\.[^.]*$/, ".")) || name.startsWith(n));
  throw new Error(`script ${script} not found${near ? ` (did you mean ${near}?)` : ""}`);
}

/** torchrun's environment for local rank `localRank`. */
export function rankEnv(cfg: LaunchConfig, localRank: number, masterPort: number): Record<string, string> {
  return {
    RANK: String(cfg.nodeRank * cfg.nprocPerNode + localRank),
    LOCAL_RANK: String(localRank),
    WORLD_SIZE: String(cfg.nnodes * cfg.nprocPerNode),
    LOCAL_WORLD_SIZE: String(cfg.nprocPerNode),
    GROUP_RANK: String(cfg.nodeRank),
    MASTER_ADDR: cfg.masterAddr,
    MASTER_PORT: String(masterPort),
  };
}

/** A port nobody listens on right now on `host` (the OS picks it; the tiny race with other programs is acceptable). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

/** Copies a child's stream to ours line by line, each line prefixed; a last line without newline is flushed at end. */
function prefixLines(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, prefix: string): void {
  let pending = "";
  from.setEncoding("utf8");
  from.on("data", (text: string) => {
    const lines = (pending + text).split("\n");
    pending = lines.pop()!;
    if (lines.length > 0) to.write(lines.map((l) => `${prefix}${l}\n`).join(""));
  });
  from.on("end", () => {
    if (pending !== "") to.write(`${prefix}${pending}\n`);
    pending = "";
  });
}

/** Starts every local rank and resolves with the launcher's exit code once all have exited. */
export async function launch(cfg: LaunchConfig): Promise<number> {
  const masterPort = cfg.masterPort ?? (cfg.standalone || cfg.nnodes === 1 ? await freePort(cfg.masterAddr) : 29500);
  const script = resolve(cfg.script);
  const runner = script.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : [];
  const children: ChildProcess[] = [];
  const exits: Promise<void>[] = [];
  let failure: string | null = null;
  let signalled: NodeJS.Signals | null = null;

  const stopOthers = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
    // A rank that ignores SIGTERM for 10 s is killed.
    setTimeout(
      () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill("SIGKILL")),
      10_000,
    ).unref();
  };

  for (let localRank = 0; localRank < cfg.nprocPerNode; localRank++) {
    const env = rankEnv(cfg, localRank, masterPort);
    // Own process group (detached), so a terminal's Ctrl-C reaches each rank once, through us, not twice.
    const child = spawn(process.execPath, [...runner, script, ...cfg.scriptArgs], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.push(child);
    const prefix = `[rank${env.RANK}]: `;
    prefixLines(child.stdout!, process.stdout, prefix);
    prefixLines(child.stderr!, process.stderr, prefix);
    exits.push(
      new Promise<void>((done) => {
        child.on("error", (e) => {
          failure ??= `rank ${env.RANK} could not start: ${e.message}`;
          stopOthers();
          done();
        });
        child.on("close", (code, signal) => {
          if (code !== 0 && failure === null && signalled === null) {
            failure = `rank ${env.RANK} (local rank ${localRank}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}${cfg.nprocPerNode > 1 ? "; stopped the other ranks" : ""}`;
            stopOthers();
          }
          done();
        });
      }),
    );
  }

  const forward = (signal: NodeJS.Signals) => {
    signalled = signal;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  // If the launcher itself goes away, do not leave orphaned ranks behind.
  process.on("exit", () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill("SIGKILL")));

  await Promise.all(exits);
  process.off("SIGINT", forward);
  process.off("SIGTERM", forward);
  if (signalled !== null) return signalled === "SIGINT" ? 130 : 143;
  if (failure !== null) {
    process.stderr.write(`error: ${failure}\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let cfg: LaunchConfig | "help";
  try {
    cfg = parseLaunchArgs(process.argv.slice(2));
    if (cfg !== "help") checkScript(cfg.script);
  } catch (e) {
    // The launcher installs no runMain/handleExits (their signal handlers would fight its own forwarding to the
    // ranks), so a bad command line is printed here: one line, exit 2, like every script.
    process.stderr.write(`error: ${(e as Error).message}\n(run with --help to list the flags)\n`);
    process.exit(2);
  }
  if (cfg === "help") {
    process.stdout.write(
      `${USAGE}\n\nStarts --nproc-per-node copies of the script on this machine, with torchrun's environment variables.\n`,
    );
    process.exit(0);
  }
  process.exitCode = await launch(cfg);
}
