// Records each variant's fixed-seed short run: every scalar it logs (episodic returns and lengths, losses, KL,
// clip fraction, explained variance, learning rate) except the wall-clock SPS, as tests/fixtures/behaviour/<case>.json.
// tests/behaviour.test.ts runs the same cases and demands the same numbers bit for bit, so a refactor of a variant
// that changes what it computes fails there.
//
//   npx tsx benchmark/record_behaviour.ts                 # every case (Atari cases need ALE_ROMS_DIR or ../shared/roms)
//   npx tsx benchmark/record_behaviour.ts ppo_cartpole    # one case
//
// The fixtures hold what the scripts computed before they were restructured (issue 32): they were recorded in a
// checkout of commit 5aa9bca with this file and tests/behaviour_cases.ts copied in.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { BEHAVIOUR_CASES, ROM_DIR, runCase } from "../tests/behaviour_cases.ts";

const FIXTURES = fileURLToPath(new URL("../tests/fixtures/behaviour/", import.meta.url));
const only = process.argv.slice(2);
for (const c of BEHAVIOUR_CASES) {
  if (only.length > 0 && !only.includes(c.name)) continue;
  const t0 = performance.now();
  const scalars = runCase(c);
  const command = c.argv.join(" ").replaceAll(ROM_DIR, "$ALE_ROMS_DIR");
  writeFileSync(`${FIXTURES}${c.name}.json`, `${JSON.stringify({ command, scalars }, null, 0)}\n`);
  console.log(`${c.name}: ${scalars.length} scalars in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
