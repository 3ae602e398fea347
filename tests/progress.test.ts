// The SPS line's progress part (envs/run/progress.ts), and that all seven variants print it with the same code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { formatDuration, groupDigits, progress } from "../envs/run/progress.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VARIANTS = [
  "ppo.ts",
  "ppo_continuous_action.ts",
  "ppo_atari.ts",
  "ppo_atari_lstm.ts",
  "ppo_procgen.ts",
  "ppo_atari_multigpu.ts",
  "ppo_pettingzoo_ma_atari.ts",
];

test("digits are grouped in threes", () => {
  assert.equal(groupDigits(0), "0");
  assert.equal(groupDigits(999), "999");
  assert.equal(groupDigits(1000), "1,000");
  assert.equal(groupDigits(20480), "20,480");
  assert.equal(groupDigits(10_000_000), "10,000,000");
});

test("durations show their two largest units", () => {
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(59.4), "59s");
  assert.equal(formatDuration(60), "1m00s");
  assert.equal(formatDuration(725), "12m05s");
  assert.equal(formatDuration(3599), "59m59s");
  assert.equal(formatDuration(3600), "1h00m");
  assert.equal(formatDuration(71280), "19h48m");
  assert.equal(formatDuration(86400 * 3 + 4 * 3600 + 59), "3d04h");
  assert.equal(formatDuration(Infinity), "?");
  assert.equal(formatDuration(Number.NaN), "?");
});

test("the progress part: step out of total, percentage, time left at the measured SPS", () => {
  // 9,979,520 steps left at 140 SPS: 71,282 s = 19 h 48 min.
  assert.equal(progress(20480, 10_000_000, 140), "step 20,480/10,000,000 (0.2%)  ETA 19h48m");
  assert.equal(progress(500_000, 500_000, 9000), "step 500,000/500,000 (100.0%)  ETA 0s");
  assert.equal(progress(512, 1024, 0), "step 512/1,024 (50.0%)  ETA ?");
  const line = `SPS: 140  ${progress(20480, 10_000_000, 140)}`;
  assert.equal(/^SPS: (\d+)/.exec(line)?.[1], "140", "CleanRL's log parsers must still read the SPS");
});

test("every variant prints the SPS line with the same code", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the expected line is source text
  const expected = "    console.log(`SPS: ${sps}  ${progress(globalStep, args.numIterations * args.batchSize, sps)}`);";
  for (const file of VARIANTS) {
    const lines = readFileSync(`${ROOT}${file}`, "utf8")
      .split("\n")
      .filter((l) => l.includes("SPS: "));
    assert.deepEqual(lines, [expected], `${file}'s SPS line`);
  }
});
