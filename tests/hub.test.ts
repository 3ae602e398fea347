// Sharing agents through the Hugging Face Hub (envs/run/hub.ts), against a local stand-in of the Hub
// (tests/hub_stand_in.ts): `--upload-model` pushes the files and model card CleanRL's `push_to_hub` pushes, a refusing
// Hub or a missing token is one line and leaves the run's files as they were, and `--eval-checkpoint <repo id>`
// downloads into the Hub cache in huggingface_hub's layout and reads it from there offline.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { meanReward, pushToHub } from "../envs/run/hub.ts";
import { isHubReference } from "../envs/run/hub_reference.ts";
import { SummaryWriter } from "../envs/run/logging.ts";
import { setupBackend } from "../envs/torch/backend.ts";
import { readCheckpoint, writeCheckpoint } from "../envs/torch/checkpoint.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";
import { type StandIn, TOKEN, USER, startStandIn } from "./hub_stand_in.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "hub-test-"));
const REPO = `${USER}/CartPole-v1-ppo-seed1`;
const ARGS = { expName: "ppo", seed: 1, envId: "CartPole-v1", hfEntity: null, learningRate: 2.5e-4 };
const ARGV = ["--seed", "1", "--save-model", "--upload-model"];
let hub: StandIn;
const savedEnv = { ...process.env };
const cwd = process.cwd();

before(async () => {
  await setupBackend("cpu", { quiet: true });
  hub = await startStandIn();
  process.chdir(TMP);
});

after(async () => {
  process.chdir(cwd);
  process.env = savedEnv;
  await hub.stop();
});

/** The environment the Python tools read, pointed at the stand-in and a cache of this test's own. */
function hubEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN, HF_HUB_CACHE: path.join(TMP, "cache"), ...extra };
}

/** A finished run as a variant leaves it: agent, event file, a periodic checkpoint, evaluation videos. */
function makeRun(runName: string, videos: string[]): { folder: string; videoFolder: string } {
  const folder = path.join("runs", runName);
  const agent = new ppo.Agent(4, 2);
  writeCheckpoint(path.join(folder, "ppo.safetensors"), "ppo.ts", agent.namedParameters(), null, {
    runName,
    iteration: 1,
    globalStep: 512,
    rng: [new RandomGenerator(1).getState()],
    args: ARGS,
  });
  writeCheckpoint(
    path.join(folder, "checkpoints", "iteration_00000001.safetensors"),
    "ppo.ts",
    agent.namedParameters(),
    null,
    {
      runName,
      iteration: 1,
      globalStep: 512,
      rng: [new RandomGenerator(1).getState()],
      args: ARGS,
    },
  );
  const writer = new SummaryWriter(folder);
  writer.addScalar("charts/episodic_return", 10, 1);
  writer.close();
  const videoFolder = path.join("videos", `${runName}-eval`);
  fs.mkdirSync(videoFolder, { recursive: true });
  // Bytes with a NUL, as an mp4 has: the Hub stores them with LFS.
  for (const v of videos) fs.writeFileSync(path.join(videoFolder, v), Buffer.from(`\0mp4 ${runName} ${v}`));
  return { folder, videoFolder };
}

function push(run: { folder: string; videoFolder: string }, lines: string[], env = hubEnv()) {
  return pushToHub({
    args: ARGS,
    episodicReturns: [1, 2, 3],
    folderPath: run.folder,
    videoFolderPath: run.videoFolder,
    scriptPath: path.join(ROOT, "ppo.ts"),
    argv: ARGV,
    log: (l) => lines.push(l),
    env,
  });
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

test("mean_reward is numpy's mean +/- population std of the evaluation returns, to 2 decimals", () => {
  // numpy: np.average([1, 2, 3]) = 2.0, np.std([1, 2, 3]) = 0.8165; np.average([-21, -20, -19.5]) = -20.1667,
  // np.std = 0.6236
  assert.equal(meanReward([1, 2, 3]), "2.00 +/- 0.82");
  assert.equal(meanReward([-21, -20, -19.5]), "-20.17 +/- 0.62");
});

test("--upload-model pushes CleanRL's file set: run folder files, model card, videos and replay.mp4, the script, the lock files", async () => {
  const run = makeRun("CartPole-v1__ppo__1__1", [
    "rl-video-episode-0.mp4",
    "rl-video-episode-8.mp4",
    "rl-video-episode-2.mp4",
  ]);
  const lines: string[] = [];
  const url = await push(run, lines);
  assert.equal(url, `${hub.url}/${REPO}`);
  assert.deepEqual(lines, [`hub: model pushed to ${hub.url}/${REPO}`]);
  const state = await hub.state();
  const files = state.repos[REPO].files;
  const events = fs.readdirSync(run.folder).find((n) => n.includes("tfevents"))!;
  const video = (n: string) => `videos/CartPole-v1__ppo__1__1-eval/${n}`;
  assert.deepEqual(
    Object.keys(files).sort(),
    [
      ".gitattributes",
      "README.md",
      events,
      "package-lock.json",
      "package.json",
      "ppo.safetensors",
      "ppo.ts",
      "replay.mp4",
      video("rl-video-episode-0.mp4"),
      video("rl-video-episode-2.mp4"),
      video("rl-video-episode-8.mp4"),
    ].sort(),
  );
  // The preview is the last episode recorded (by the number in its name), as CleanRL picks it.
  assert.equal(
    files["replay.mp4"].sha256,
    sha256(fs.readFileSync(path.join(run.videoFolder, "rl-video-episode-8.mp4"))),
  );
  for (const [name, local] of [
    ["ppo.safetensors", path.join(run.folder, "ppo.safetensors")],
    [events, path.join(run.folder, events)],
    ["ppo.ts", path.join(ROOT, "ppo.ts")],
  ])
    assert.equal(files[name].sha256, sha256(fs.readFileSync(local)), `${name} arrived unchanged`);
  assert.ok(files["ppo.safetensors"].lfs, "the agent went through LFS");
  assert.equal(state.repos[REPO].commits.at(-1)!.title, "pushing model");
  assert.ok(
    state.requests.every((r) => r.authorized || r.path.startsWith("/__lfs/")),
    "every Hub call carries HF_TOKEN",
  );
});

test("the model card carries the Hub's eval metadata, the command that reproduces the run and the hyperparameters", async () => {
  const card = (await hub.file(REPO, "README.md")).toString();
  const [, metadata, body] = card.split(/^---$/m);
  for (const line of [
    "tags:",
    "- CartPole-v1",
    "- deep-reinforcement-learning",
    "- reinforcement-learning",
    "- custom-implementation",
    "model-index:",
    "- name: PPO",
    "      type: reinforcement-learning",
    "      name: CartPole-v1",
    "    - type: mean_reward",
    '      value: "2.00 +/- 0.82"',
    "      name: mean_reward",
    "      verified: false",
  ])
    assert.ok(metadata.split("\n").includes(line), `metadata has ${JSON.stringify(line)}:\n${metadata}`);
  assert.ok(body.includes("npx tsx ppo.ts --seed 1 --save-model --upload-model"), "the command to reproduce");
  assert.ok(body.includes(`npx tsx ppo.ts --eval-checkpoint ${REPO}`), "the command to watch it");
  assert.ok(body.includes('"learningRate": 0.00025'), "the hyperparameters");
  assert.equal(card, fs.readFileSync(path.join("runs", "CartPole-v1__ppo__1__1", "README.md"), "utf8"));
});

test("pushing again reuses the repo and replaces its event files and videos, keeping the rest", async () => {
  const before = await hub.state();
  const oldEvents = Object.keys(before.repos[REPO].files).filter((n) => n.includes("tfevents"));
  const run = makeRun("CartPole-v1__ppo__1__2", ["rl-video-episode-0.mp4"]);
  const lines: string[] = [];
  assert.equal(await push(run, lines), `${hub.url}/${REPO}`);
  const state = await hub.state();
  const files = Object.keys(state.repos[REPO].files);
  for (const old of oldEvents) assert.ok(!files.includes(old), `old event file ${old} deleted`);
  assert.ok(!files.some((n) => n.includes("CartPole-v1__ppo__1__1-eval")), "old videos deleted");
  assert.ok(files.includes("videos/CartPole-v1__ppo__1__2-eval/rl-video-episode-0.mp4"));
  assert.equal(
    state.repos[REPO].files["replay.mp4"].sha256,
    sha256(fs.readFileSync(path.join(run.videoFolder, "rl-video-episode-0.mp4"))),
  );
  assert.ok(files.includes(".gitattributes"), "files that are no event file or video stay");
  assert.ok(state.requests.some((r) => r.method === "POST" && r.path === "/api/repos/create"));
});

/** Every file of a folder (recursively) with its bytes' hash. */
function snapshot(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(folder, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out[path.join(e.parentPath, e.name)] = sha256(fs.readFileSync(path.join(e.parentPath, e.name)));
  return out;
}

test("without a token nothing is sent: one line says so, the run's files stay", async () => {
  const run = makeRun("CartPole-v1__ppo__1__3", ["rl-video-episode-0.mp4"]);
  const requestsBefore = (await hub.state()).requests.length;
  const lines: string[] = [];
  const files = snapshot(run.folder);
  const env = hubEnv({ HF_TOKEN: "", HF_HOME: path.join(TMP, "no-login") });
  assert.equal(await push(run, lines, env), null);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^hub: model not uploaded: no token \(set HF_TOKEN.*; the run's files stay in runs\//);
  assert.equal((await hub.state()).requests.length, requestsBefore);
  assert.deepEqual(snapshot(run.folder), files);
});

test("a Hub that refuses the commit is one line; the run's agent, event files and checkpoints stay as they were", async () => {
  const run = makeRun("CartPole-v1__ppo__1__4", ["rl-video-episode-0.mp4"]);
  const files = snapshot(run.folder);
  await hub.fail("^POST /api/models/.*/commit/", 500);
  const lines: string[] = [];
  try {
    assert.equal(await push(run, lines), null);
  } finally {
    await hub.fail(null);
  }
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    new RegExp(`^hub: model not uploaded to ${REPO}: .*stand-in refuses POST.*; the run's files stay in runs/`),
  );
  assert.ok(!lines[0].includes("\n"));
  const after = snapshot(run.folder);
  delete after[path.join(run.folder, "README.md")]; // the card is written beside the run, as CleanRL writes it
  assert.deepEqual(after, files);
});

test("a token the Hub rejects is one line naming the HTTP status", async () => {
  const run = makeRun("CartPole-v1__ppo__1__5", []);
  const lines: string[] = [];
  assert.equal(await push(run, lines, hubEnv({ HF_TOKEN: "hf_wrong" })), null);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^hub: model not uploaded: .*(401|Invalid credentials)/);
});

test("Hub references are bare <entity>/<repo> ids or hf:// URLs; local-looking paths are not", () => {
  assert.ok(isHubReference("cleanrl/BreakoutNoFrameskip-v4-dqn_atari-seed1"));
  assert.ok(
    isHubReference(
      "hf://cleanrl/Pong-v5-ppo_atari_envpool_xla_jax_scan-seed1/ppo_atari_envpool_xla_jax_scan.cleanrl_model",
    ),
  );
  assert.ok(!isHubReference("runs/ppo.safetensors"));
  assert.ok(!isHubReference("runs/CartPole-v1__ppo__1__1/ppo.safetensors"));
  assert.ok(!isHubReference("model.safetensors"));
  assert.ok(!isHubReference("../x/y"));
});

test("--eval-checkpoint <entity>/<repo> downloads the agent into the Hub cache in huggingface_hub's layout", async () => {
  Object.assign(process.env, hubEnv());
  const checkpoint = readCheckpoint(REPO, "ppo.ts");
  assert.equal(checkpoint.progress?.runName, "CartPole-v1__ppo__1__2");
  const state = await hub.state();
  const head = state.repos[REPO].commits.at(-1)!.oid;
  const storage = path.join(TMP, "cache", `models--${USER}--CartPole-v1-ppo-seed1`);
  assert.equal(fs.readFileSync(path.join(storage, "refs", "main"), "utf8"), head);
  const pointer = path.join(storage, "snapshots", head, "ppo.safetensors");
  assert.equal(checkpoint.path, pointer);
  const etag = state.repos[REPO].files["ppo.safetensors"].sha256;
  assert.equal(fs.readlinkSync(pointer), path.join("..", "..", "blobs", etag));
  assert.equal(sha256(fs.readFileSync(pointer)), etag);
});

test("with HF_HUB_OFFLINE=1, or a Hub that fails, the cached agent is read without a download", async () => {
  Object.assign(process.env, hubEnv({ HF_HUB_OFFLINE: "1" }));
  const requests = (await hub.state()).requests.length;
  assert.equal(readCheckpoint(REPO, "ppo.ts").progress?.runName, "CartPole-v1__ppo__1__2");
  assert.equal((await hub.state()).requests.length, requests, "offline: no request");
  delete process.env.HF_HUB_OFFLINE;
  await hub.fail("^HEAD /", 503);
  try {
    assert.equal(readCheckpoint(`hf://${REPO}/ppo.safetensors`, "ppo.ts").progress?.runName, "CartPole-v1__ppo__1__2");
  } finally {
    await hub.fail(null);
  }
});

test("a repo that is not on the Hub is one line", () => {
  Object.assign(process.env, hubEnv());
  assert.throws(
    () => readCheckpoint(`${USER}/no-such-repo`, "ppo.ts"),
    (e: Error) =>
      e.name === "CheckpointError" &&
      /no model repo tester\/no-such-repo on the Hub/.test(e.message) &&
      !e.message.includes("\n"),
  );
});
