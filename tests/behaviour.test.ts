// Each variant's fixed-seed short run logs exactly the numbers recorded in tests/fixtures/behaviour (bit for bit):
// every episodic return and length, every loss, KL, clip fraction, explained variance and learning rate. A change
// to a variant that is meant to be a pure restructuring must leave them all as they are; one that is meant to
// change what the script computes re-records them with `npx tsx benchmark/record_behaviour.ts <case>`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { BEHAVIOUR_CASES, type LoggedScalar, missing, runCase } from "./behaviour_cases.ts";

for (const c of BEHAVIOUR_CASES) {
  test(`${c.argv.join(" ")} logs the recorded numbers bit for bit`, { skip: missing(c) }, () => {
    const fixture = JSON.parse(readFileSync(new URL(`fixtures/behaviour/${c.name}.json`, import.meta.url), "utf8"));
    const expected: LoggedScalar[] = fixture.scalars;
    const actual = runCase(c);
    const differing = actual.findIndex(
      (s, i) => !Object.is(s.value, expected[i]?.value) || s.tag !== expected[i]?.tag || s.step !== expected[i]?.step,
    );
    assert.ok(
      differing === -1 && actual.length === expected.length,
      differing === -1
        ? `${actual.length} scalars logged, ${expected.length} recorded`
        : `first difference at #${differing}: ${JSON.stringify(actual[differing])} logged, ${JSON.stringify(expected[differing])} recorded`,
    );
  });
}
