// Random-agent scores under the DQN evaluation protocol (Mnih et al. 2015, Nature, "Methods: evaluation"):
//   - each episode starts with a random number (1..30) of NOOP frames,
//   - the agent acts every 4th frame, repeating its action in between; its observation is the pixel-wise max of
//     the last two of those 4 frames (computed here for fidelity, though a random policy ignores it),
//   - the policy picks uniformly among the game's minimal action set,
//   - episodes last at most 5 minutes of play: 18,000 frames at 60 Hz (--max-episode-frames).
// Mnih et al.'s random-agent scores (Extended Data Table 2): Breakout 1.7, Pong -20.7, BeamRider 363.9.
//
// Usage: npx tsx benchmark/atari_random.ts --rom-dir ../shared/roms [--episodes 10] [--games breakout,pong,beam_rider]
//        [--seed 1] [--max-episode-frames 18000]

import { AtariEnv } from "../envs/ale/env.ts";
import { int, parseArgs, str } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { npRandom } from "../envs/torch/rng.ts";

const PUBLISHED: Record<string, number> = { breakout: 1.7, pong: -20.7, beam_rider: 363.9 };

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  episodes: int(10, "episodes per game", { ge: 1 }),
  games: str("breakout,pong,beam_rider", "comma-separated ROM names"),
  seed: int(1, "seed of the random agent", { ge: 0 }),
  maxEpisodeFrames: int(18_000, "frames per episode at most (5 minutes of play)", { ge: 1 }),
  noopMax: int(30, "at most this many NOOP frames start each episode", { ge: 1 }),
};

async function main(): Promise<void> {
  const args = parseArgs(
    ARGS,
    "Random-agent Atari scores under the DQN evaluation protocol.",
    "benchmark/atari_random.ts",
  );
  const romDir = args.romDir ?? undefined;
  const episodes = args.episodes;
  const maxFrames = args.maxEpisodeFrames;
  const noopMax = args.noopMax;
  const [rng] = npRandom(args.seed);

  for (const game of args.games.split(",")) {
    // One emulator frame per env step, no sticky actions: the protocol's frame skipping is done below.
    const env = new AtariEnv({ game, romDir, frameskip: 1, repeatActionProbability: 0, obsType: "grayscale" });
    const nActions = env.actionSpace.n;
    const pooled = new Uint8Array(env.observationSpace.size);
    const scores: number[] = [];
    let totalFrames = 0;
    const started = performance.now();
    env.reset({ seed: rng.integers(0, 2 ** 31) });
    for (let episode = 0; episode < episodes; episode++) {
      if (episode > 0) env.reset();
      let score = 0;
      let frames = 0;
      let over = false;
      const noops = rng.integers(1, noopMax + 1);
      for (let i = 0; i < noops && !over; i++) {
        const [reward, terminated, truncated] = env.stepWithoutObservation(0);
        score += reward;
        frames++;
        over = terminated || truncated;
      }
      while (!over && frames < maxFrames) {
        const action = rng.integers(0, nActions);
        for (let k = 0; k < 4 && !over && frames < maxFrames; k++) {
          if (k < 2) {
            const [reward, terminated, truncated] = env.stepWithoutObservation(action);
            score += reward;
            over = terminated || truncated;
          } else {
            const [obs, reward, terminated, truncated] = env.step(action);
            score += reward;
            over = terminated || truncated;
            if (k === 2) pooled.set(obs);
            else for (let j = 0; j < obs.length; j++) if (obs[j] > pooled[j]) pooled[j] = obs[j];
          }
          frames++;
        }
      }
      totalFrames += frames;
      scores.push(score);
    }
    const seconds = (performance.now() - started) / 1000;
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const std = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
    const published = PUBLISHED[env.game.rom];
    console.log(
      `${env.game.name.padEnd(10)} random: ${mean.toFixed(1)} ± ${std.toFixed(1)} over ${episodes} episodes` +
        `${published !== undefined ? ` (Mnih et al. 2015: ${published})` : ""}; ` +
        `${totalFrames} frames in ${seconds.toFixed(1)} s = ${(totalFrames / seconds).toFixed(0)} frames/s`,
    );
  }
}

await runMain(main);
