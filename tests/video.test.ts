import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";

import type { Env } from "../envs/gymnasium/core.ts";
import { make } from "../envs/gymnasium/index.ts";
import { RecordVideo, cappedCubicVideoSchedule, findFfmpeg } from "../envs/gymnasium/video.ts";

/** A fresh, not-yet-existing folder under a temp dir (so the "overwriting existing videos" warning stays quiet). */
function videoFolder(): { folder: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), "video-test-"));
  return { folder: join(root, "videos"), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs whole episodes with a fixed action pattern; returns each episode's length in steps. */
function runEpisodes(env: Env<unknown, number>, episodes: number, seed = 1): number[] {
  const lengths: number[] = [];
  for (let e = 0; e < episodes; e++) {
    env.reset(e === 0 ? { seed } : {});
    let steps = 0;
    for (;;) {
      const [, , terminated, truncated] = env.step(steps % 3 === 0 ? 1 : 0);
      steps += 1;
      if (terminated || truncated) break;
    }
    lengths.push(steps);
  }
  return lengths;
}

/** ffprobe's frame count and size of an mp4's first video stream, or null without ffprobe. */
function probe(ffmpegPath: string, file: string): { frames: number; width: number; height: number } | null {
  const candidates = [join(dirname(ffmpegPath), "ffprobe"), "ffprobe"];
  for (const ffprobe of candidates) {
    const out = spawnSync(
      ffprobe,
      [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-count_frames",
        "-show_entries",
        "stream=nb_read_frames,width,height",
        "-of",
        "json",
        file,
      ],
      { encoding: "utf8" },
    );
    if (out.error !== undefined || out.status !== 0) continue;
    const stream = (
      JSON.parse(out.stdout) as { streams: Array<{ nb_read_frames: string; width: number; height: number }> }
    ).streams[0];
    return { frames: Number(stream.nb_read_frames), width: stream.width, height: stream.height };
  }
  return null;
}

test("the capped cubic schedule records episodes 0, 1, 8, 27, 64, ... then every 1000th from 1000", () => {
  const picked: number[] = [];
  for (let id = 0; id <= 5000; id++) if (cappedCubicVideoSchedule(id)) picked.push(id);
  assert.deepEqual(picked, [0, 1, 8, 27, 64, 125, 216, 343, 512, 729, 1000, 2000, 3000, 4000, 5000]);
});

test("an env that does not render rgb_array frames is refused with a clear error", () => {
  const env = make("CartPole-v1") as Env<unknown, number>;
  assert.throws(
    () => new RecordVideo(env, "unused"),
    /render mode is null, which is incompatible with RecordVideo.*renderMode: "rgb_array"/,
  );
});

test("recording two CartPole-v1 episodes writes rl-video-episode-0.mp4 and -1.mp4 with one frame per reset and step", (t) => {
  const { ffmpeg } = findFfmpeg();
  if (ffmpeg === null) {
    t.skip("no ffmpeg");
    return;
  }
  const { folder, cleanup } = videoFolder();
  t.after(cleanup);
  // Short episodes keep the test fast: the action pattern below topples the pole in a few dozen steps.
  const env = new RecordVideo(make("CartPole-v1", { renderMode: "rgb_array" }) as Env<unknown, number>, folder, {
    disableLogger: true,
  });
  const lengths = runEpisodes(env, 3);
  env.close();

  // Episodes 0 and 1 are cubes; episode 2 is not.
  const videos = readdirSync(folder)
    .filter((f) => f.endsWith(".mp4"))
    .sort();
  assert.deepEqual(videos, ["rl-video-episode-0.mp4", "rl-video-episode-1.mp4"]);
  assert.deepEqual(JSON.parse(readFileSync(join(folder, "rl-video-episode-1.meta.json"), "utf8")), {
    step_id: lengths[0],
    episode_id: 1,
    content_type: "video/mp4",
  });
  for (const [i, video] of videos.entries()) {
    assert.ok(statSync(join(folder, video)).size > 0, `${video} is empty`);
    const info = probe(ffmpeg.path, join(folder, video));
    if (info === null) {
      t.diagnostic("no ffprobe: frame count and size not checked");
      continue;
    }
    // One frame after reset plus one after each step, as 0.29 captures them; CartPole renders 600x400.
    assert.deepEqual(info, { frames: lengths[i] + 1, width: 600, height: 400 });
  }
});

test("a step trigger with videoLength records a clip of videoLength + 1 frames named by its starting step", (t) => {
  const { ffmpeg } = findFfmpeg();
  if (ffmpeg === null) {
    t.skip("no ffmpeg");
    return;
  }
  const { folder, cleanup } = videoFolder();
  t.after(cleanup);
  const env = new RecordVideo(make("CartPole-v1", { renderMode: "rgb_array" }) as Env<unknown, number>, folder, {
    stepTrigger: (step) => step === 5,
    videoLength: 10,
    disableLogger: true,
  });
  runEpisodes(env, 2);
  env.close();
  assert.deepEqual(
    readdirSync(folder).filter((f) => f.endsWith(".mp4")),
    ["rl-video-step-5.mp4"],
  );
  const info = probe(ffmpeg.path, join(folder, "rl-video-step-5.mp4"));
  if (info === null) t.diagnostic("no ffprobe: frame count not checked");
  else assert.equal(info.frames, 11);
});

test("without ffmpeg the wrapper warns once and the env steps exactly as unwrapped", (t) => {
  const { folder, cleanup } = videoFolder();
  t.after(cleanup);
  const warn = t.mock.method(console, "warn", () => {});
  // A FFMPEG_PATH that does not exist, no PATH and no npm package: nothing to fall back to.
  const search = { environ: { FFMPEG_PATH: join(folder, "no-such-ffmpeg") }, npmPackage: false };
  const recorded = new RecordVideo(make("CartPole-v1", { renderMode: "rgb_array" }) as Env<unknown, number>, folder, {
    ffmpeg: search,
  });
  const again = new RecordVideo(
    make("CartPole-v1", { renderMode: "rgb_array" }) as Env<unknown, number>,
    join(folder, "second"),
    { ffmpeg: search },
  );
  assert.equal(recorded.ffmpeg, null);

  const lengths = runEpisodes(recorded, 3, 7);
  runEpisodes(again, 2, 7);
  recorded.close();
  again.close();
  assert.deepEqual(lengths, runEpisodes(make("CartPole-v1") as Env<unknown, number>, 3, 7));

  const messages = warn.mock.calls.map((c) => String(c.arguments[0]));
  assert.equal(messages.filter((m) => m.includes("no ffmpeg found")).length, 1, messages.join("\n"));
  assert.match(messages.find((m) => m.includes("no ffmpeg found"))!, /no-such-ffmpeg does not exist.*videos disabled/);
  assert.equal(readdirSync(folder).filter((f) => f.endsWith(".mp4")).length, 0);
  assert.ok(existsSync(folder), "the video folder is still created, as in Gymnasium");
});
