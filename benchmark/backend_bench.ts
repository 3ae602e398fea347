// Micro-benchmarks behind envs/torch/backend.ts's choices: `npx tsx benchmark/backend_bench.ts [what] [options]`.
//
//   mlp   [--backend wasm|cpu] [--stock]                       ppo.py's MLP pair: act() on 4 observations incl.
//                                                             readback, and one Adam step on a minibatch of 128
//   cnn   [--backend wasm|cpu] [--batch 256] [--stock] [--fused]  Nature-CNN agent: forward, forward+backward, Adam step
//   convs [--batch 256]                                       each conv layer's forward / dW / dx on wasm (fixed)
//   adam  [--backend wasm|cpu|tensorflow]                     one Adam step on the Nature-CNN's parameters (1.69M
//                                                             floats): tf.train.adam against envs/torch/optim.ts's adam
//
// --stock unregisters the WASM gradient fixes (tfjs's own gradients and kernels) and uses tfjs's own Adam
// (tf.train.adam) instead of envs/torch/optim.ts's `adam`, --stock-matmul only the matMul
// ones; --fused builds layers with
// tf.fused.conv2d / tf.fused.matMul + bias (ppo.ts's style) instead of conv2d/matMul + add. Single process, one
// backend per run: compare runs on an otherwise idle machine.

import * as tf from "@tensorflow/tfjs";

import { conv2dFilterGrad, conv2dInputGrad, setupBackend, unregisterWasmGradientFixes } from "../envs/torch/backend.ts";
import { bool, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { adam } from "../envs/torch/optim.ts";

handleExits(); // one `error:` line on failure, exit 2 for a bad command line
const ARGS = {
  backend: str("wasm", "wasm or cpu (adam: also tensorflow)"),
  batch: int(256, "batch size of the cnn and convs benchmarks", { ge: 1 }),
  reps: int(3, "timed runs per measurement", { ge: 1 }),
  stock: bool(false, "unregister the WASM gradient fixes and use tf.train.adam"),
  stockMatmul: bool(false, "unregister only the matMul fixes"),
  fused: bool(false, "build layers with tf.fused ops"),
};
// The benchmark's name comes first: `backend_bench.ts cnn --batch 64`.
const argv = process.argv.slice(2);
const what = argv[0] !== undefined && !argv[0].startsWith("-") ? argv[0] : "mlp";
const cli = parseArgs(
  ARGS,
  "Micro-benchmarks behind envs/torch/backend.ts and envs/torch/optim.ts: mlp | cnn | convs | adam.",
  "benchmark/backend_bench.ts [mlp|cnn|convs|adam]",
  what === argv[0] ? argv.slice(1) : argv,
);
if (!["mlp", "cnn", "convs", "adam"].includes(what))
  usageError(`unknown benchmark '${what}' (mlp | cnn | convs | adam)`);
const backends = what === "adam" ? ["wasm", "cpu", "tensorflow"] : ["wasm", "cpu"];
if (!backends.includes(cli.backend)) usageError(`--backend must be ${backends.join(" or ")}, got "${cli.backend}"`);
const reps = cli.reps;

// tfjs's own BatchMatMul gradient and wasm kernel, captured before setupBackend installs the fixes.
await import("@tensorflow/tfjs-backend-wasm");
const stockMatMul = { grad: tf.getGradient(tf.BatchMatMul), kernel: tf.getKernel(tf.BatchMatMul, "wasm") };
await setupBackend(cli.backend);
if (cli.stock) unregisterWasmGradientFixes();
if (cli.stockMatmul) {
  // Conv fixes kept, matMul ones removed: isolates the cost of transposed matMuls in backprop.
  tf.registerGradient(stockMatMul.grad);
  tf.unregisterKernel(tf.BatchMatMul, "wasm");
  tf.registerKernel(stockMatMul.kernel);
}

/** Mean wall time of `f` in ms over `n` runs after one warm-up run (which also compiles XNNPACK operators). */
function time(n: number, f: () => void): number {
  f();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  return (performance.now() - t0) / n;
}

function report(name: string, ms: number | string): void {
  console.log(`${name.padEnd(44)} ${typeof ms === "number" ? `${ms.toFixed(ms < 10 ? 3 : 1)} ms` : ms}`);
}

interface Dense {
  w: tf.Variable;
  b: tf.Variable;
}
const dense = (i: number, o: number): Dense => ({
  w: tf.variable(tf.randomNormal([i, o], 0, 1 / Math.sqrt(i))),
  b: tf.variable(tf.zeros([o])),
});
const linear = (x: tf.Tensor, l: Dense): tf.Tensor =>
  cli.fused
    ? tf.fused.matMul({ a: x as tf.Tensor2D, b: l.w as tf.Tensor2D, bias: l.b })
    : tf.add(tf.matMul(x, l.w), l.b);

if (what === "mlp") {
  // ppo.py: actor 4→64→64→2 and critic 4→64→64→1, tanh.
  const actor = [dense(4, 64), dense(64, 64), dense(64, 2)];
  const critic = [dense(4, 64), dense(64, 64), dense(64, 1)];
  const mlp = (x: tf.Tensor, ls: Dense[]): tf.Tensor =>
    ls.reduce((h, l, i) => (i < ls.length - 1 ? tf.tanh(linear(h, l)) : linear(h, l)), x);
  const obs4 = tf.randomNormal([4, 4]);
  report(
    `act() batch 4 + dataSync [${tf.getBackend()}${cli.fused ? ", fused" : ""}]`,
    time(200, () => {
      const [logits, value] = tf.tidy(() => [mlp(obs4, actor), mlp(obs4, critic)]);
      logits.dataSync();
      value.dataSync();
      tf.dispose([logits, value]);
    }),
  );
  const opt: tf.Optimizer = (cli.stock ? tf.train.adam : adam)(2.5e-4, 0.9, 0.999, 1e-5);
  const vars = [...actor, ...critic].flatMap((l) => [l.w, l.b]);
  const mb = tf.randomNormal([128, 4]);
  const act = tf.oneHot(tf.randomUniform([128], 0, 2, "int32"), 2);
  const ret = tf.randomNormal([128, 1]);
  const stock = cli.stock ? ", stock" : cli.stockMatmul ? ", stock matMul" : "";
  report(
    `Adam step minibatch 128 [${tf.getBackend()}${cli.fused ? ", fused" : ""}${stock}]`,
    time(50, () => {
      tf.tidy(() => {
        const { value: loss, grads } = tf.variableGrads(() => {
          const logp = tf.sum(tf.mul(tf.logSoftmax(mlp(mb, actor)), act), -1);
          const v = mlp(mb, critic);
          return tf.add(tf.neg(tf.mean(logp)), tf.mean(tf.square(tf.sub(v, ret)))) as tf.Scalar;
        }, vars);
        opt.applyGradients(grads);
        loss.dataSync();
      });
    }),
  );
} else if (what === "cnn") {
  const batch = Number(cli.batch);
  interface Conv {
    w: tf.Variable;
    b: tf.Variable;
    s: number;
  }
  const conv = (k: number, ci: number, co: number, s: number): Conv => ({
    w: tf.variable(tf.randomNormal([k, k, ci, co], 0, 1 / Math.sqrt(k * k * ci))),
    b: tf.variable(tf.zeros([co])),
    s,
  });
  const convs = [conv(8, 4, 32, 4), conv(4, 32, 64, 2), conv(3, 64, 64, 1)];
  const fc = dense(3136, 512);
  const actorHead = dense(512, 6);
  const criticHead = dense(512, 1);
  const forward = (x: tf.Tensor): [tf.Tensor, tf.Tensor] => {
    let h = x as tf.Tensor4D;
    for (const c of convs) {
      h = tf.relu<tf.Tensor4D>(
        cli.fused
          ? tf.fused.conv2d({ x: h, filter: c.w as tf.Tensor4D, strides: c.s, pad: "valid", bias: c.b })
          : tf.add<tf.Tensor4D>(tf.conv2d(h, c.w as tf.Tensor4D, c.s, "valid"), c.b),
      );
    }
    const z = tf.relu(linear(tf.reshape(h, [h.shape[0], -1]), fc));
    return [linear(z, actorHead), linear(z, criticHead)];
  };
  const vars = [...convs.flatMap((c) => [c.w, c.b]), ...[fc, actorHead, criticHead].flatMap((l) => [l.w, l.b])];
  const x = tf.randomUniform([batch, 84, 84, 4]);
  const r = tf.randomNormal([batch, 6]);
  const loss = (): tf.Scalar => {
    const [logits, value] = forward(x);
    return tf.add(tf.mean(tf.mul(tf.logSoftmax(logits), r)), tf.mean(tf.square(value))) as tf.Scalar;
  };
  const stock = cli.stock ? ", stock" : cli.stockMatmul ? ", stock matMul" : "";
  const tag = `[${tf.getBackend()}, batch ${batch}${cli.fused ? ", fused" : ""}${stock}]`;
  report(
    `CNN forward ${tag}`,
    time(reps, () =>
      tf.tidy(() => {
        loss().dataSync();
      }),
    ),
  );
  try {
    report(
      `CNN forward+backward ${tag}`,
      time(reps, () =>
        tf.tidy(() => {
          const { value, grads } = tf.variableGrads(loss, vars);
          value.dataSync();
          Object.values(grads)[0].dataSync();
        }),
      ),
    );
    const opt: tf.Optimizer = (cli.stock ? tf.train.adam : adam)(2.5e-4, 0.9, 0.999, 1e-5);
    report(
      `CNN Adam step ${tag}`,
      time(reps, () =>
        tf.tidy(() => {
          const { value, grads } = tf.variableGrads(loss, vars);
          opt.applyGradients(grads);
          value.dataSync();
        }),
      ),
    );
  } catch (err) {
    report(`CNN forward+backward ${tag}`, `throws: ${String((err as Error).message).split("\n")[0]}`);
  }
} else if (what === "adam") {
  // The Nature CNN's parameter shapes ([kh, kw, in, out] convs, [in, out] dense) with gradients of Adam's typical size.
  const shapes = [
    [8, 8, 4, 32],
    [32],
    [4, 4, 32, 64],
    [64],
    [3, 3, 64, 64],
    [64],
    [3136, 512],
    [512],
    [512, 4],
    [4],
    [512, 1],
    [1],
  ];
  for (const [name, make] of [
    ["tf.train.adam", tf.train.adam],
    ["envs/torch/optim.ts adam", adam],
  ] as const) {
    const vars = shapes.map((s) => tf.variable(tf.randomNormal(s, 0, 0.05)));
    const grads = Object.fromEntries(vars.map((v) => [v.name, tf.randomNormal(v.shape, 0, 1e-3)]));
    const opt: tf.Optimizer = make(2.5e-4, 0.9, 0.999, 1e-5);
    report(
      `Adam step, ${name} [${tf.getBackend()}]`,
      time(Math.max(reps, 20), () => tf.tidy(() => opt.applyGradients(grads))),
    );
    opt.dispose();
    tf.dispose([...vars, ...Object.values(grads)]);
  }
} else if (what === "convs") {
  const batch = Number(cli.batch);
  const layers: [[number, number, number, number], number, number, number][] = [
    [[batch, 84, 84, 4], 8, 4, 32],
    [[batch, 20, 20, 32], 4, 2, 64],
    [[batch, 9, 9, 64], 3, 1, 64],
  ];
  for (const [xs, k, s, co] of layers) {
    const x = tf.randomNormal(xs) as tf.Tensor4D;
    const w = tf.randomNormal([k, k, xs[3], co]) as tf.Tensor4D;
    const dy = tf.tidy(() => tf.randomNormal(tf.conv2d(x, w, s, "valid").shape)) as tf.Tensor4D;
    const attrs = { strides: s, pad: "valid" as const };
    const run = (f: () => tf.Tensor) => () => {
      const t = f();
      t.dataSync();
      t.dispose();
    };
    const name = `conv ${k}x${k}/${s} ${xs.slice(1).join("x")} batch ${batch}`;
    report(
      `${name}: forward`,
      time(
        reps,
        run(() => tf.conv2d(x, w, s, "valid")),
      ),
    );
    report(
      `${name}: dW (dilated conv)`,
      time(
        reps,
        run(() => conv2dFilterGrad(x, dy, w.shape, attrs)),
      ),
    );
    if (k !== 8) {
      report(
        `${name}: dx (sub-pixel conv)`,
        time(
          reps,
          run(() => conv2dInputGrad(xs, dy, w, attrs)),
        ),
      );
    }
    tf.dispose([x, w, dy]);
  }
} else {
  usageError(`unknown benchmark '${what}' (mlp | cnn | convs)`);
}
