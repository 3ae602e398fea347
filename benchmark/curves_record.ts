// Turns one finished training run into the small CSV that benchmark/curves.ts draws:
//   npx tsx benchmark/curves_record.ts --run-dir DIR --out benchmark/results/<variant>/<env>/<side>_seed<N>.csv
//     [--command "the command that made the run"] [--commit SHA] [--machine "words"] [--load "words"]
// DIR is a TensorBoard run directory: ours (envs/run/logging.ts) or CleanRL's (torch's SummaryWriter); both carry
// CleanRL's scalars `charts/episodic_return` and `charts/SPS`. One row per logged episode: its global step, the
// wall-clock seconds since the run's first event, its return, and the latest SPS logged at or before that step
// (empty before the first). Lines starting with `#` above the header say where the run came from.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

import { parseArgs, str, usageError } from "../envs/run/cli.ts";
import { readRunDir } from "../envs/run/logging.ts";
import { handleExits } from "../envs/run/main.ts";

handleExits();

const cli = parseArgs(
  {
    runDir: str(null, "TensorBoard run directory of the finished run"),
    out: str(null, "CSV to write"),
    command: str("", "the command that made the run (kept in the CSV's header comment)"),
    commit: str("", "commit of the code that ran (kept in the CSV's header comment)"),
    machine: str("", "the machine it ran on (kept in the CSV's header comment)"),
    load: str("", "the machine's load while it ran, e.g. its load averages at start and end (header comment)"),
  },
  "Writes a run's episodic returns and SPS, read from its TensorBoard event files, as a CSV.",
  "benchmark/curves_record.ts",
  process.argv.slice(2),
);
if (cli.runDir === null || cli.out === null) usageError("--run-dir and --out are required");

const entries = readRunDir(cli.runDir);
if (entries.length === 0) throw new Error(`${cli.runDir} has no TensorBoard events`);
const start = Math.min(...entries.map((e) => e.wallTime));
const episodes = entries.filter((e) => e.tag === "charts/episodic_return");
if (episodes.length === 0) throw new Error(`${cli.runDir} logged no charts/episodic_return`);
const spsEvents = entries.filter((e) => e.tag === "charts/SPS").sort((a, b) => a.step - b.step);

const lines: string[] = [];
for (const [key, value] of [
  ["command", cli.command],
  ["commit", cli.commit],
  ["machine", cli.machine],
  ["load", cli.load],
  ["recorded", new Date(Math.max(...entries.map((e) => e.wallTime)) * 1000).toISOString()],
]) {
  if (value) lines.push(`# ${key}: ${value.replace(/\s+/g, " ").trim()}`);
}
lines.push("global_step,wall_seconds,episodic_return,sps");
let spsIndex = -1;
for (const episode of [...episodes].sort((a, b) => a.step - b.step)) {
  while (spsIndex + 1 < spsEvents.length && spsEvents[spsIndex + 1].step <= episode.step) spsIndex++;
  const sps = spsIndex >= 0 ? String(Math.round(spsEvents[spsIndex].value)) : "";
  lines.push(`${episode.step},${(episode.wallTime - start).toFixed(2)},${episode.value},${sps}`);
}
mkdirSync(dirname(cli.out), { recursive: true });
writeFileSync(cli.out, `${lines.join("\n")}\n`);
console.log(`${cli.out}: ${episodes.length} episodes`);
