import assert from "node:assert/strict";
import { test } from "node:test";

import { UsageError, bool, float, helpText, int, parseArgv, str } from "../envs/run/cli.ts";

const SPEC = {
  seed: int(1, "seed of the experiment"),
  envId: str("CartPole-v1", "the id of the environment"),
  learningRate: float(2.5e-4, "the learning rate of the optimizer"),
  annealLr: bool(true, "Toggle learning rate annealing"),
  targetKl: float(null, "the target KL divergence threshold"),
};

test("flags left out take their defaults", () => {
  assert.deepEqual(parseArgv(SPEC, []), {
    seed: 1,
    envId: "CartPole-v1",
    learningRate: 2.5e-4,
    annealLr: true,
    targetKl: null,
  });
});

test("camelCase keys are set by kebab-case flags, with a space or an equals sign", () => {
  const args = parseArgv(SPEC, ["--env-id", "Acrobot-v1", "--learning-rate=3e-4", "--seed", "7"]);
  assert.deepEqual(args, { seed: 7, envId: "Acrobot-v1", learningRate: 3e-4, annealLr: true, targetKl: null });
});

test("booleans accept --flag, --no-flag and --flag=false", () => {
  assert.equal((parseArgv(SPEC, ["--no-anneal-lr"]) as { annealLr: boolean }).annealLr, false);
  assert.equal((parseArgv(SPEC, ["--anneal-lr=false"]) as { annealLr: boolean }).annealLr, false);
  assert.equal((parseArgv(SPEC, ["--anneal-lr", "false"]) as { annealLr: boolean }).annealLr, false);
  assert.equal((parseArgv(SPEC, ["--anneal-lr"]) as { annealLr: boolean }).annealLr, true);
});

test("a nullable flag accepts a number or None", () => {
  assert.equal((parseArgv(SPEC, ["--target-kl", "0.015"]) as { targetKl: number }).targetKl, 0.015);
  assert.equal((parseArgv(SPEC, ["--target-kl", "None"]) as { targetKl: null }).targetKl, null);
});

test("an unknown flag is an error that suggests the nearest known flag", () => {
  assert.throws(
    () => parseArgv(SPEC, ["--env_id", "x"]),
    (e: Error) => e instanceof UsageError && /unknown flag --env_id \(did you mean --env-id\?\)/.test(e.message),
  );
});

test("an integer flag rejects a fraction and a word", () => {
  assert.throws(() => parseArgv(SPEC, ["--seed", "1.5"]), /--seed expects an integer, got "1.5"/);
  assert.throws(() => parseArgv(SPEC, ["--seed", "abc"]), /--seed expects an integer value, got "abc"/);
});

test("a float flag rejects a non-number and a missing value", () => {
  assert.throws(
    () => parseArgv(SPEC, ["--learning-rate", "fast"]),
    /--learning-rate expects a number value, got "fast"/,
  );
  assert.throws(() => parseArgv(SPEC, ["--learning-rate"]), /--learning-rate expects a number value/);
});

test("a stray positional argument and a repeated flag are errors", () => {
  assert.throws(() => parseArgv(SPEC, ["CartPole-v1"]), /unexpected argument "CartPole-v1"/);
  assert.throws(() => parseArgv(SPEC, ["--seed", "1", "--seed", "2"]), /--seed given more than once/);
});

test("--help is reported, and the help text lists every flag with its default and doc", () => {
  assert.equal(parseArgv(SPEC, ["--help"]), "help");
  const text = helpText(SPEC, "desc", "ppo.ts");
  for (const line of [
    "--seed INT",
    "seed of the experiment (default: 1)",
    "--env-id STR",
    "(default: CartPole-v1)",
    "--anneal-lr, --no-anneal-lr",
    "--target-kl FLOAT",
    "(default: None)",
  ]) {
    assert.ok(text.includes(line), `help text lacks "${line}"`);
  }
});

const RANGED = {
  learningRate: float(2.5e-4, "the learning rate of the optimizer", { gt: 0 }),
  gamma: float(0.99, "the discount factor gamma", { ge: 0, le: 1 }),
  numEnvs: int(4, "the number of parallel game environments", { ge: 1 }),
  targetKl: float(null, "the target KL divergence threshold", { gt: 0 }),
};

test("a number outside its flag's declared range is a usage error that states the range", () => {
  assert.throws(
    () => parseArgv(RANGED, ["--learning-rate=-1"]),
    (e: Error) => e instanceof UsageError && e.message === "--learning-rate must be greater than 0, got -1",
  );
  assert.throws(() => parseArgv(RANGED, ["--gamma", "1.5"]), /--gamma must be between 0 and 1, got 1\.5$/);
  assert.throws(() => parseArgv(RANGED, ["--num-envs", "0"]), /--num-envs must be at least 1, got 0$/);
  assert.throws(() => parseArgv(RANGED, ["--target-kl", "0"]), /--target-kl must be greater than 0, got 0$/);
  // The bounds themselves, where inclusive, and None for a nullable flag are fine.
  assert.deepEqual(parseArgv(RANGED, ["--gamma", "1", "--num-envs", "1", "--target-kl", "None"]), {
    learningRate: 2.5e-4,
    gamma: 1,
    numEnvs: 1,
    targetKl: null,
  });
});

test("NaN and infinities are rejected by every number flag, ranged or not", () => {
  for (const value of ["NaN", "nan", "Infinity", "-Infinity"]) {
    assert.throws(() => parseArgv(SPEC, [`--learning-rate=${value}`]), /--learning-rate expects a number value/, value);
    assert.throws(() => parseArgv(RANGED, [`--gamma=${value}`]), /--gamma expects a number value/, value);
  }
});

test("--help states each ranged flag's range, and every parser accepts --debug", () => {
  const text = helpText(RANGED, "desc", "ppo.ts");
  assert.ok(text.includes("the discount factor gamma, between 0 and 1 (default: 0.99)"), text);
  assert.ok(text.includes("the learning rate of the optimizer, greater than 0 (default: 0.00025)"), text);
  assert.ok(text.includes("--debug"));
  assert.deepEqual(parseArgv(RANGED, ["--debug"]), { learningRate: 2.5e-4, gamma: 0.99, numEnvs: 4, targetKl: null });
});
