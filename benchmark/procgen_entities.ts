// Entity state of envs/procgen/ against the C++ original's, bit for bit: every entity's type, image, position,
// velocity, half-size, rotation and alpha before each observation is rendered, on the trajectories of
// benchmark/procgen_fidelity.ts (5 envs, seeded-random actions; rand_seed 1 unless --rand-seed). Needs a build
// instrumented to print them:
//
//   PROCGEN_DUMP_ENTITIES=1 benchmark/procgen_reference_build.sh PROCGEN_GIT_DIR GYM3_GIT_DIR SCRATCH
//   npx tsx benchmark/procgen_entities.ts --reference SCRATCH [--games ...] [--modes ...] [--steps 1000] [--rand-seed 1]
//
// Prints one Markdown row per game and mode: steps (of 5 x steps) with identical entity state, per env, and the
// first difference. Observations can agree while entity state does not (a last-bit difference that moves no
// pixel yet); the state is where such a difference shows first.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { int, parseArgs, str } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import type { ProcgenEnv } from "../envs/procgen/env.ts";
import { ENV_NAMES } from "../envs/procgen/games/index.ts";
import { MODE_NUMBERS, RAND_SEED, TRAJ_ENVS, TRAJ_STEPS, modesOf, runOurs } from "./procgen_fidelity.ts";

const FIELDS = ["x", "y", "vx", "vy", "rx", "ry", "rotation", "alpha"] as const;

/** A C99 hex float as printf's %a writes it ("0x1.8p+3", "-0x0p+0"). */
function hexFloat(s: string): number {
  const m = /^(-?)0x([01])(?:\.([0-9a-f]*))?p([+-]\d+)$/.exec(s);
  if (m === null) throw new Error(`not a %a float: ${s}`);
  const frac = m[3] ? Number.parseInt(m[3], 16) / 16 ** m[3].length : 0;
  return (m[1] ? -1 : 1) * (Number(m[2]) + frac) * 2 ** Number(m[4]);
}

/** The instrumented original's frames, by "level_seed cur_time" (the last one printed wins). */
function referenceFrames(
  reference: string,
  game: string,
  mode: string,
  steps: number,
  randSeed: number,
): Map<string, string[][]> {
  const dir = mkdtempSync(join(tmpdir(), "procgen-entities-"));
  try {
    const args = [
      "record",
      game,
      String(MODE_NUMBERS[mode]),
      String(randSeed),
      String(TRAJ_ENVS),
      String(steps),
      join(reference, "src/procgen/data/assets"),
      join(dir, "run.bin"),
    ];
    const r = spawnSync(join(reference, "build", "procgen_reference"), args, {
      encoding: "utf8",
      maxBuffer: 1 << 30,
      env: { ...process.env, PROCGEN_DUMP_ENTITIES: "1" },
    });
    if (r.status !== 0)
      throw new Error(
        `procgen_reference ${args.join(" ")}: ${(r.stderr || "").split("\n").find((l) => l.startsWith("error")) ?? `exit ${r.status}`}`,
      );
    const frames = new Map<string, string[][]>();
    let frame: string[][] | null = null;
    for (const line of r.stderr.split("\n")) {
      const p = line.split(" ");
      if (p[0] === "F") frames.set(`${p[1]} ${p[2]}`, (frame = []));
      else if (p[0] === "E" && frame !== null) frame.push(p.slice(1));
    }
    if (frames.size === 0) throw new Error(`${reference} prints no entities: build it with PROCGEN_DUMP_ENTITIES=1`);
    return frames;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Steps per env before the entity state first differs, and a description of the first difference. */
export function compareEntities(
  reference: string,
  game: string,
  mode: string,
  assetsDir: string,
  steps: number,
  randSeed = RAND_SEED,
): { same: number[]; first: string } {
  const ref = referenceFrames(reference, game, mode, steps, randSeed);
  const same = Array<number>(TRAJ_ENVS).fill(steps);
  const done = Array<boolean>(TRAJ_ENVS).fill(false);
  let first = "";
  const visit = (t: number, _frame: unknown, games: ProcgenEnv["games"]) => {
    games.forEach((g, e) => {
      if (done[e]) return;
      const rows = ref.get(`${g.currentLevelSeed} ${g.curTime}`);
      if (rows === undefined) return;
      const ents = g.entities;
      let diff = rows.length === ents.length ? "" : `${ents.length} entities, the original ${rows.length}`;
      for (let i = 0; diff === "" && i < ents.length; i++) {
        const o = ents[i];
        const r = rows[i];
        if (o.type !== Number(r[0]) || o.imageType !== Number(r[1]))
          diff = `entity ${i}: type/image ${o.type}/${o.imageType}, the original ${r[0]}/${r[1]}`;
        for (let k = 0; diff === "" && k < FIELDS.length; k++) {
          const v = hexFloat(r[2 + k]);
          if (!Object.is(Math.fround(o[FIELDS[k]]), v))
            diff = `entity ${i} (type ${o.type}) ${FIELDS[k]} ${o[FIELDS[k]]}, the original ${v}`;
        }
      }
      if (diff !== "") {
        done[e] = true;
        same[e] = Math.max(0, t - 1);
        if (first === "") first = `env ${e} step ${t}: ${diff}`;
      }
    });
  };
  runOurs(game, mode, TRAJ_ENVS, steps, assetsDir, visit, randSeed);
  return { same, first };
}

const ARGS = {
  reference: str(null, "an instrumented build (procgen_reference_build.sh with PROCGEN_DUMP_ENTITIES=1)"),
  procgenAssetsDir: str(null, "procgen's images (else PROCGEN_ASSETS_DIR / ../shared/procgen_assets)"),
  games: str(null, "comma-separated games (default: all 16)"),
  modes: str(null, "comma-separated modes (default: every mode each game has)"),
  steps: int(TRAJ_STEPS, "trajectory steps compared", { ge: 1 }),
  randSeed: int(RAND_SEED, "procgen's rand_seed (level seeds and actions)", { ge: 0 }),
};

async function main(): Promise<void> {
  const cli = parseArgs(
    ARGS,
    "Procgen: entity state of ours against an instrumented build of the C++ original.",
    "benchmark/procgen_entities.ts",
  );
  if (!cli.reference) throw new Error("--reference is required");
  const assetsDir =
    cli.procgenAssetsDir ||
    process.env.PROCGEN_ASSETS_DIR ||
    resolve(dirname(fileURLToPath(import.meta.url)), "../../shared/procgen_assets");
  const games = cli.games ? cli.games.split(",") : ENV_NAMES;
  console.log(`| game | mode | steps with identical entity state (of ${TRAJ_ENVS}×${cli.steps}) | first difference |`);
  console.log("| --- | --- | --- | --- |");
  for (const game of games) {
    for (const mode of modesOf(game).filter((m) => !cli.modes || cli.modes.split(",").includes(m))) {
      const { same, first } = compareEntities(cli.reference, game, mode, assetsDir, cli.steps, cli.randSeed);
      console.log(
        `| ${game} | ${mode} | ${same.reduce((a, b) => a + b, 0)} (${same.join(", ")}) | ${first || "none"} |`,
      );
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
