// Running mean and variance, as `gymnasium.wrappers.normalize.RunningMeanStd` (0.29), shared by
// NormalizeObservation and NormalizeReward.
//
// Gymnasium keeps float64 statistics, starts from mean 0, var 1 and a tiny pseudo-count `epsilon = 1e-4`
// (so the very first update already moves the mean almost all the way to the first sample), and merges each
// batch with Chan et al.'s parallel algorithm
// (https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm). The wrappers call it
// with a batch of one sample per step, so the batch variance is 0 and only the cross term grows M2.

export interface RunningMeanStdState {
  mean: number[];
  var: number[];
  count: number;
}

export class RunningMeanStd {
  readonly mean: Float64Array;
  readonly var: Float64Array;
  count: number;
  readonly size: number;

  constructor(
    readonly shape: readonly number[] = [],
    epsilon = 1e-4,
  ) {
    this.size = shape.reduce((a, b) => a * b, 1);
    this.mean = new Float64Array(this.size);
    this.var = new Float64Array(this.size).fill(1);
    this.count = epsilon;
  }

  /**
   * Merges a batch of `batchCount` samples laid out row-major (`batchCount * size` values), like
   * `update(x)` with `x.shape == (batchCount, *shape)`. Batch variance is the population variance (numpy's
   * `np.var` default, ddof = 0).
   */
  update(batch: ArrayLike<number>, batchCount = 1): void {
    const n = this.size;
    if (batch.length !== batchCount * n) {
      throw new RangeError(`RunningMeanStd.update: expected ${batchCount} x ${n} values, got ${batch.length}`);
    }
    if (batchCount === 1) {
      // The per-step path: batch mean is the sample itself and batch variance is 0; no temporaries needed.
      const total = this.count + 1;
      for (let i = 0; i < n; i++) {
        const delta = batch[i] - this.mean[i];
        this.mean[i] += delta / total;
        this.var[i] = (this.var[i] * this.count + (delta * delta * this.count) / total) / total;
      }
      this.count = total;
      return;
    }
    const batchMean = new Float64Array(n);
    const batchVar = new Float64Array(n);
    for (let b = 0; b < batchCount; b++) for (let i = 0; i < n; i++) batchMean[i] += batch[b * n + i];
    for (let i = 0; i < n; i++) batchMean[i] /= batchCount;
    for (let b = 0; b < batchCount; b++) {
      for (let i = 0; i < n; i++) {
        const d = batch[b * n + i] - batchMean[i];
        batchVar[i] += d * d;
      }
    }
    for (let i = 0; i < n; i++) batchVar[i] /= batchCount;
    this.updateFromMoments(batchMean, batchVar, batchCount);
  }

  /** Gymnasium's `update_mean_var_count_from_moments`, term for term. */
  updateFromMoments(batchMean: ArrayLike<number>, batchVar: ArrayLike<number>, batchCount: number): void {
    const total = this.count + batchCount;
    for (let i = 0; i < this.size; i++) {
      const delta = batchMean[i] - this.mean[i];
      this.mean[i] += (delta * batchCount) / total;
      const m2 =
        this.var[i] * this.count + batchVar[i] * batchCount + (delta * delta * this.count * batchCount) / total;
      this.var[i] = m2 / total;
    }
    this.count = total;
  }

  /** Plain-JSON copy of the statistics, for saving alongside a model (CleanRL's continuous variant evaluates with them). */
  state(): RunningMeanStdState {
    return { mean: Array.from(this.mean), var: Array.from(this.var), count: this.count };
  }

  /** Restores statistics saved by `state()`. */
  loadState(state: RunningMeanStdState): void {
    if (state.mean.length !== this.size || state.var.length !== this.size) {
      throw new RangeError(
        `RunningMeanStd.loadState: expected ${this.size} values, got ${state.mean.length}/${state.var.length}`,
      );
    }
    this.mean.set(state.mean);
    this.var.set(state.var);
    this.count = state.count;
  }
}
