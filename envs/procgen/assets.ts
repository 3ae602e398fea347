// Procgen's images are data the project does not ship (their licences are the asset packs', see envs/procgen/README.md). This
// module finds a folder holding them (a copy of procgen's `procgen/data/assets/`), downloads what is missing into a
// user cache when allowed, and decodes PNGs for the renderer.
//
// Lookup order (the first folder holding every needed file wins):
//   1. the folder the user names (`--procgen-assets-dir`), 2. $PROCGEN_ASSETS_DIR,
//   3. an installed Python `procgen` package's `data/assets`, 4. the user cache ($XDG_CACHE_HOME or ~/.cache)/ppo.ts/procgen.
// A folder the user names (1 or 2) must be complete: we fail on it rather than silently using another one.
// Otherwise, when downloading is allowed, the missing files come from procgen's GitHub repository at the commit of
// procgen 0.10.7 (raw file URLs; $PROCGEN_ASSETS_BASE_URL overrides the base, e.g. for a local mirror), each checked
// against the size and sha256 in assets_manifest.tsv before it enters the cache.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";
import type { ProcgenImage } from "./render.ts";

/** openai/procgen at the head that ships 0.10.7 (the images have not changed since the initial commit). */
export const PROCGEN_COMMIT = "37b521dbb530f0734fd82f72d921f5e0e715c0d1";
export const DEFAULT_BASE_URL = `https://raw.githubusercontent.com/openai/procgen/${PROCGEN_COMMIT}/procgen/data/assets`;

export interface ManifestEntry {
  path: string;
  bytes: number;
  sha256: string;
  /** Games whose levels can show this image. */
  usedBy: string[];
}

let manifestCache: ManifestEntry[] | null = null;

/** The 329 images the 16 games use (assets_manifest.tsv, next to this file). */
export function readManifest(): ManifestEntry[] {
  if (manifestCache !== null) return manifestCache;
  const file = join(dirname(fileURLToPath(import.meta.url)), "assets_manifest.tsv");
  manifestCache = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0 && !line.startsWith("#"))
    .map((line) => {
      const [path, bytes, sha256, usedBy] = line.split("\t");
      return { path, bytes: Number(bytes), sha256, usedBy: usedBy.split(",") };
    });
  return manifestCache;
}

/** The files `games` need (all of them when no game is named). */
export function neededFiles(games?: readonly string[]): ManifestEntry[] {
  const all = readManifest();
  if (games === undefined || games.length === 0) return all;
  return all.filter((e) => e.usedBy.some((g) => games.includes(g)));
}

export interface ResolveOptions {
  /** The folder the user named (`--procgen-assets-dir`); null/undefined: not named. */
  assetsDir?: string | null;
  /** Download missing files into the user cache (default true). */
  download?: boolean;
  /** Progress and choices, one line each (default: silent). */
  log?: (line: string) => void;
  /** Only the images these games use (default: all 16 games' images). */
  games?: readonly string[];
  /**
   * The images are optional (`--use-monochrome-assets`, whose sprites need none): nothing is downloaded, and when
   * no folder holds them this resolves to null, logging that the backgrounds are drawn black, instead of failing.
   * A folder the user named must still be complete.
   */
  optional?: boolean;
}

/** Where downloaded images are kept: $XDG_CACHE_HOME/ppo.ts/procgen, else ~/.cache/ppo.ts/procgen. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ppo.ts", "procgen");
}

/** `<site-packages>/procgen/data/assets` of an installed Python procgen, or null (quietly) when there is none. */
export function pythonPackageAssetsDir(): string | null {
  // find_spec locates the package without importing it (no Qt/C++ library load): cheap, and any failure is silent.
  const code =
    "import importlib.util as u; s = u.find_spec('procgen'); print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')";
  try {
    const out = spawnSync(process.env.PYTHON ?? "python3", ["-c", code], {
      encoding: "utf8",
      timeout: 5000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const pkg = out.status === 0 ? out.stdout.trim() : "";
    return pkg === "" ? null : join(pkg, "data", "assets");
  } catch {
    return null;
  }
}

/** Needed files missing from `dir` or of another size than the manifest's (cut short by a copy, say). */
function missingFiles(dir: string, files: ManifestEntry[]): ManifestEntry[] {
  return files.filter((e) => sizeIn(dir, e) !== e.bytes);
}

/** The size of `e` in `dir`, or null when it is not there. */
function sizeIn(dir: string, e: ManifestEntry): number | null {
  try {
    return statSync(join(dir, e.path)).size;
  } catch {
    return null;
  }
}

/** What is wrong with a folder the user named: its first damaged image, else how many are missing. */
function describeIncomplete(what: string, dir: string, files: ManifestEntry[], wrong: ManifestEntry[]): string {
  const damaged = wrong.find((e) => sizeIn(dir, e) !== null);
  if (damaged !== undefined)
    return `procgen image ${join(dir, damaged.path)} (from ${what}) is truncated or damaged: ${sizeIn(dir, damaged)} bytes, procgen's has ${damaged.bytes}`;
  return `${what} ${dir} is not a copy of procgen's data/assets: ${wrong.length} of ${files.length} needed images missing (first: ${wrong[0].path})`;
}

export class AssetsNotFoundError extends Error {}

/** An image file that is there but cannot be decoded. */
export class AssetUnreadableError extends Error {}

/**
 * The folder to load procgen's images from, found or filled by download (see the lookup order at the top).
 * Throws AssetsNotFoundError with one readable message when nothing works.
 */
export async function resolveAssetsDir(opts: ResolveOptions & { optional: boolean }): Promise<string | null>;
export async function resolveAssetsDir(opts?: ResolveOptions): Promise<string>;
export async function resolveAssetsDir(opts: ResolveOptions = {}): Promise<string | null> {
  const files = neededFiles(opts.games);
  const log = opts.log ?? (() => {});
  const named: [string, string | null | undefined][] = [
    ["--procgen-assets-dir", opts.assetsDir],
    ["PROCGEN_ASSETS_DIR", process.env.PROCGEN_ASSETS_DIR],
  ];
  for (const [what, dir] of named) {
    if (dir === null || dir === undefined || dir === "") continue;
    const full = resolve(dir);
    const wrong = missingFiles(full, files);
    if (wrong.length > 0) throw new AssetsNotFoundError(describeIncomplete(what, full, files, wrong));
    return full;
  }
  const searched: string[] = [];
  const pyDir = pythonPackageAssetsDir();
  if (pyDir !== null) {
    if (missingFiles(pyDir, files).length === 0) {
      log(`procgen images: using the Python procgen package's ${pyDir}`);
      return pyDir;
    }
    searched.push(`the Python procgen package (${pyDir}, incomplete)`);
  } else {
    searched.push("an installed Python procgen package (none found)");
  }
  const cache = cacheDir();
  const missing = missingFiles(cache, files);
  if (missing.length === 0) return cache;
  searched.push(`the user cache ${cache} (${missing.length} of ${files.length} images missing)`);
  const baseUrl = process.env.PROCGEN_ASSETS_BASE_URL || DEFAULT_BASE_URL;
  const hint = "or pass --use-monochrome-assets to run with procgen's solid-colour sprites and no image files";
  if (opts.optional) {
    log("--use-monochrome-assets without procgen's images: black backgrounds (--procgen-assets-dir draws procgen's)");
    return null;
  }
  if (opts.download === false) {
    throw new AssetsNotFoundError(
      `procgen images not found; searched ${["--procgen-assets-dir (not given)", "PROCGEN_ASSETS_DIR (not set)", ...searched].join(", ")}; downloading is off: point --procgen-assets-dir or PROCGEN_ASSETS_DIR at a copy of procgen's data/assets, ${hint}`,
    );
  }
  try {
    await downloadFiles(baseUrl, cache, missing, log);
  } catch (err) {
    if (err instanceof ChecksumError) throw new AssetsNotFoundError(err.message);
    const why =
      err instanceof Error
        ? err.cause instanceof Error
          ? `${err.message}: ${err.cause.message}`
          : err.message
        : String(err);
    throw new AssetsNotFoundError(
      `procgen images not found; searched ${["--procgen-assets-dir (not given)", "PROCGEN_ASSETS_DIR (not set)", ...searched].join(", ")}; downloading from ${baseUrl} failed (${why}): point --procgen-assets-dir or PROCGEN_ASSETS_DIR at a copy of procgen's data/assets, ${hint}`,
    );
  }
  return cache;
}

export class ChecksumError extends Error {}

/** Fetches `files` from `baseUrl` into `dir`, verifying size and sha256 of each before it lands under its name. */
async function downloadFiles(
  baseUrl: string,
  dir: string,
  files: ManifestEntry[],
  log: (line: string) => void,
): Promise<void> {
  const total = files.reduce((s, e) => s + e.bytes, 0);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  log(`procgen images: downloading ${files.length} files (${mb(total)} MB) from ${baseUrl} into ${dir}`);
  let done = 0;
  let lastLogged = 0;
  for (let i = 0; i < files.length; i++) {
    const e = files[i];
    const url = `${baseUrl}/${e.path.split("/").map(encodeURIComponent).join("/")}`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
    const body = Buffer.from(await res.arrayBuffer());
    const sha = createHash("sha256").update(body).digest("hex");
    if (body.length !== e.bytes || sha !== e.sha256) {
      throw new ChecksumError(
        `procgen image ${e.path} from ${url} failed its check: expected ${e.bytes} bytes with sha256 ${e.sha256}, got ${body.length} bytes with sha256 ${sha}`,
      );
    }
    // Write then rename, so an interrupted download never leaves a truncated image under the real name.
    const target = join(dir, e.path);
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.part`;
    writeFileSync(tmp, body);
    renameSync(tmp, target);
    done += e.bytes;
    if (i === files.length - 1 || done - lastLogged >= total / 10) {
      lastLogged = done;
      log(`procgen images: ${i + 1}/${files.length} files, ${mb(done)}/${mb(total)} MB`);
    }
  }
}

const imageCache = new Map<string, ProcgenImage>();

/** Decodes `<assetsDir>/<relPath>` to straight RGBA (raw sample values, no gamma correction, like Qt's load). Cached. */
export function loadImage(assetsDir: string, relPath: string): ProcgenImage {
  const file = join(assetsDir, relPath);
  let img = imageCache.get(file);
  if (img === undefined) {
    if (!existsSync(file)) throw new AssetsNotFoundError(`procgen image ${relPath} not found in ${assetsDir}`);
    let png: PNG;
    try {
      png = PNG.sync.read(readFileSync(file));
    } catch (e) {
      throw new AssetUnreadableError(
        `procgen image ${file} is unreadable, truncated or damaged (${(e as Error).message}): copy it again from procgen's data/assets`,
      );
    }
    img = {
      width: png.width,
      height: png.height,
      rgba: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length),
    };
    imageCache.set(file, img);
  }
  return img;
}

/** `loadImage` bound to one folder: the engine's `images` option. */
export function imageLoader(assetsDir: string): (relPath: string) => ProcgenImage {
  return (relPath) => loadImage(assetsDir, relPath);
}
