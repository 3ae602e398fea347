// The rest of CleanRL's `SPS:` line: where the run is and how long it has left. Every variant prints
//   SPS: 140  step 20,480/10,000,000 (0.2%)  ETA 19h48m
// with `SPS: <int>` first, so log parsers written for CleanRL (`^SPS: (\d+)`) still read it. The time left is the
// remaining steps at the SPS the variant measured for this run, so it settles as the run goes on.

/** 10000000 -> "10,000,000". */
export function groupDigits(n: number): string {
  return Math.trunc(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Seconds as the two largest units: "42s", "12m05s", "19h48m", "3d04h"; "?" when unknown (no speed yet). */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  const two = (n: number) => n.toString().padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

/** "step 20,480/10,000,000 (0.2%)  ETA 19h48m": the part of the SPS line after `SPS: <int>`. */
export function progress(globalStep: number, totalSteps: number, sps: number): string {
  const percent = totalSteps > 0 ? (100 * globalStep) / totalSteps : 100;
  const eta = sps > 0 ? formatDuration(Math.max(0, totalSteps - globalStep) / sps) : "?";
  return `step ${groupDigits(globalStep)}/${groupDigits(totalSteps)} (${percent.toFixed(1)}%)  ETA ${eta}`;
}
