// Video recording, as `gymnasium.wrappers.RecordVideo` (0.29) and the `VideoRecorder` it drives
// (`gymnasium.wrappers.monitoring.video_recorder`). CleanRL wraps env 0 with it when `--capture-video` is set:
//   env = gym.wrappers.RecordVideo(env, f"videos/{run_name}")
//
// Gymnasium hands the frames to moviepy, which pipes them to ffmpeg. We talk to ffmpeg directly:
//
// - How frames reach ffmpeg. `Env.close()` is synchronous, and the video must be complete on disk when `close()`
//   (or the step that ends a recorded episode) returns, as it is in Gymnasium, where moviepy's `write_videofile`
//   runs synchronously inside `close_video_recorder()`. Node cannot wait synchronously for a child started with
//   `spawn`, and keeping a whole episode in memory for `spawnSync(..., { input })` costs 720 kB per CartPole frame
//   (360 MB for a 500-step episode; Gymnasium does keep them all in a Python list). So each captured frame is
//   appended to a temporary raw RGB24 file (a page-cache write), and when the video
//   closes we run `spawnSync(ffmpeg, ["-f", "rawvideo", ..., "-i", rawFile, ...])` once and delete the raw file.
//   That blocks the training loop for the encode, just as Gymnasium blocks in moviepy; and it only happens for the
//   few triggered episodes. A temporary
//   file also makes 0.29's "drop the frames captured so far" on `reset` (see `reset` below) a simple truncate.
// - Encoder: libx264 with yuv420p (what moviepy uses, and what browsers and W&B play), or ffmpeg's built-in
//   mpeg4 where the build has no libx264. yuv420p needs even dimensions: odd frames are padded by one pixel.
// - The mp4 is encoded under a temporary name and renamed into place, so anything watching the folder (W&B's
//   `monitor_gym` uploads new .mp4 files as they appear) never sees a half-written file.
// - No ffmpeg is not fatal: one warning, then the env runs exactly as without the wrapper (Gymnasium raises
//   `DependencyNotInstalled` when moviepy is missing; a training run should not die over its videos).

import { spawnSync } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

import { type Env, type Info, type ResetArgs, type StepResult, Wrapper } from "./core.ts";

/**
 * Gymnasium's default episode trigger, `capped_cubic_video_schedule`: the perfect cubes 0, 1, 8, 27, ..., 729
 * below 1000, then every 1000th episode (1000, 2000, ...). Python rounds `episode_id ** (1/3)`; `Math.cbrt` is
 * exact on perfect cubes, and both pick the same ids.
 */
export function cappedCubicVideoSchedule(episodeId: number): boolean {
  if (episodeId < 1000) return Math.round(Math.cbrt(episodeId)) ** 3 === episodeId;
  return episodeId % 1000 === 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Finding ffmpeg
// ---------------------------------------------------------------------------------------------------------------

export interface FfmpegSearch {
  /** Variables to read `FFMPEG_PATH` and `PATH` from; default `process.env`. Tests pass their own. */
  environ?: Record<string, string | undefined>;
  /** Also try the optional `@ffmpeg-installer/ffmpeg` npm package; default true. */
  npmPackage?: boolean;
}

export interface Ffmpeg {
  path: string;
  /** Where it was found. */
  source: "FFMPEG_PATH" | "@ffmpeg-installer/ffmpeg" | "PATH";
  /** The video codec we encode with: libx264 where the build has it, else ffmpeg's built-in mpeg4. */
  codec: "libx264" | "mpeg4";
}

export interface FfmpegLookup {
  ffmpeg: Ffmpeg | null;
  /** Why candidates were passed over (a broken FFMPEG_PATH, say), for the warning. */
  notes: string[];
}

const lookupCache = new Map<string, FfmpegLookup>();

/**
 * Finds a working ffmpeg, trying in order: the `FFMPEG_PATH` variable, the `@ffmpeg-installer/ffmpeg` npm
 * package if it happens to be installed (it is not a dependency of this project), and `ffmpeg` on `PATH`. A
 * candidate counts only if it runs and lists an encoder we can use. Results are cached per search.
 */
export function findFfmpeg(search: FfmpegSearch = {}): FfmpegLookup {
  const environ = search.environ ?? process.env;
  const npmPackage = search.npmPackage ?? true;
  const key = JSON.stringify([environ.FFMPEG_PATH ?? null, environ.PATH ?? null, npmPackage]);
  const cached = lookupCache.get(key);
  if (cached !== undefined) return cached;

  const notes: string[] = [];
  const candidates: Array<[source: Ffmpeg["source"], path: string | null]> = [
    ["FFMPEG_PATH", environ.FFMPEG_PATH || null],
    ["@ffmpeg-installer/ffmpeg", npmPackage ? ffmpegInstallerPath() : null],
    ["PATH", searchPath(environ.PATH)],
  ];
  let found: Ffmpeg | null = null;
  for (const [source, path] of candidates) {
    if (path === null) continue;
    const probe = probeFfmpeg(path);
    if ("problem" in probe) {
      notes.push(`${source === "PATH" ? "" : `${source}: `}${path} ${probe.problem}`);
      continue;
    }
    found = { path, source, codec: probe.codec };
    break;
  }
  const result = { ffmpeg: found, notes };
  lookupCache.set(key, result);
  return result;
}

/**
 * The binary path exported by `@ffmpeg-installer/ffmpeg`, or null when the package is absent or has no binary
 * for this platform. `createRequire` rather than `await import(...)`: the lookup runs inside the wrapper's
 * synchronous constructor, and the package is CommonJS, so a synchronous, optional require is the natural fit.
 */
function ffmpegInstallerPath(): string | null {
  try {
    const mod = createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path?: unknown };
    return typeof mod.path === "string" ? mod.path : null;
  } catch {
    return null;
  }
}

/** The first executable `ffmpeg` in the directories of `PATH`; we search ourselves so `environ` is honoured. */
function searchPath(pathVar: string | undefined): string | null {
  if (!pathVar) return null;
  const names = process.platform === "win32" ? ["ffmpeg.exe", "ffmpeg"] : ["ffmpeg"];
  for (const dir of pathVar.split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, fsConstants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return null;
}

/** Runs `ffmpeg -encoders`: the codec to use, or why the binary is unusable. */
function probeFfmpeg(path: string): { codec: Ffmpeg["codec"] } | { problem: string } {
  const out = spawnSync(path, ["-hide_banner", "-nostdin", "-encoders"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 20_000,
  });
  if (out.error !== undefined) {
    const code = (out.error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "does not exist" : `could not be run (${code ?? out.error.message})` };
  }
  if (out.status !== 0) return { problem: `exited with status ${out.status} on -encoders` };
  // Lines look like " V....D libx264              libx264 H.264 / AVC / MPEG-4 AVC ...".
  if (/^\s*V\S*\s+libx264\s/m.test(out.stdout)) return { codec: "libx264" };
  if (/^\s*V\S*\s+mpeg4\s/m.test(out.stdout)) return { codec: "mpeg4" };
  return { problem: "has neither the libx264 nor the mpeg4 encoder" };
}

/** Warnings printed once per process, keyed by their text. */
const warnedOnce = new Set<string>();
function warnOnce(message: string): void {
  if (warnedOnce.has(message)) return;
  warnedOnce.add(message);
  console.warn(message);
}

// ---------------------------------------------------------------------------------------------------------------
// One video: gymnasium's VideoRecorder
// ---------------------------------------------------------------------------------------------------------------

/** What `render()` must return for a frame to be recorded: `{ width, height, data }`, RGB24, row-major. */
interface RgbFrame {
  width: number;
  height: number;
  data: Uint8Array;
}

function asRgbFrame(frame: unknown): RgbFrame | null {
  if (typeof frame !== "object" || frame === null) return null;
  const { width, height, data } = frame as Partial<RgbFrame>;
  if (!Number.isInteger(width) || !Number.isInteger(height) || !(data instanceof Uint8Array)) return null;
  if (width! <= 0 || height! <= 0 || data.length !== width! * height! * 3) return null;
  return frame as RgbFrame;
}

/** Recorders whose raw file still exists, so an exit without `close()` can clean up (see `onExit`). */
const openRecorders = new Set<VideoRecorder>();
let exitHookInstalled = false;

class VideoRecorder {
  readonly metadataPath: string;
  private readonly tmpDir: string;
  private readonly rawPath: string;
  private fd: number | null;
  private bytes = 0;
  private frames = 0;
  private width = 0;
  private height = 0;
  /** 0.29's `broken`: render gave no frame once, so later frames are not captured. */
  private broken = false;
  closed = false;

  constructor(
    private readonly env: Env,
    readonly path: string,
    private readonly metadata: Record<string, unknown>,
    private readonly fps: number,
    private readonly ffmpeg: Ffmpeg,
    private readonly disableLogger: boolean,
  ) {
    // 0.29 writes `<name>.meta.json` next to the video when the recorder starts, and again when it closes.
    this.metadataPath = path.replace(/\.mp4$/, ".meta.json");
    this.metadata.content_type = "video/mp4";
    this.writeMetadata();
    this.tmpDir = mkdtempSync(join(tmpdir(), "rl-video-"));
    this.rawPath = join(this.tmpDir, "frames.rgb");
    this.fd = openSync(this.rawPath, "w");
    openRecorders.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once("exit", onExit);
    }
  }

  /** `VideoRecorder.capture_frame`: render the env and append the frame. */
  captureFrame(): void {
    if (this.closed || this.broken || this.fd === null) return;
    const rendered = this.env.render();
    const frame = asRgbFrame(rendered);
    if (frame === null) {
      // 0.29: "Env returned None on `render()`. Disabling further rendering for video recorder" (a warning, not
      // an error, since it points at a bug in the env rather than in the training code).
      console.warn(
        `RecordVideo: render() returned ${rendered === null ? "null" : "something other than an RGB frame"}; ` +
          `no further frames will be captured for ${this.path}`,
      );
      this.broken = true;
      return;
    }
    if (this.frames === 0) {
      this.width = frame.width;
      this.height = frame.height;
    } else if (frame.width !== this.width || frame.height !== this.height) {
      // A raw stream has one frame size; moviepy would fail here too.
      warnOnce(
        `RecordVideo: frame size changed from ${this.width}x${this.height} to ${frame.width}x${frame.height}; such frames are dropped`,
      );
      return;
    }
    try {
      let offset = 0;
      while (offset < frame.data.length) {
        offset += writeSync(this.fd, frame.data, offset, frame.data.length - offset, this.bytes + offset);
      }
    } catch (error) {
      // A full temp disk should cost us this video, not the training run.
      console.warn(
        `RecordVideo: could not buffer a frame for ${this.path} (${(error as Error).message}); video dropped`,
      );
      this.abandon();
      return;
    }
    this.bytes += frame.data.length;
    this.frames += 1;
  }

  /** 0.29's `reset` sets `video_recorder.recorded_frames = []` while recording: drop what was captured so far. */
  discardFrames(): void {
    if (this.fd === null) return;
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
    this.frames = 0;
  }

  get frameCount(): number {
    return this.frames;
  }

  /** `VideoRecorder.close`: encode the captured frames into `path` (synchronously), then update the metadata. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd === null) return; // abandoned
    closeSync(this.fd);
    this.fd = null;
    if (this.frames > 0) {
      this.encode();
    } else {
      // 0.29: "No frames captured. Set metadata." -- no video file, `empty: true` in the metadata.
      this.metadata.empty = true;
    }
    this.writeMetadata();
    this.removeTemp();
  }

  private encode(): void {
    const partPath = `${this.path}.part`;
    const args = [
      "-nostdin",
      "-y",
      "-hide_banner",
      "-loglevel",
      "error",
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-s",
      `${this.width}x${this.height}`,
      "-r",
      String(this.fps),
      "-i",
      this.rawPath,
      // yuv420p subsamples chroma 2x2, so both dimensions must be even; pad odd ones by a pixel (no-op if even).
      "-vf",
      "pad=ceil(iw/2)*2:ceil(ih/2)*2",
      "-c:v",
      this.ffmpeg.codec,
      ...(this.ffmpeg.codec === "mpeg4" ? ["-q:v", "4"] : []),
      "-pix_fmt",
      "yuv420p",
      "-f",
      "mp4",
      partPath,
    ];
    const started = performance.now();
    const out = spawnSync(this.ffmpeg.path, args, {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    if (out.error !== undefined || out.status !== 0) {
      const detail = out.error?.message ?? (out.stderr.trim().split("\n").pop() || `status ${out.status}`);
      console.warn(`RecordVideo: ffmpeg failed to write ${this.path} (${detail}); video dropped`);
      rmSync(partPath, { force: true });
      this.metadata.empty = true;
      return;
    }
    renameSync(partPath, this.path);
    if (!this.disableLogger) {
      // Stands in for moviepy's "Moviepy - video ready <path>" (what `disable_logger` silences in Gymnasium).
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`RecordVideo: video ready ${this.path} (${this.frames} frames, encoded in ${seconds} s)`);
    }
  }

  /** Gives up on this video without encoding it. */
  abandon(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    this.closed = true;
    this.removeTemp();
  }

  private removeTemp(): void {
    rmSync(this.tmpDir, { recursive: true, force: true });
    openRecorders.delete(this);
  }

  private writeMetadata(): void {
    writeFileSync(this.metadataPath, JSON.stringify(this.metadata));
  }
}

/**
 * A process that exits while a video is still open (no `close()`): 0.29's `VideoRecorder.__del__` only warns
 * "Unable to save last video! Did you call close()?", and so do we, after deleting the raw frames. Encoding here
 * instead would stall every crashing run for seconds.
 */
function onExit(): void {
  for (const recorder of openRecorders) {
    if (recorder.frameCount > 0)
      console.warn(`RecordVideo: unable to save last video ${recorder.path}! Did you call close()?`);
    recorder.abandon();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The wrapper
// ---------------------------------------------------------------------------------------------------------------

export interface RecordVideoOptions {
  /** Start recording at the episodes whose index (from 0) this returns true for. Default: `cappedCubicVideoSchedule`. */
  episodeTrigger?: ((episodeId: number) => boolean) | null;
  /** Or start recording at the steps whose global index (from 0) this returns true for. Exclusive with `episodeTrigger`. */
  stepTrigger?: ((stepId: number) => boolean) | null;
  /** 0 records whole episodes; n > 0 records clips of n + 1 frames that may span episodes (0.29 counts so). */
  videoLength?: number;
  /** File names are `{namePrefix}-episode-{id}.mp4` or `{namePrefix}-step-{id}.mp4`. */
  namePrefix?: string;
  /** Gymnasium silences moviepy's progress output with this; here it silences the "video ready" line. */
  disableLogger?: boolean;
  /** Where to look for ffmpeg; see `findFfmpeg`. */
  ffmpeg?: FfmpegSearch;
}

/**
 * Records videos of selected episodes (or step windows) to `videoFolder`, as `gymnasium.wrappers.RecordVideo`
 * (0.29): the frame rendered after `reset` and after every `step`, at `metadata.renderFps` frames per second
 * (30 if the env does not say). The env must render `rgb_array` frames.
 *
 * 0.29's bookkeeping is kept as is: `episodeId` counts finished episodes; a step that ends the episode being
 * recorded closes (and encodes) its video; `stepId` counts steps, but steps taken after an episode ended and
 * before the next `reset` are not counted (0.29's `terminated`/`truncated` latch); a recording that starts on the
 * last step of an episode drops that frame at the following `reset`. Only single envs are wrapped here, as in
 * CleanRL; 0.29's `is_vector_env` branch has no counterpart.
 */
export class RecordVideo<Obs = unknown, Act = unknown> extends Wrapper<Obs, Act> {
  readonly episodeTrigger: ((episodeId: number) => boolean) | null;
  readonly stepTrigger: ((stepId: number) => boolean) | null;
  readonly videoFolder: string;
  readonly namePrefix: string;
  readonly videoLength: number;
  readonly disableLogger: boolean;
  /** The ffmpeg videos are encoded with; null when none was found (videos disabled). */
  readonly ffmpeg: Ffmpeg | null;
  stepId = 0;
  episodeId = 0;
  recording = false;
  recordedFrames = 0;
  private videoRecorder: VideoRecorder | null = null;
  private terminated = false;
  private truncated = false;

  constructor(env: Env<Obs, Act>, videoFolder: string, options: RecordVideoOptions = {}) {
    super(env);
    // 0.29 raises ValueError for render modes that give no image.
    if (env.renderMode !== "rgb_array") {
      throw new Error(
        `RecordVideo: render mode is ${env.renderMode === null ? "null" : `"${env.renderMode}"`}, which is incompatible with RecordVideo. ` +
          `Initialize your environment with a render mode that returns an image: make(id, { renderMode: "rgb_array" })`,
      );
    }
    let { episodeTrigger = null, stepTrigger = null } = options;
    if (episodeTrigger === null && stepTrigger === null) episodeTrigger = cappedCubicVideoSchedule;
    // 0.29: `assert trigger_count == 1, "Must specify exactly one trigger"`.
    if (episodeTrigger !== null && stepTrigger !== null)
      throw new Error("RecordVideo: must specify exactly one trigger (episodeTrigger or stepTrigger)");
    this.episodeTrigger = episodeTrigger;
    this.stepTrigger = stepTrigger;
    this.videoLength = options.videoLength ?? 0;
    this.namePrefix = options.namePrefix ?? "rl-video";
    this.disableLogger = options.disableLogger ?? false;

    this.videoFolder = resolve(videoFolder);
    if (existsSync(this.videoFolder)) {
      console.warn(
        `RecordVideo: overwriting existing videos at ${this.videoFolder} folder ` +
          "(try specifying a different `videoFolder` for the `RecordVideo` wrapper if this is not desired)",
      );
    }
    mkdirSync(this.videoFolder, { recursive: true });

    const { ffmpeg, notes } = findFfmpeg(options.ffmpeg);
    this.ffmpeg = ffmpeg;
    if (ffmpeg === null) {
      const tried = notes.length > 0 ? ` (${notes.join("; ")})` : "";
      warnOnce(
        `RecordVideo: no ffmpeg found${tried}; videos disabled. Set FFMPEG_PATH, apt-get install ffmpeg, or npm install @ffmpeg-installer/ffmpeg`,
      );
    } else if (notes.length > 0) {
      warnOnce(`RecordVideo: ${notes.join("; ")}; using ${ffmpeg.path} (from ${ffmpeg.source})`);
    }
  }

  override reset(args: ResetArgs = {}): [Obs, Info] {
    const result = this.env.reset(args);
    this.terminated = false;
    this.truncated = false;
    if (this.recording) {
      this.videoRecorder!.discardFrames();
      this.videoRecorder!.captureFrame();
      this.recordedFrames += 1;
      if (this.videoLength > 0 && this.recordedFrames > this.videoLength) this.closeVideoRecorder();
    } else if (this.videoEnabled()) {
      this.startVideoRecorder();
    }
    return result;
  }

  override step(action: Act): StepResult<Obs> {
    const result = this.env.step(action);
    const [, , terminated, truncated] = result;
    if (!(this.terminated || this.truncated)) {
      this.stepId += 1;
      if (terminated || truncated) {
        this.episodeId += 1;
        this.terminated = terminated;
        this.truncated = truncated;
      }
      if (this.recording) {
        this.videoRecorder!.captureFrame();
        this.recordedFrames += 1;
        if (this.videoLength > 0) {
          if (this.recordedFrames > this.videoLength) this.closeVideoRecorder();
        } else if (terminated || truncated) {
          this.closeVideoRecorder();
        }
      } else if (this.videoEnabled()) {
        this.startVideoRecorder();
      }
    }
    return result;
  }

  /** 0.29's `start_video_recorder`: name the video by episode (episode trigger) or step (step trigger). */
  private startVideoRecorder(): void {
    this.closeVideoRecorder();
    if (this.ffmpeg === null) return; // videos disabled: skip the (costly) rendering too
    const name =
      this.episodeTrigger !== null
        ? `${this.namePrefix}-episode-${this.episodeId}`
        : `${this.namePrefix}-step-${this.stepId}`;
    this.videoRecorder = new VideoRecorder(
      this.env,
      join(this.videoFolder, `${name}.mp4`),
      { step_id: this.stepId, episode_id: this.episodeId },
      this.metadata.renderFps ?? 30,
      this.ffmpeg,
      this.disableLogger,
    );
    this.videoRecorder.captureFrame();
    this.recordedFrames = 1;
    this.recording = true;
  }

  private videoEnabled(): boolean {
    return this.stepTrigger !== null ? this.stepTrigger(this.stepId) : this.episodeTrigger!(this.episodeId);
  }

  /** 0.29's `close_video_recorder`: finish the current video, if any. */
  closeVideoRecorder(): void {
    if (this.recording) this.videoRecorder!.close();
    this.recording = false;
    this.recordedFrames = 1;
  }

  /** Closes the env, then finishes the video being recorded (0.29's order), so the file is complete on return. */
  override close(): void {
    super.close();
    this.closeVideoRecorder();
  }
}
