// How closely the seven variants follow CleanRL's files: code lines (no blank lines, comments or docstrings) ours
// against CleanRL's, lines over 120 characters, and the changed lines of `diff` between variant pairs beside the
// same pairs of CleanRL's files.
//
//   npx tsx benchmark/tutorial_tables.ts --cleanrl ~/src/cleanrl     # a git checkout of vwxyzjn/cleanrl
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import minimist from "minimist";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VARIANTS = [
  "ppo",
  "ppo_atari",
  "ppo_continuous_action",
  "ppo_atari_lstm",
  "ppo_procgen",
  "ppo_atari_multigpu",
  "ppo_pettingzoo_ma_atari",
];
const PAIRS = [
  ["ppo", "ppo_atari"],
  ["ppo", "ppo_continuous_action"],
  ["ppo_atari", "ppo_atari_lstm"],
  ["ppo_atari", "ppo_procgen"],
  ["ppo_atari", "ppo_atari_multigpu"],
  ["ppo_atari", "ppo_pettingzoo_ma_atari"],
];

/** TypeScript lines that are neither blank nor comment (`//` lines and `/* ... *\/` blocks). */
export function tsCodeLines(source: string): number {
  let inBlock = false;
  let count = 0;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      inBlock = !line.includes("*/");
      continue;
    }
    count++;
  }
  return count;
}

/** Python lines that are neither blank, `#` comments nor docstrings (string literals standing as statements). */
export function pyCodeLines(source: string): number {
  let quote: string | null = null;
  let count = 0;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (quote !== null) {
      if (line.includes(quote)) quote = null;
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const opener = line.startsWith('"""') ? '"""' : line.startsWith("'''") ? "'''" : null;
    if (opener !== null) {
      if (!line.slice(3).includes(opener)) quote = opener;
      continue;
    }
    count++;
  }
  return count;
}

const changedLines = (a: string, b: string) =>
  (spawnSync("diff", [a, b], { encoding: "utf8" }).stdout.match(/^[<>]/gm) ?? []).length;

const args = minimist(process.argv.slice(2), { string: ["cleanrl"] });
if (!args.cleanrl) {
  console.error("error: --cleanrl DIR (a git checkout of vwxyzjn/cleanrl) is required");
  process.exit(2);
}
const ours = (v: string) => join(ROOT, `${v}.ts`);
const theirs = (v: string) => join(args.cleanrl, "cleanrl", `${v}.py`);
const head = execFileSync("git", ["-C", args.cleanrl, "rev-parse", "--short=8", "HEAD"], { encoding: "utf8" }).trim();

console.log(`CleanRL at ${head}\n`);
console.log("| file | code lines ours / CleanRL | ratio | lines over 120 characters |\n|---|---|---|---|");
for (const v of VARIANTS) {
  const source = readFileSync(ours(v), "utf8");
  const [a, b] = [tsCodeLines(source), pyCodeLines(readFileSync(theirs(v), "utf8"))];
  const long = source.split("\n").filter((l) => l.length > 120).length;
  console.log(`| ${v}.ts | ${a} / ${b} | ${(a / b).toFixed(2)} | ${long} |`);
}
console.log("\n| pair | changed diff lines ours | CleanRL's | ratio |\n|---|---|---|---|");
for (const [a, b] of PAIRS) {
  const [x, y] = [changedLines(ours(a), ours(b)), changedLines(theirs(a), theirs(b))];
  console.log(`| ${a} → ${b} | ${x} | ${y} | ${(x / y).toFixed(2)} |`);
}
