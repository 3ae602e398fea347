// Emulator throughput for the Atari envs, the bottleneck of ppo_atari.ts: frames/s of one env in this thread, then
// of `n` envs in AsyncVectorEnv worker threads for each worker count, all taking uniformly random actions.
//
//   npx tsx benchmark/atari_throughput.ts --rom-dir ../shared/roms [--env-id BreakoutNoFrameskip-v4]
//        [--workers 1,2] [--num-envs 8] [--seconds 10] [--ale-python /tmp/ale-venv/bin/python]
//
// First the emulators alone, side by side on the same game and the same uniformly random minimal-set actions:
// ALEInterface.act + getScreenRGB every frame, ours and (with --ale-python, a Python with ale-py 0.12 in a
// scratch venv) real ALE's, with our frames/s as a ratio of ALE's. Then, per worker count, two env settings: the raw NoFrameskip env (one emulator frame per step, RGB frame out each step) and
// CleanRL's full wrapper stack from ppo_atari.ts (4 frames per agent step; reported in emulator frames/s too).
// With --num-envs, that many envs are spread over each worker count (AsyncVectorEnv's numWorkers) instead of one
// env per worker, as ppo_atari.ts runs its 8 envs on one worker per core.
//
// With --games (a comma-separated list of ROM ids, or "all" for the game table) only the emulators are measured,
// game by game, side by side: ours and ALE's (--ale-python required) alternate `--repeats` times per game, each
// keeping its best frames per CPU second (a shared machine only ever slows a run down); one table row per game
// with the ratio, then the geometric mean and the lowest ratio. Each measurement runs in a fresh process (ours in a
// Node child, ALE's in a Python child), as one game does in a training run's env worker, and is timed after
// `--warmup` seconds of play (V8 compiles our emulator meanwhile).

import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

import { findGame, GAMES, type GameSpec } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { findRom } from "../envs/ale/roms.ts";
import * as gym from "../envs/gymnasium/index.ts";
import { float, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { ratePerSecond, workerCounts } from "./lib.ts";

/** ale-py's ALEInterface at frame skip 1, no sticky actions: act + getScreenRGB per frame, timed like ours. */
const ALE_PY_SCRIPT = `
import sys, json, time, ale_py, numpy as np
rom, seconds, warmup, actions = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), json.loads(sys.stdin.read())
ale = ale_py.ALEInterface()
ale.setLoggerMode(ale_py.LoggerMode.Error)
ale.setInt("random_seed", 0)
ale.setFloat("repeat_action_probability", 0.0)
ale.loadROM(rom)
ale.reset_game()
minimal = ale.getMinimalActionSet()
screen = np.empty((210, 160, 3), np.uint8)
def step(i):
    ale.act(minimal[actions[i % len(actions)]])
    ale.getScreenRGB(screen)
    if ale.game_over(): ale.reset_game()
i, start = 0, time.perf_counter()
while time.perf_counter() - start < warmup: step(i); i += 1
frames, start, cpu = 0, time.perf_counter(), time.process_time()
while time.perf_counter() - start < seconds:
    step(frames); frames += 1
print(frames / (time.perf_counter() - start), frames / (time.process_time() - cpu))
`;

/** Frames per wall-clock second and per CPU second of this process (the latter is steadier on a shared machine). */
interface Rate {
  wall: number;
  cpu: number;
}

/** Our ALEInterface, the same loop as ALE_PY_SCRIPT. */
function aleInterfaceFps(game: GameSpec, rom: Uint8Array, actions: number[], seconds: number, warmup: number): Rate {
  const ale = new ALEInterface(game, rom, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0 }, () => 0.5);
  ale.resetGame(0, true);
  const minimal = ale.getMinimalActionSet();
  const screen = new Uint8Array(210 * 160 * 3);
  const step = (i: number) => {
    ale.act(minimal[actions[i % actions.length]]);
    ale.getScreenRGB(screen);
    if (ale.gameOver()) ale.resetGame(0);
  };
  for (let i = 0, start = performance.now(); performance.now() - start < warmup * 1000; i++) step(i);
  let frames = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - start < seconds * 1000) step(frames++);
  const used = process.cpuUsage(cpu);
  return { wall: frames / ((performance.now() - start) / 1000), cpu: frames / ((used.user + used.system) / 1e6) };
}

/** The raw env, for the workers (they import this module and call this export). */
export function makeRawEnv(envId: string) {
  return () => gym.make(envId);
}

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  envId: str("BreakoutNoFrameskip-v4", "the Atari env to step"),
  workers: str("1,2", "comma-separated worker counts to measure"),
  numEnvs: int(0, "envs spread over each worker count (0: one env per worker)", { ge: 0 }),
  seconds: int(10, "seconds per measurement", { ge: 1 }),
  alePython: str(null, "a Python with ale-py 0.12 (e.g. /tmp/ale-venv/bin/python) to measure real ALE beside ours"),
  games: str(null, "measure only the emulators, these games side by side (ROM ids, comma-separated, or all)"),
  repeats: int(2, "with --games: alternations of ours and ALE's per game", { ge: 1 }),
  warmup: float(1, "seconds each emulator runs before it is timed (V8 compiles ours meanwhile)", { ge: 0 }),
  oursGame: str(
    null,
    "measure only our core on this ROM id and print `wall cpu` frames/s (what --games runs per game)",
  ),
};

/** The pre-drawn actions both emulators play: indices into `game`'s minimal set. */
function drawActions(game: GameSpec): number[] {
  const actionRng = new RandomGenerator(1);
  return Array.from({ length: 4096 }, () => actionRng.integers(0, game.minimalActions.length));
}

/** ALE_PY_SCRIPT's rate for one game. */
function alePyFps(python: string, romPath: string, seconds: number, warmup: number, actions: number[]): Rate {
  const out = execFileSync(python, ["-c", ALE_PY_SCRIPT, romPath, String(seconds), String(warmup)], {
    encoding: "utf8",
    input: JSON.stringify(actions),
    stdio: ["pipe", "pipe", "ignore"],
  });
  return lastRate(out);
}

/** The `wall cpu` rates a measuring child printed last. */
function lastRate(out: string): Rate {
  const [wall, cpu] = out.trim().split("\n").pop()!.split(" ").map(Number);
  return { wall, cpu };
}

/**
 * aleInterfaceFps for one game in a fresh Node process (this script with --ours-game), as ale-py's rate is taken in
 * a fresh Python: V8 then compiles the emulator for that game alone, as in a training run's env workers, rather
 * than for every game measured before it in one process.
 */
function oursFps(game: GameSpec, romDir: string | null, seconds: number, warmup: number): Rate {
  const args = [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--ours-game",
    game.rom,
    "--seconds",
    String(seconds),
    "--warmup",
    String(warmup),
  ];
  if (romDir !== null) args.push("--rom-dir", romDir);
  return lastRate(execFileSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
}

/** The --games table: frames per CPU second of ALE's and ours per game, alternated, best of `repeats` each. */
function emulatorTable(
  games: GameSpec[],
  python: string,
  romDir: string | null,
  seconds: number,
  warmup: number,
  repeats: number,
): void {
  console.log("| game | ale-py frames/CPU-s | ours frames/CPU-s | ratio |");
  console.log("|---|---:|---:|---:|");
  const ratios: number[] = [];
  for (const game of games) {
    const rom = findRom(game.rom, game.md5, { romDir });
    const actions = drawActions(game);
    let ours = 0;
    let ale = 0;
    for (let r = 0; r < repeats; r++) {
      ours = Math.max(ours, oursFps(game, romDir, seconds, warmup).cpu);
      ale = Math.max(ale, alePyFps(python, rom.path, seconds, warmup, actions).cpu);
    }
    ratios.push(ours / ale);
    console.log(`| ${game.name} | ${ale.toFixed(0)} | ${ours.toFixed(0)} | ${(ours / ale).toFixed(2)} |`);
  }
  const mean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
  const lowest = ratios.indexOf(Math.min(...ratios));
  console.log(
    `geometric mean ratio ${mean.toFixed(2)} over ${ratios.length} games; lowest ${ratios[lowest].toFixed(2)} (${games[lowest].name})`,
  );
}

async function main(): Promise<void> {
  const cli = parseArgs(
    ARGS,
    "Atari emulator throughput, in this thread and in AsyncVectorEnv workers.",
    "benchmark/atari_throughput.ts",
  );
  if (cli.romDir !== null) process.env.ALE_ROMS_DIR = cli.romDir;
  const envId = cli.envId;
  const workers = workerCounts(cli.workers);
  const seconds = cli.seconds;
  const all = [...GAMES.values()];
  const gameOf = (rom: string) => all.find((g) => g.rom === rom) ?? usageError(`no game ${rom}`);
  if (cli.oursGame !== null) {
    const game = gameOf(cli.oursGame);
    const rate = aleInterfaceFps(
      game,
      findRom(game.rom, game.md5, { romDir: cli.romDir }).bytes,
      drawActions(game),
      seconds,
      cli.warmup,
    );
    console.log(`${rate.wall} ${rate.cpu}`);
    return;
  }
  if (cli.games !== null) {
    if (cli.alePython === null) usageError("--games needs --ale-python");
    const games = cli.games === "all" ? all : cli.games.split(",").map(gameOf);
    emulatorTable(games, cli.alePython, cli.romDir, seconds, cli.warmup, cli.repeats);
    return;
  }
  const rng = new RandomGenerator(0);
  const ppoAtari = new URL("../ppo_atari.ts", import.meta.url).href;

  // The emulators alone, side by side: the same game, the same pre-drawn actions (indices into the minimal set).
  const game = findGame(
    envId
      .replace(/NoFrameskip-v4$/, "")
      .replace(/^ALE\//, "")
      .replace(/-v5$/, ""),
  );
  if (game) {
    const rom = findRom(game.rom, game.md5, { romDir: cli.romDir });
    const actions = drawActions(game);
    // Columns: frames per wall second, frames per CPU second, and the CPU-second rate as a ratio of ALE's.
    let ale: Rate | null = null;
    if (cli.alePython !== null) {
      ale = alePyFps(cli.alePython, rom.path, seconds, cli.warmup, actions);
      const { wall, cpu } = ale;
      console.log(
        `| ${game.name} | ALEInterface act + getScreenRGB, ale-py 0.12 (C++ Stella) | ${wall.toFixed(0)} | ${cpu.toFixed(0)} | 1.00 |`,
      );
    }
    const rate = aleInterfaceFps(game, rom.bytes, actions, seconds, cli.warmup);
    const ratio = ale ? (rate.cpu / ale.cpu).toFixed(2) : "";
    console.log(
      `| ${game.name} | ALEInterface act + getScreenRGB, ours | ${rate.wall.toFixed(0)} | ${rate.cpu.toFixed(0)} | ${ratio} |`,
    );
  }

  await envThroughput(envId, workers, cli.numEnvs, seconds, rng, ppoAtari);
}

async function envThroughput(
  envId: string,
  workers: number[],
  numEnvs: number,
  seconds: number,
  rng: RandomGenerator,
  ppoAtari: string,
): Promise<void> {
  const single = gym.make(envId);
  const numActions = (single.actionSpace as gym.spaces.Discrete).n;
  single.reset({ seed: 1 });
  const inThread = ratePerSecond(() => {
    const [, , terminated, truncated] = single.step(rng.integers(0, numActions));
    if (terminated || truncated) single.reset();
    return 1;
  }, seconds);
  console.log(`| ${envId} | 1 env, main thread, raw | ${inThread.toFixed(0)} |`);

  for (const numWorkers of workers) {
    const n = numEnvs > 0 ? numEnvs : numWorkers;
    for (const [label, module, exportName, framesPerStep] of [
      ["raw", import.meta.url, "makeRawEnv", 1],
      ["CleanRL wrapper stack", ppoAtari, "makeEnv", 4],
    ] as const) {
      const args = exportName === "makeEnv" ? [envId, 0, false, "bench"] : [envId];
      const specs = Array.from({ length: n }, (_, i) => ({
        module,
        exportName,
        args: exportName === "makeEnv" ? [envId, i, false, "bench"] : args,
      }));
      const envs = new gym.vector.AsyncVectorEnv(specs, { numWorkers });
      envs.reset({ seed: 1 });
      const actions = new Int32Array(n);
      const fps = ratePerSecond(() => {
        for (let i = 0; i < n; i++) actions[i] = rng.integers(0, numActions);
        envs.step(actions);
        return n * framesPerStep;
      }, seconds);
      envs.close();
      const hosted = n === numWorkers ? "" : ` (${n} envs)`;
      console.log(
        `| ${envId} | ${numWorkers} worker${numWorkers > 1 ? "s" : ""}${hosted}, ${label} | ${fps.toFixed(0)} |`,
      );
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
