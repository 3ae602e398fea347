// ppo_continuous_action.ts run in lockstep with CleanRL's ppo_continuous_action.py over whole iterations (rollout,
// GAE, batch flattening, epochs and minibatches, learning-rate annealing, Adam's state across iterations): the
// script's own `main` on Hopper-v4, with the agent's random numbers (initial weights, action noise, minibatch
// permutations) served from tests/fixtures/lockstep/ (recorded by benchmark/lockstep_record.py, whose command is the
// fixture's `command`). Everything else is the variant's own, so the parameters and the logged losses after each
// iteration must equal CleanRL's up to float32 rounding. Backend: cpu.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { SummaryWriter } from "../envs/run/logging.ts";
import { Run } from "../envs/run/run.ts";
import { defaultGenerator } from "../envs/torch/rng.ts";
import { Agent, main } from "../ppo_continuous_action.ts";

interface Recording {
  command: string;
  argv: string[];
  parameter_shapes: Record<string, number[]>;
  noise: string;
  permutations: string[];
  parameters: Record<string, string>[];
  scalars: [string, number, number][];
  steps_columns: string[];
  /** Per minibatch, float32 rows of `steps_columns`: the loss terms, clipfrac, grad norm, the log-std after. */
  steps: string;
}

// LOCKSTEP_RECORDING names another recording (a longer run of the recorder) to print its table; LOCKSTEP_BACKEND
// runs ours on another backend than cpu (wasm, the learning runs' backend).
const recording: Recording = JSON.parse(
  readFileSync(
    process.env.LOCKSTEP_RECORDING ?? new URL("fixtures/lockstep/ppo_continuous_action_hopper.json", import.meta.url),
    "utf8",
  ),
);
const float32s = (b64: string) => {
  const bytes = Buffer.from(b64, "base64");
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice();
};
const int32s = (b64: string) => {
  const bytes = Buffer.from(b64, "base64");
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice();
};

/** torch's tensor in ours' layout: Linear weights are [out, in] there and [in, out] here. */
function toOurs(name: string, values: Float32Array): Float32Array {
  const shape = recording.parameter_shapes[name];
  if (!name.endsWith(".weight")) return values;
  const [out, inp] = shape;
  const transposed = new Float32Array(values.length);
  for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) transposed[i * out + o] = values[o * inp + i];
  return transposed;
}

/**
 * The `integers(0, i + 1)` answers that make ours' Fisher–Yates (from the end, swapping a[i] and a[j]) turn each
 * epoch's starting order into the recorded one; the batch indices carry over from epoch to epoch within an
 * iteration and start as the identity in each, in both scripts.
 */
function shuffleDraws(permutations: Int32Array[], epochsPerIteration: number): number[] {
  const draws: number[] = [];
  let current = new Int32Array(0);
  permutations.forEach((target, k) => {
    if (k % epochsPerIteration === 0) current = Int32Array.from(target, (_, i) => i);
    const a = current.slice();
    const position = new Int32Array(a.length);
    a.forEach((v, i) => {
      position[v] = i;
    });
    for (let i = a.length - 1; i > 0; i--) {
      const j = position[target[i]];
      draws.push(j);
      [a[i], a[j]] = [a[j], a[i]];
      position[a[i]] = i;
      position[a[j]] = j;
    }
    assert.deepEqual(a, target);
    current = a;
  });
  return draws;
}

type Snapshot = Map<string, Float32Array>;
const ours = {
  parameters: [] as Snapshot[],
  scalars: [] as [string, number, number][],
  steps: [] as number[][],
  noiseLeft: -1,
  drawsLeft: -1,
};
let workDir = "";
const home = process.cwd();

before(async () => {
  const noise = float32s(recording.noise);
  const draws = shuffleDraws(recording.permutations.map(int32s), 10);
  let agent: Agent | null = null;
  let [noiseAt, drawAt] = [0, 0];
  const snapshot = (): Snapshot =>
    new Map(agent!.namedParameters().map((p) => [p.name, p.variable.dataSync().slice() as Float32Array]));

  // The first rollout step loads CleanRL's initial parameters into the freshly built agent, and from then on the
  // shared generator answers with the recording (layer init before it draws its own numbers, overwritten here).
  const getActionAndValue = Agent.prototype.getActionAndValue;
  Agent.prototype.getActionAndValue = function (this: Agent, x, action) {
    if (agent === null) {
      agent = this;
      for (const p of agent.namedParameters())
        p.variable.assign(
          tf.tensor(toOurs(p.name, float32s(recording.parameters[0][p.name])), p.variable.shape, "float32"),
        );
      ours.parameters.push(snapshot());
      defaultGenerator.normal = (loc = 0, scale = 1) => {
        assert.ok(loc === 0 && scale === 1 && noiseAt < noise.length, "unexpected normal() draw");
        return noise[noiseAt++];
      };
      defaultGenerator.integers = (low, high) => {
        const j = draws[drawAt++];
        assert.ok(low === 0 && j < high, `integers(${low}, ${high}) cannot give the recorded ${j}`);
        return j;
      };
    }
    return getActionAndValue.call(this, x, action);
  };
  const addScalar = SummaryWriter.prototype.addScalar;
  SummaryWriter.prototype.addScalar = function (this: SummaryWriter, tag, value, step) {
    if (tag === "charts/learning_rate") ours.parameters.push(snapshot());
    if (tag !== "charts/SPS") ours.scalars.push([tag, value, step]);
    return addScalar.call(this, tag, value, step);
  };

  // The NaN guard sees each minibatch's [pg_loss, v_loss, entropy, old_approx_kl, approx_kl, clipfrac, grad_norm]
  // right after its step.
  const guard = Run.prototype.guard;
  Run.prototype.guard = function (this: Run<never>, metrics, iteration) {
    ours.steps.push([...Array.from(metrics), ...agent!.actorLogstd.dataSync()]);
    return guard.call(this, metrics, iteration);
  };

  workDir = mkdtempSync(join(tmpdir(), "lockstep-"));
  process.chdir(workDir);
  try {
    await main([...recording.argv, "--backend", process.env.LOCKSTEP_BACKEND ?? "cpu"]);
  } finally {
    process.chdir(home);
    Agent.prototype.getActionAndValue = getActionAndValue;
    SummaryWriter.prototype.addScalar = addScalar;
    Run.prototype.guard = guard;
  }
  ours.noiseLeft = noise.length - noiseAt;
  ours.drawsLeft = draws.length - drawAt;
});

after(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Per tensor: max |ours − CleanRL's| over the tensor's max |CleanRL's| (1 where that is 0). */
function parameterDifferences(iteration: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, b64] of Object.entries(recording.parameters[iteration])) {
    const theirs = toOurs(name, float32s(b64));
    const mine = ours.parameters[iteration].get(name)!;
    let [diff, scale] = [0, 0];
    for (let i = 0; i < theirs.length; i++) {
      diff = Math.max(diff, Math.abs(mine[i] - theirs[i]));
      scale = Math.max(scale, Math.abs(theirs[i]));
    }
    out[name] = diff / (scale || 1); // the log-std starts at 0
  }
  return out;
}

const theirSteps = () => {
  const flat = float32s(recording.steps);
  const width = recording.steps_columns.length;
  return Array.from({ length: flat.length / width }, (_, k) => Array.from(flat.subarray(k * width, (k + 1) * width)));
};
/**
 * The first minibatch whose clip fraction differs: one sample's probability ratio lies on the clip boundary
 * (|ratio − 1| = clip_coef up to rounding) and falls on the other side in one run, which drops or keeps its
 * gradient; from there the runs part by more than rounding.
 */
const firstClipFlip = () => {
  const theirs = theirSteps();
  const k = theirs.findIndex((row, step) => row[5] !== ours.steps[step][5]);
  return k < 0 ? theirs.length : k;
};
const minibatchesPerIteration = 10 * 32;

/** Float32 rounding of these sums: absolute for terms that are means of cancelling values, else relative. */
const TOLERANCE: Record<string, { abs?: number; rel?: number }> = {
  pg_loss: { abs: 2e-6 },
  v_loss: { rel: 1e-5 },
  entropy: { rel: 1e-5 },
  old_approx_kl: { abs: 2e-6 },
  approx_kl: { abs: 2e-6 },
  clipfrac: { abs: 0 },
  grad_norm: { rel: 2e-5 },
  actor_logstd: { abs: 1e-6 },
};
const within = (column: string, actual: number, expected: number) => {
  const { abs = 0, rel = 0 } = TOLERANCE[column.replace(/\[\d+\]$/, "")];
  return Math.abs(actual - expected) <= abs + rel * Math.abs(expected);
};

test("the replay consumes exactly the recorded action noise and permutations", () => {
  assert.equal(ours.noiseLeft, 0);
  assert.equal(ours.drawsLeft, 0);
});

test("every minibatch step before the first clip-boundary flip matches CleanRL's: losses, gradient norm, log-std", () => {
  const theirs = theirSteps();
  assert.equal(ours.steps.length, theirs.length);
  const flip = firstClipFlip();
  // The first two iterations at least run in lockstep; a flip inside them would be news.
  assert.ok(flip >= 2 * minibatchesPerIteration, `clip fractions part at minibatch ${flip}`);
  for (let k = 0; k < flip; k++)
    recording.steps_columns.forEach((column, c) =>
      assert.ok(
        within(column, ours.steps[k][c], theirs[k][c]),
        `minibatch ${k} ${column}: ${ours.steps[k][c]} vs CleanRL's ${theirs[k][c]}`,
      ),
    );
});

test("the parameters after each iteration before the flip equal CleanRL's within 1e-5 of each tensor's scale", () => {
  const iterations = Math.floor(firstClipFlip() / minibatchesPerIteration);
  for (let iteration = 0; iteration <= iterations; iteration++)
    for (const [name, difference] of Object.entries(parameterDifferences(iteration)))
      assert.ok(difference <= 1e-5, `iteration ${iteration} ${name}: ${difference}`);
});

test("the losses logged for each iteration before the flip equal CleanRL's", () => {
  const iterations = Math.floor(firstClipFlip() / minibatchesPerIteration);
  const columns: Record<string, string> = {
    "losses/policy_loss": "pg_loss",
    "losses/value_loss": "v_loss",
    "losses/entropy": "entropy",
    "losses/old_approx_kl": "old_approx_kl",
    "losses/approx_kl": "approx_kl",
    "losses/clipfrac": "clipfrac",
  };
  const logged = (scalars: [string, number, number][]) =>
    scalars.filter(([tag]) => tag.startsWith("losses/") || tag === "charts/learning_rate");
  const [theirs, mine] = [logged(recording.scalars), logged(ours.scalars)];
  assert.deepEqual(
    mine.map(([tag, , step]) => [tag, step]),
    theirs.map(([tag, , step]) => [tag, step]),
  );
  theirs.forEach(([tag, value, step], i) => {
    if (step > iterations * 2048) return;
    const ok =
      tag === "charts/learning_rate"
        ? Math.abs(mine[i][1] - value) <= 1e-12
        : tag === "losses/explained_variance"
          ? Math.abs(mine[i][1] - value) <= 1e-5
          : within(columns[tag], mine[i][1], value);
    assert.ok(ok, `${tag} at step ${step}: ${mine[i][1]} vs CleanRL's ${value}`);
  });
});

test("every episode's return equals CleanRL's: the rollouts act alike through the last iteration", () => {
  const returns = (scalars: [string, number, number][]) => scalars.filter(([tag]) => tag === "charts/episodic_return");
  const [theirs, mine] = [returns(recording.scalars), returns(ours.scalars)];
  assert.equal(mine.length, theirs.length);
  theirs.forEach(([, value, step], i) => {
    assert.equal(mine[i][2], step);
    assert.ok(
      Math.abs(mine[i][1] - value) <= 1e-5 * Math.abs(value),
      `return at step ${step}: ${mine[i][1]} vs ${value}`,
    );
  });
});

test("after a clip-boundary flip the parameters stay within 1e-2 of each tensor's scale to the last iteration", () => {
  const last = recording.parameters.length - 1;
  for (const [name, difference] of Object.entries(parameterDifferences(last)))
    assert.ok(difference <= 1e-2, `iteration ${last} ${name}: ${difference}`);
});

// The comparison per iteration, printed when LOCKSTEP_TABLE=1 is set.
after(() => {
  if (!process.env.LOCKSTEP_TABLE) return;
  const logged = (scalars: [string, number, number][], tag: string, step: number) =>
    scalars.find(([t, , s]) => t === tag && s === step)?.[1] ?? NaN;
  for (let iteration = 1; iteration < recording.parameters.length; iteration++) {
    const differences = parameterDifferences(iteration);
    const worst = Object.entries(differences).sort((a, b) => b[1] - a[1])[0];
    console.log(
      `iteration ${iteration}: max param diff/scale ${worst[1].toExponential(2)} (${worst[0]}), actor_logstd ${differences.actor_logstd.toExponential(2)}`,
    );
    for (const tag of [
      "charts/learning_rate",
      "losses/value_loss",
      "losses/policy_loss",
      "losses/entropy",
      "losses/old_approx_kl",
      "losses/approx_kl",
      "losses/clipfrac",
      "losses/explained_variance",
    ]) {
      const [theirs, mine] = [
        logged(recording.scalars, tag, iteration * 2048),
        logged(ours.scalars, tag, iteration * 2048),
      ];
      console.log(`  ${tag}: CleanRL ${theirs} ours ${mine} diff ${(mine - theirs).toExponential(2)}`);
    }
  }
  const theirs = theirSteps();
  for (let iteration = 1; iteration <= theirs.length / minibatchesPerIteration; iteration++) {
    const last = iteration * minibatchesPerIteration - 1;
    const logstd = (row: number[]) => row.slice(7).map((v) => v.toFixed(5));
    console.log(
      `log-std after iteration ${iteration}: CleanRL ${logstd(theirs[last])} ours ${logstd(ours.steps[last])}`,
    );
  }
  console.log(`first clip-fraction flip: minibatch ${firstClipFlip()} of ${ours.steps.length}`);
});
