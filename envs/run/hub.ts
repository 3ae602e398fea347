// Sharing agents on the Hugging Face Hub as CleanRL does (cleanrl_utils/huggingface.py `push_to_hub`, and
// `hf_hub_download` in cleanrl_utils/enjoy.py), with the official JavaScript client `@huggingface/hub`.
//
// Upload (`--upload-model`, after `--save-model` evaluated the agent): the repo `<entity>/<env-id>-<exp-name>-seed<seed>`
// is created or reused; its old TensorBoard event files and videos are deleted and, in one commit, the run folder's
// files (the .safetensors agent, the event files, README.md: the model card written there first), the evaluation
// videos (each under its own path, the last episode's also as `replay.mp4`), the variant's .ts file and the
// package.json / package-lock.json that pin what it ran on (CleanRL pushes pyproject.toml and poetry.lock) are
// pushed. A missing token or a refusing Hub is one line; the run's local files are left as they are.
//
// Download: the Hub cache of the Python tools (huggingface_hub file_download.py), so that a file fetched here is
// found there and back: `<cache>/models--<entity>--<repo>/blobs/<etag>` holds the bytes,
// `snapshots/<commit>/<file>` links to it, `refs/<revision>` names the commit a branch resolved to. The cache folder
// is HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
// HF_HUB_OFFLINE=1, or a Hub that cannot be reached, reads the cache alone. (The client's own
// `downloadFileToCacheDir` names snapshots after the file's last commit and writes no refs, which the Python tools
// do not find; the layout is therefore written here, the bytes fetched with the client's `downloadFile`.)
//
// Environment, as the Python tools read it: HF_TOKEN (else the token file `huggingface-cli login` writes,
// HF_TOKEN_PATH or $HF_HOME/token), HF_ENDPOINT (the Hub's address: a mirror, or a local stand-in in the tests).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

import type { CommitOperation } from "@huggingface/hub";

const DEFAULT_ENDPOINT = "https://huggingface.co";
const VIDEO_PREVIEW = "replay.mp4";
const MODEL_CARD = "README.md";
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Where the Hub is: HF_ENDPOINT, as huggingface_hub reads it. */
export function hubEndpoint(env = process.env): string {
  return (env.HF_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "");
}

function hfHome(env: NodeJS.ProcessEnv): string {
  return env.HF_HOME || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "huggingface");
}

/** The Hub cache folder, as huggingface_hub's constants.py finds it. */
export function hubCacheDir(env = process.env): string {
  return env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || path.join(hfHome(env), "hub");
}

/** The access token: HF_TOKEN, else the file `huggingface-cli login` saved; null when there is none. */
export function hubToken(env = process.env): string | null {
  if (env.HF_TOKEN?.trim()) return env.HF_TOKEN.trim();
  try {
    const saved = fs.readFileSync(env.HF_TOKEN_PATH || path.join(hfHome(env), "token"), "utf8").trim();
    return saved || null;
  } catch {
    return null;
  }
}

function offline(env = process.env): boolean {
  return ["1", "ON", "YES", "TRUE"].includes((env.HF_HUB_OFFLINE ?? "").toUpperCase());
}

/** A failure of the Hub or of the way to it, as one line. */
export class HubError extends Error {
  override name = "HubError";
}

function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as Error & { cause?: unknown }).cause;
  if (e.message === "fetch failed" && cause instanceof Error)
    return `cannot reach the Hub (${(cause as NodeJS.ErrnoException).code ?? cause.message})`;
  const status = (e as { statusCode?: number }).statusCode;
  const first = e.message.split("\n")[0];
  return status !== undefined && !first.includes(String(status)) ? `HTTP ${status}: ${first}` : first;
}

// ---------------------------------------------------------------------------
// The model card
// ---------------------------------------------------------------------------

export interface ModelCardInput {
  algoName: string;
  envId: string;
  repoId: string;
  /** The variant's file name, e.g. `ppo_continuous_action.ts`. */
  script: string;
  /** The command line the run was started with, after the script. */
  argv: string[];
  args: Record<string, unknown>;
  episodicReturns: number[];
  /** The commit of this project the run used, when known. */
  commit?: string | null;
}

/** "mean +/- std" of the evaluation returns, as CleanRL writes `mean_reward` (numpy's average and population std). */
export function meanReward(returns: number[]): string {
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const std = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length);
  return `${mean.toFixed(2)} +/- ${std.toFixed(2)}`;
}

// A YAML scalar: plain when it cannot be read as anything but this string, else double-quoted (JSON's escapes are
// YAML's).
function yamlString(s: string): string {
  return /^[A-Za-z][\w./-]*$/.test(s) && !/^(true|false|yes|no|on|off|null)$/i.test(s) ? s : JSON.stringify(s);
}

/** The card's metadata block: the Hub's tags and model-index (what `metadata_eval_result` + `metadata_save` write). */
export function cardMetadata(input: Pick<ModelCardInput, "algoName" | "envId" | "episodicReturns">): string {
  const q = yamlString;
  return [
    "---",
    "tags:",
    `- ${q(input.envId)}`,
    "- deep-reinforcement-learning",
    "- reinforcement-learning",
    "- custom-implementation",
    "library_name: ppo.ts",
    "model-index:",
    `- name: ${q(input.algoName)}`,
    "  results:",
    "  - task:",
    "      type: reinforcement-learning",
    "      name: reinforcement-learning",
    "    dataset:",
    `      name: ${q(input.envId)}`,
    `      type: ${q(input.envId)}`,
    "    metrics:",
    "    - type: mean_reward",
    `      value: ${q(meanReward(input.episodicReturns))}`,
    "      name: mean_reward",
    "      verified: false",
    "---",
  ].join("\n");
}

function shellQuote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`;
}

/** README.md: the metadata block, then what the agent is, how to play it, how to reproduce it, its hyperparameters. */
export function modelCard(input: ModelCardInput): string {
  const raw = `${hubEndpoint()}/${input.repoId}/raw/main`;
  const command = ["npx", "tsx", input.script, ...input.argv].map(shellQuote).join(" ");
  const checkout = input.commit ? ` at commit \`${input.commit}\`` : "";
  return `${cardMetadata(input)}

# (ppo.ts) **${input.algoName}** agent playing **${input.envId}**

A ${input.algoName} agent trained on ${input.envId} by \`${input.script}\` of ppo.ts, CleanRL's PPO family in
TypeScript. The agent is \`${String(input.args.expName ?? "agent")}.safetensors\`: its parameters under the names of
CleanRL's \`Agent.state_dict()\` (it loads into CleanRL's PyTorch \`Agent\` with \`safetensors.torch.load_file\`), plus the
optimizer state and the run's progress under \`optimizer.*\` and in the metadata.

## Watch it play

\`\`\`bash
npx tsx ${input.script} --eval-checkpoint ${input.repoId} --capture-video
\`\`\`

The repository is downloaded into the Hugging Face cache (\`~/.cache/huggingface/hub\`, or \`HF_HUB_CACHE\`).

## Command to reproduce the training

In a checkout of ppo.ts${checkout}, with the \`package.json\` and \`package-lock.json\` of this repository:

\`\`\`bash
curl -OL ${raw}/${input.script}
curl -OL ${raw}/package.json
curl -OL ${raw}/package-lock.json
npm ci
${command}
\`\`\`

## Hyperparameters

\`\`\`json
${JSON.stringify(input.args, null, 2)}
\`\`\`
`;
}

// ---------------------------------------------------------------------------
// Upload
// ---------------------------------------------------------------------------

export interface PushOptions {
  args: Record<string, unknown> & { envId: string; expName: string; seed: number; hfEntity?: string | null };
  episodicReturns: number[];
  /** `runs/<run>`: every file in it is pushed (sub-folders, e.g. periodic checkpoints, are not). */
  folderPath: string;
  /** `videos/<run>-eval`: its .mp4 files are pushed, the last episode's also as replay.mp4; may be absent. */
  videoFolderPath?: string | null;
  /** The variant's own .ts file. */
  scriptPath: string;
  algoName?: string;
  /** The command line after the script (default: this process's). */
  argv?: string[];
  /** Where the one status line goes (default console.log). */
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** `<entity>/<env-id>-<exp-name>-seed<seed>` (CleanRL's repo name; without an entity, the token's own user). */
export function repoName(args: { envId: string; expName: string; seed: number }): string {
  // The Hub allows letters, digits, "-", "_" and "." in a name: an id like ALE/Breakout-v5 loses its slash.
  return `${args.envId}-${args.expName}-seed${args.seed}`.replace(/[^\w.-]/g, "-");
}

/** The latest video by the number in its name, as CleanRL picks the preview (`rl-video-episode-8.mp4` over `-2`). */
function latestVideo(names: string[]): string | undefined {
  const number = (n: string) => Number(path.basename(n, ".mp4").replace(/\D/g, "") || "0");
  return names
    .slice()
    .sort((a, b) => number(a) - number(b))
    .pop();
}

function gitCommit(): string | null {
  try {
    const head = fs.readFileSync(path.join(PROJECT_ROOT, ".git"), "utf8");
    // A worktree's .git is a file naming the real git directory.
    const gitDir = head.startsWith("gitdir:") ? head.slice(7).trim() : path.join(PROJECT_ROOT, ".git");
    return readHead(gitDir);
  } catch {
    try {
      return readHead(path.join(PROJECT_ROOT, ".git"));
    } catch {
      return null;
    }
  }
}

function readHead(gitDir: string): string | null {
  const head = fs.readFileSync(path.join(gitDir, "HEAD"), "utf8").trim();
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = head.replace(/^ref:\s*/, "");
  for (const dir of [
    gitDir,
    path.join(
      gitDir,
      fs.existsSync(path.join(gitDir, "commondir"))
        ? fs.readFileSync(path.join(gitDir, "commondir"), "utf8").trim()
        : ".",
    ),
  ]) {
    const file = path.join(dir, ref);
    if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
    const packed = path.join(dir, "packed-refs");
    if (fs.existsSync(packed)) {
      const line = fs
        .readFileSync(packed, "utf8")
        .split("\n")
        .find((l) => l.endsWith(` ${ref}`));
      if (line) return line.split(" ")[0];
    }
  }
  return null;
}

/**
 * CleanRL's `push_to_hub`. Returns the repo's URL, or null after one line saying why nothing was pushed (no token,
 * the Hub refused or could not be reached). Never throws: the run's own files are already saved.
 */
export async function pushToHub(opts: PushOptions): Promise<string | null> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const env = opts.env ?? process.env;
  const keep = `the run's files stay in ${opts.folderPath}`;
  const accessToken = hubToken(env);
  if (accessToken === null) {
    log(`hub: model not uploaded: no token (set HF_TOKEN, or run \`huggingface-cli login\`); ${keep}`);
    return null;
  }
  const hubUrl = hubEndpoint(env);
  let repoId = "";
  try {
    const hub = await import("@huggingface/hub");
    let entity = opts.args.hfEntity || "";
    if (!entity) entity = (await hub.whoAmI({ accessToken, hubUrl })).name;
    repoId = `${entity}/${repoName(opts.args)}`;
    const repo = { type: "model" as const, name: repoId };
    try {
      await hub.createRepo({ repo, accessToken, hubUrl });
    } catch (e) {
      // 409: the repo exists already (huggingface_hub's `exist_ok=True`).
      if ((e as { statusCode?: number }).statusCode !== 409) throw e;
    }

    const operations: CommitOperation[] = [];
    for await (const file of hub.listFiles({ repo, accessToken, hubUrl, recursive: true })) {
      if (file.type === "file" && (file.path.includes(".tfevents") || file.path.endsWith(".mp4")))
        operations.push({ operation: "delete", path: file.path });
    }

    const script = path.basename(opts.scriptPath);
    fs.writeFileSync(
      path.join(opts.folderPath, MODEL_CARD),
      modelCard({
        algoName: opts.algoName ?? "PPO",
        envId: opts.args.envId,
        repoId,
        script,
        argv: opts.argv ?? process.argv.slice(2),
        args: opts.args,
        episodicReturns: opts.episodicReturns,
        commit: gitCommit(),
      }),
    );
    const add = (file: string, pathInRepo: string) =>
      operations.push({ operation: "addOrUpdate", path: pathInRepo, content: pathToFileURL(path.resolve(file)) });
    const videoDir = opts.videoFolderPath;
    if (videoDir && fs.existsSync(videoDir)) {
      const videos = fs.readdirSync(videoDir).filter((n) => n.endsWith(".mp4"));
      for (const name of videos)
        add(path.join(videoDir, name), path.posix.join(videoDir.split(path.sep).join("/"), name));
      const latest = latestVideo(videos);
      if (latest !== undefined) add(path.join(videoDir, latest), VIDEO_PREVIEW);
    }
    for (const entry of fs.readdirSync(opts.folderPath, { withFileTypes: true })) {
      if (entry.isFile() && !/\.tmp-\d+$/.test(entry.name)) add(path.join(opts.folderPath, entry.name), entry.name);
    }
    add(opts.scriptPath, script);
    for (const lock of ["package.json", "package-lock.json"]) {
      const file = path.join(PROJECT_ROOT, lock);
      if (fs.existsSync(file)) add(file, lock);
    }
    await hub.commit({ repo, accessToken, hubUrl, title: "pushing model", operations });
    const url = `${hubUrl}/${repoId}`;
    log(`hub: model pushed to ${url}`);
    return url;
  } catch (e) {
    log(`hub: model not uploaded${repoId ? ` to ${repoId}` : ""}: ${reasonOf(e)}; ${keep}`);
    return null;
  }
}

/**
 * What a variant calls after its final save and evaluation when `--upload-model` is given: the run's folder and
 * evaluation videos as CleanRL names them (`runs/<run>`, `videos/<run>-eval`).
 */
export function uploadModel(
  args: PushOptions["args"] & { uploadModel?: boolean },
  episodicReturns: number[],
  runName: string,
  scriptPath: string,
): Promise<string | null> {
  return pushToHub({
    args,
    episodicReturns,
    folderPath: `runs/${runName}`,
    videoFolderPath: `videos/${runName}-eval`,
    scriptPath,
  });
}

// ---------------------------------------------------------------------------
// Download into the cache
// ---------------------------------------------------------------------------

export interface DownloadOptions {
  revision?: string;
  env?: NodeJS.ProcessEnv;
  /** Where one line about a download or an offline read goes (default console.error). */
  log?: (line: string) => void;
}

function repoFolder(cacheDir: string, repoId: string): string {
  return path.join(cacheDir, `models--${repoId.split("/").join("--")}`);
}

const COMMIT_HASH = /^[0-9a-f]{40}$/;

/** A file of the cache for `revision` (a commit, or a branch through refs/), or null. */
function cachedFile(storage: string, revision: string, filename: string): string | null {
  let commit = revision;
  if (!COMMIT_HASH.test(revision)) {
    try {
      commit = fs.readFileSync(path.join(storage, "refs", revision), "utf8").trim();
    } catch {
      return null;
    }
  }
  const file = path.join(storage, "snapshots", commit, filename);
  return fs.existsSync(file) ? file : null;
}

interface FileMetadata {
  commit: string;
  etag: string;
}

// huggingface_hub's `get_hf_file_metadata`: a HEAD request on the resolve URL, following only relative redirects
// (a renamed repo); for a large file the Hub answers with a redirect to its storage whose headers already carry
// the commit, the etag (X-Linked-Etag: the sha256 of the bytes) and the size.
async function fileMetadata(url: string, token: string | null): Promise<FileMetadata> {
  let res: Response;
  for (let hops = 0; ; hops++) {
    res = await fetch(url, {
      method: "HEAD",
      redirect: "manual",
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), "Accept-Encoding": "identity" },
      signal: AbortSignal.timeout(30_000),
    });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location?.startsWith("/") && hops < 5) {
      url = new URL(location, url).href;
      continue;
    }
    break;
  }
  if (res.status === 401 || res.status === 403)
    throw new HubError(`the Hub refuses access (HTTP ${res.status}): a private or gated repo needs HF_TOKEN`);
  if (res.status === 404) {
    const code = res.headers.get("x-error-code");
    throw new HubError(code === "EntryNotFound" ? "no such file in the repo" : "no such repo on the Hub (HTTP 404)");
  }
  // Any other failure (a 5xx, a proxy's answer) is, like no connection, a case for the cached copy.
  if (res.status >= 400) throw new Error(`HTTP ${res.status} from the Hub`);
  const commit = res.headers.get("x-repo-commit");
  const etag = (res.headers.get("x-linked-etag") ?? res.headers.get("etag") ?? "")
    .replace(/^W\//, "")
    .replace(/"/g, "");
  if (!commit || !etag) throw new HubError("the Hub's answer lacks X-Repo-Commit or ETag (not a Hub?)");
  return { commit, etag };
}

/**
 * `hf_hub_download(repo_id, filename, revision)`: the path of the file in the cache (downloaded when not there).
 * Throws HubError (one line) when it is neither in the cache nor obtainable.
 */
export async function hubDownload(repoId: string, filename: string, opts: DownloadOptions = {}): Promise<string> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => console.error(line));
  const revision = opts.revision ?? "main";
  const storage = repoFolder(hubCacheDir(env), repoId);
  if (offline(env)) {
    const hit = cachedFile(storage, revision, filename);
    if (hit) return hit;
    throw new HubError(`${repoId}/${filename} is not in the Hub cache ${hubCacheDir(env)} and HF_HUB_OFFLINE is set`);
  }
  const token = hubToken(env);
  const hubUrl = hubEndpoint(env);
  const url = `${hubUrl}/${repoId}/resolve/${encodeURIComponent(revision)}/${filename.split("/").map(encodeURIComponent).join("/")}`;
  let meta: FileMetadata;
  try {
    meta = await fileMetadata(url, token);
  } catch (e) {
    // huggingface_hub's fallback: without a connection the cached copy of this revision is used.
    const hit = e instanceof HubError ? null : cachedFile(storage, revision, filename);
    if (hit) {
      log(`hub: ${reasonOf(e)}; using the cached ${repoId}/${filename}`);
      return hit;
    }
    throw e instanceof HubError
      ? new HubError(`${repoId}/${filename}: ${e.message}`)
      : new HubError(`${repoId}/${filename}: ${reasonOf(e)}`);
  }
  if (revision !== meta.commit) {
    fs.mkdirSync(path.join(storage, "refs"), { recursive: true });
    fs.writeFileSync(path.join(storage, "refs", revision), meta.commit);
  }
  const pointer = path.join(storage, "snapshots", meta.commit, filename);
  if (fs.existsSync(pointer)) return pointer;
  const blob = path.join(storage, "blobs", meta.etag);
  if (!fs.existsSync(blob)) {
    const hub = await import("@huggingface/hub");
    log(`hub: downloading ${repoId}/${filename} into ${hubCacheDir(env)}`);
    fs.mkdirSync(path.dirname(blob), { recursive: true });
    const incomplete = `${blob}.incomplete`;
    try {
      const content = await hub.downloadFile({
        repo: { type: "model", name: repoId },
        path: filename,
        revision: meta.commit,
        hubUrl,
        ...(token ? { accessToken: token } : {}),
      });
      if (content === null) throw new HubError("no such file in the repo");
      await pipeline(
        Readable.fromWeb(content.stream() as import("node:stream/web").ReadableStream),
        fs.createWriteStream(incomplete),
      );
      fs.renameSync(incomplete, blob);
    } catch (e) {
      fs.rmSync(incomplete, { force: true });
      throw new HubError(`${repoId}/${filename}: download failed: ${reasonOf(e)}`);
    }
  }
  fs.mkdirSync(path.dirname(pointer), { recursive: true });
  // Relative, as huggingface_hub links them, so that the cache folder can move.
  fs.symlinkSync(path.relative(path.dirname(pointer), blob), pointer);
  return pointer;
}

/** The agent file of a repo: the one .safetensors at its root (ours), else the one .cleanrl_model (CleanRL's). */
async function agentFile(repoId: string, env: NodeJS.ProcessEnv): Promise<string> {
  let names: string[];
  if (offline(env)) {
    const storage = repoFolder(hubCacheDir(env), repoId);
    const hit = cachedFile(storage, "main", ".");
    if (!hit) throw new HubError(`${repoId} is not in the Hub cache ${hubCacheDir(env)} and HF_HUB_OFFLINE is set`);
    names = fs.readdirSync(hit);
  } else {
    const hub = await import("@huggingface/hub");
    names = [];
    try {
      const token = hubToken(env);
      for await (const f of hub.listFiles({
        repo: { type: "model", name: repoId },
        hubUrl: hubEndpoint(env),
        ...(token ? { accessToken: token } : {}),
      }))
        if (f.type === "file") names.push(f.path);
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      throw new HubError(
        status === 404 || status === 401
          ? `no model repo ${repoId} on the Hub (or it is private: set HF_TOKEN)`
          : `${repoId}: ${reasonOf(e)}`,
      );
    }
  }
  for (const ext of [".safetensors", ".cleanrl_model"]) {
    const found = names.filter((n) => n.endsWith(ext) && !n.includes("/"));
    if (found.length === 1) return found[0];
    if (found.length > 1)
      throw new HubError(
        `${repoId} holds several ${ext} files (${found.join(", ")}): name one as hf://${repoId}/<file>`,
      );
  }
  throw new HubError(
    `${repoId} holds no .safetensors or .cleanrl_model agent (files: ${names.slice(0, 6).join(", ")})`,
  );
}

/** A Hub reference (`<entity>/<repo>` or `hf://<entity>/<repo>[/<file>]`) as a file in the cache. */
export async function resolveHubReference(reference: string, env = process.env): Promise<string> {
  const parts = reference.replace(/^hf:\/\//, "").split("/");
  const repoId = parts.slice(0, 2).join("/");
  const file = parts.length > 2 ? parts.slice(2).join("/") : await agentFile(repoId, env);
  return hubDownload(repoId, file, { env });
}

// `node --import tsx envs/run/hub.ts resolve <reference>`: what envs/run/hub_reference.ts runs to read a Hub
// reference synchronously; its last stdout line is JSON {path} or {error}.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, reference] = process.argv.slice(2);
  if (command !== "resolve" || !reference) {
    console.error("usage: node --import tsx envs/run/hub.ts resolve <entity>/<repo>|hf://<entity>/<repo>/<file>");
    process.exit(2);
  }
  resolveHubReference(reference).then(
    (file) => console.log(JSON.stringify({ path: file })),
    (e: unknown) => {
      console.log(JSON.stringify({ error: e instanceof HubError ? e.message : `${reference}: ${reasonOf(e)}` }));
      process.exitCode = 1;
    },
  );
}
