// The functions a V8 CPU profile spends most of its self time in: `npx tsx benchmark/cpuprofile_top.ts FILE
// [--top 25]`, FILE being what `node --cpu-prof` wrote (e.g. `node --cpu-prof --cpu-prof-dir /tmp/prof --import
// tsx benchmark/emu_cpu.ts ...`). Self time is the samples whose top frame is the function, summed over all of its
// call sites; "(garbage collector)" and "(program)" are V8's own work.

import { readFileSync } from "node:fs";
import { basename } from "node:path";

import { int, parseArgs, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";

/** The parts of the .cpuprofile format (Chrome DevTools Protocol's Profiler.Profile) this script reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples: number[];
  timeDeltas: number[];
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const file = argv.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
  if (file === undefined) usageError("usage: cpuprofile_top.ts FILE.cpuprofile [--top N]");
  const cli = parseArgs(
    { top: int(25, "rows to print", { ge: 1 }) },
    "Top self-time functions of a .cpuprofile.",
    "benchmark/cpuprofile_top.ts",
    argv.filter((a) => a !== file),
  );
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Each sample's time is the delta to the next sample (the last one has none), as DevTools attributes it.
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(profile.samples[i]);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url ? `${basename(url)}:${lineNumber + 1}` : ""}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, cli.top);
  console.log(`total ${(total / 1e3).toFixed(0)} ms`);
  for (const [key, us] of rows)
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${key}`);
}

await runMain(main);
