// Where a Procgen step's time goes: V8's sampling profiler over warm steps of our ProcgenEnv, self time per function.
//
//   npx tsx benchmark/procgen_profile.ts --game climber [--num-envs 1] [--steps 10000] [--out climber.cpuprofile]
//
// Easy mode, rand_seed 1, the seeded-random actions of benchmark/procgen_fidelity.ts, images decoded first, 2000
// untimed env steps before the profiler starts (V8 compiles the hot paths over the first few thousand). Prints the
// functions with the largest share of the samples; `--out` keeps the profile for Chrome's DevTools.

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { resolve } from "node:path";

import { int, parseArgs, str } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { imageLoader, loadImage, neededFiles } from "../envs/procgen/assets.ts";
import { ProcgenEnv } from "../envs/procgen/env.ts";
import { actionSource, RAND_SEED } from "./procgen_fidelity.ts";

const ARGS = {
  game: str("climber", "procgen game"),
  numEnvs: int(1, "envs in the ProcgenEnv", { ge: 1 }),
  steps: int(10000, "profiled vector steps", { ge: 1 }),
  top: int(15, "functions listed", { ge: 1 }),
  out: str(null, "write the .cpuprofile here"),
  procgenAssetsDir: str(null, "procgen's images (else PROCGEN_ASSETS_DIR / ../shared/procgen_assets)"),
};

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

async function main(): Promise<void> {
  const cli = parseArgs(ARGS, "Procgen: self time per function over warm env steps.", "benchmark/procgen_profile.ts");
  const assetsDir =
    cli.procgenAssetsDir ||
    process.env.PROCGEN_ASSETS_DIR ||
    resolve(import.meta.dirname, "../../shared/procgen_assets");
  for (const e of neededFiles([cli.game])) loadImage(assetsDir, e.path);
  const env = new ProcgenEnv({
    envName: cli.game,
    distributionMode: "easy",
    randSeed: RAND_SEED,
    numEnvs: cli.numEnvs,
    images: imageLoader(assetsDir),
  });
  const next = actionSource(RAND_SEED);
  const actions = new Int32Array(cli.numEnvs);
  for (let t = 0; t < Math.ceil(2000 / cli.numEnvs); t++) {
    next(actions);
    env.step(actions);
  }
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<Record<string, unknown>>((ok, fail) =>
      session.post(method, params, (err, r) => (err ? fail(err) : ok(r as Record<string, unknown>))),
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
  await post("Profiler.start");
  for (let t = 0; t < cli.steps; t++) {
    next(actions);
    env.step(actions);
  }
  const { profile } = (await post("Profiler.stop")) as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  session.disconnect();
  if (cli.out) writeFileSync(cli.out, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    // The profiler's own start and the idle time between samples are not the env's.
    if (["(idle)", "(program)", "dispatch"].includes(frame.functionName)) return;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop() ?? ""}`.trim();
    self.set(name, (self.get(name) ?? 0) + profile.timeDeltas[i]);
    total += profile.timeDeltas[i];
  });
  console.log(`${cli.game}, ${cli.numEnvs} env(s), ${cli.steps} steps: self time per function`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, cli.top))
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`);
}

await runMain(main);
