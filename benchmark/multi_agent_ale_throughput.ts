// Raw emulator frames/s of our multi-player console (ALEInterface over a Multi-Agent ALE spec) against Farama's
// Multi-Agent ALE on the same game, mode and actions, alternated round by round (ours, reference, ours, reference)
// so that both see the same machine load. Each round plays `--frames` frames from PettingZoo's reset(seed=1): every
// player a uniform action index each frame from mt19937(1) (the same stream in both, so both play the same game),
// reset when over, every frame drawn. The reference is the recorder benchmark/multi_agent_ale_build.sh builds
// (its `bench:1` policy), timed inside its own process after its reset.
//
//   npx tsx benchmark/multi_agent_ale_throughput.ts --rom-dir <roms> --reference <scratch>/multi_agent_ale_record \
//     [--games pong:4,warlords:1,combat:15] [--frames 20000] [--rounds 2]

import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";

import { ALEInterface } from "../envs/ale/interface.ts";
import { MULTI_AGENT_GAMES } from "../envs/ale/multi_agent_games.ts";
import { findRom } from "../envs/ale/roms.ts";
import { float, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { Mt19937 } from "../envs/torch/rng.ts";

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  reference: str(
    null,
    "the Multi-Agent ALE recorder binary (benchmark/multi_agent_ale_build.sh); without it only ours is timed",
  ),
  games: str("pong:4,surround:1,tennis:2,warlords:1,space_invaders:34,combat:15", "comma-separated rom:mode pairs"),
  frames: int(20000, "frames per round", { ge: 1 }),
  rounds: int(2, "rounds per side (alternated)", { ge: 1 }),
  seed: float(1, "random_seed and action-stream seed"),
};

/** Frames/s of our console over `frames` frames (the reference's bench policy, same seed and action stream). */
function ours(rom: string, mode: number, frames: number, seed: number, romDir: string | null): number {
  const spec = MULTI_AGENT_GAMES.get(rom);
  if (!spec) usageError(`no Multi-Agent ALE settings for ${rom}`);
  const bytes = findRom(rom, spec.md5, { romDir }).bytes;
  const ale = new ALEInterface(
    spec,
    bytes,
    { repeatActionProbability: 0, maxNumFramesPerEpisode: 0, mode, randomSeed: seed },
    () => 0,
  );
  ale.resetGame(0, true);
  const minimal = ale.getMinimalActionSet().sort((a, b) => a - b);
  const players = ale.numPlayersActive();
  const rng = new Mt19937(seed);
  const actions = new Array<number>(players);
  const start = performance.now();
  for (let t = 0; t < frames; t++) {
    if (ale.gameOver()) ale.resetGame(0, false);
    for (let k = 0; k < players; k++) actions[k] = minimal[rng.next() % minimal.length];
    ale.actPlayers(actions);
  }
  return frames / ((performance.now() - start) / 1000);
}

/** Frames/s of Multi-Agent ALE, as its own process reports them. */
function reference(binary: string, romPath: string, mode: number, frames: number, seed: number): number {
  const out = JSON.parse(
    execFileSync(binary, [romPath, String(mode), String(frames), `bench:${seed}`, String(seed)], { encoding: "utf8" }),
  );
  return out.frames / out.seconds;
}

async function main(): Promise<void> {
  const args = parseArgs(
    ARGS,
    "Raw frames/s of our multi-player console vs Multi-Agent ALE, alternated.",
    "benchmark/multi_agent_ale_throughput.ts",
  );
  const romDir = args.romDir ?? process.env.ALE_ROMS_DIR ?? null;
  console.log(`| game | mode | players | ours (frames/s) | Multi-Agent ALE (frames/s) | ours / reference |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const pair of args.games.split(",")) {
    const [rom, modeText] = pair.split(":");
    const mode = Number(modeText);
    const spec = MULTI_AGENT_GAMES.get(rom);
    if (!spec || !Number.isInteger(mode)) usageError(`--games: bad entry "${pair}" (rom:mode)`);
    const romPath = findRom(rom, spec.md5, { romDir }).path;
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      mine.push(ours(rom, mode, args.frames, args.seed, romDir));
      if (args.reference) theirs.push(reference(args.reference, romPath, mode, args.frames, args.seed));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const a = median(mine);
    const b = theirs.length ? median(theirs) : NaN;
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
    console.log(
      `| ${rom} | ${mode} | ${spec.playersForMode(mode)} | ${fmt(mine)} | ${theirs.length ? fmt(theirs) : "-"} | ${Number.isNaN(b) ? "-" : (a / b).toFixed(2)} |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) runMain(main);
