// Finding, downloading and decoding procgen's images (envs/procgen/assets.ts): the lookup order, the download path
// against a local HTTP server on 127.0.0.1 serving a copy of the images, the sha256 check, the offline error, PNG
// decoding. The copy is $PROCGEN_ASSETS_DIR or ../shared/procgen_assets; tests that need it skip without it.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { PNG } from "pngjs";

import { AssetsNotFoundError, loadImage, neededFiles, readManifest, resolveAssetsDir } from "../envs/procgen/assets.ts";
import { IMAGE_SIZES } from "../envs/procgen/image_sizes.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = process.env.PROCGEN_ASSETS_DIR || resolve(ROOT, "../shared/procgen_assets");
const HAVE_SOURCE = existsSync(join(SOURCE, "misc_assets"));
const SKIP = HAVE_SOURCE ? false : `procgen images not found at ${SOURCE} (set PROCGEN_ASSETS_DIR)`;
/** Chaser needs the fewest bytes (15 files, 0.25 MB): every download here fetches only its images. */
const GAMES = ["chaser"];

const scratch = mkdtempSync(join(tmpdir(), "ppo-procgen-assets-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `fn` with environment variables set (undefined: removed) and restores them afterwards. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** A folder holding chaser's images copied from SOURCE. */
function copyOfChaserImages(name: string): string {
  const dir = join(scratch, name);
  for (const e of neededFiles(GAMES)) {
    mkdirSync(dirname(join(dir, e.path)), { recursive: true });
    copyFileSync(join(SOURCE, e.path), join(dir, e.path));
  }
  return dir;
}

/** Serves SOURCE on 127.0.0.1 (`corrupt`: that path is served with one byte flipped). Returns the base URL. */
async function serve(corrupt: string | null, requests: string[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? "/").slice(1));
    requests.push(rel);
    const file = join(SOURCE, rel);
    if (rel.includes("..") || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const body = readFileSync(file);
    if (rel === corrupt) body[body.length >> 1] ^= 0xff;
    res.writeHead(200, { "content-type": "image/png" }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("no port");
  return { url: `http://127.0.0.1:${addr.port}`, server };
}

/** No Python procgen (a python that does not exist) and an empty cache under `name`. */
function isolated(name: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PYTHON: join(scratch, "no-python"),
    XDG_CACHE_HOME: join(scratch, name),
    PROCGEN_ASSETS_DIR: undefined,
    PROCGEN_ASSETS_BASE_URL: undefined,
    ...extra,
  };
}

test("the manifest lists the 329 images with sizes and sha256, and their pixel sizes agree with image_sizes.ts", () => {
  const m = readManifest();
  assert.equal(m.length, 329);
  for (const e of m) {
    assert.match(e.sha256, /^[0-9a-f]{64}$/);
    assert.ok(e.bytes > 0 && e.usedBy.length > 0, e.path);
  }
  // Every image the engine knows the size of is in the manifest (so the download covers what the games draw).
  const paths = new Set(m.map((e) => e.path));
  for (const p of Object.keys(IMAGE_SIZES)) assert.ok(paths.has(p), p);
});

test(
  "lookup order: --procgen-assets-dir beats PROCGEN_ASSETS_DIR, which beats the user cache",
  { skip: SKIP },
  async () => {
    const named = copyOfChaserImages("named");
    const fromEnv = copyOfChaserImages("env");
    const cacheHome = join(scratch, "cache-order");
    copyOfChaserImages("cache-order/ppo.ts/procgen");
    await withEnv(isolated("cache-order", { PROCGEN_ASSETS_DIR: fromEnv }), async () => {
      assert.equal(await resolveAssetsDir({ assetsDir: named, download: false, games: GAMES }), named);
      assert.equal(await resolveAssetsDir({ download: false, games: GAMES }), fromEnv);
    });
    await withEnv(isolated("cache-order"), async () => {
      assert.equal(await resolveAssetsDir({ download: false, games: GAMES }), join(cacheHome, "ppo.ts", "procgen"));
    });
  },
);

test(
  "a named folder that lacks needed images is an error naming it, not a silent fallback",
  { skip: SKIP },
  async () => {
    const partial = copyOfChaserImages("partial");
    rmSync(join(partial, neededFiles(GAMES)[0].path));
    await withEnv(isolated("cache-partial"), async () => {
      await assert.rejects(
        resolveAssetsDir({ assetsDir: partial, games: GAMES }),
        (e: Error) =>
          e instanceof AssetsNotFoundError && e.message.includes(partial) && e.message.includes("--procgen-assets-dir"),
      );
    });
  },
);

test("a named folder with an image cut short reports that image as truncated, not as missing", async () => {
  // Files of the manifest's sizes stand in for the images (the lookup checks sizes); one is cut short, as an
  // interrupted copy leaves it.
  const dir = join(scratch, "cut-short");
  const files = neededFiles(GAMES);
  for (const e of files) {
    mkdirSync(dirname(join(dir, e.path)), { recursive: true });
    writeFileSync(join(dir, e.path), new Uint8Array(e.bytes));
  }
  const cut = files[1];
  writeFileSync(join(dir, cut.path), new Uint8Array(cut.bytes - 100));
  await withEnv(isolated("cache-cut-short"), async () => {
    await assert.rejects(resolveAssetsDir({ assetsDir: dir, games: GAMES }), (e: Error) => {
      assert.ok(e instanceof AssetsNotFoundError);
      assert.equal(
        e.message,
        `procgen image ${join(dir, cut.path)} (from --procgen-assets-dir) is truncated or damaged: ${cut.bytes - 100} bytes, procgen's has ${cut.bytes}`,
      );
      return true;
    });
  });
});

test("an image that cannot be decoded is reported as unreadable, truncated or damaged, naming the file", () => {
  const png = new PNG({ width: 4, height: 4 });
  const bytes = PNG.sync.write(png);
  const dir = join(scratch, "undecodable");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "cut.png"), bytes.subarray(0, bytes.length - 20));
  assert.throws(
    () => loadImage(dir, "cut.png"),
    (e: Error) =>
      new RegExp(
        `^procgen image ${join(dir, "cut.png")} is unreadable, truncated or damaged \\(.+\\): copy it again`,
      ).test(e.message) && !e.message.includes("\n"),
  );
});

test("with the images optional (--use-monochrome-assets) and none found, the lookup gives none without a 'not found'", async () => {
  const lines: string[] = [];
  const dir = await withEnv(isolated("cache-optional"), () =>
    resolveAssetsDir({ games: GAMES, optional: true, log: (l) => lines.push(l) }),
  );
  assert.equal(dir, null);
  assert.deepEqual(lines, [
    "--use-monochrome-assets without procgen's images: black backgrounds (--procgen-assets-dir draws procgen's)",
  ]);
});

test(
  "missing images are downloaded over HTTP into the cache, checked, with progress lines",
  { skip: SKIP },
  async () => {
    const requests: string[] = [];
    const { url, server } = await serve(null, requests);
    try {
      const lines: string[] = [];
      const dir = await withEnv(isolated("cache-dl", { PROCGEN_ASSETS_BASE_URL: url }), () =>
        resolveAssetsDir({ games: GAMES, log: (l) => lines.push(l) }),
      );
      assert.equal(dir, join(scratch, "cache-dl", "ppo.ts", "procgen"));
      const files = neededFiles(GAMES);
      assert.deepEqual(requests.sort(), files.map((e) => e.path).sort());
      for (const e of files) assert.deepEqual(readFileSync(join(dir, e.path)), readFileSync(join(SOURCE, e.path)));
      assert.match(lines.at(-1)!, new RegExp(`${files.length}/${files.length} files`));
      // A second lookup finds the cache complete and fetches nothing.
      requests.length = 0;
      await withEnv(isolated("cache-dl", { PROCGEN_ASSETS_BASE_URL: url }), () => resolveAssetsDir({ games: GAMES }));
      assert.equal(requests.length, 0);
    } finally {
      server.close();
    }
  },
);

test(
  "a downloaded file whose sha256 differs from the manifest is rejected and never lands in the cache",
  { skip: SKIP },
  async () => {
    const bad = neededFiles(GAMES)[3].path;
    const { url, server } = await serve(bad, []);
    try {
      await withEnv(isolated("cache-bad", { PROCGEN_ASSETS_BASE_URL: url }), async () => {
        await assert.rejects(
          resolveAssetsDir({ games: GAMES }),
          (e: Error) => e instanceof AssetsNotFoundError && e.message.includes(bad) && e.message.includes("sha256"),
        );
      });
      assert.equal(existsSync(join(scratch, "cache-bad", "ppo.ts", "procgen", bad)), false);
    } finally {
      server.close();
    }
  },
);

test("offline and not found: one error naming every place searched and --use-monochrome-assets", async () => {
  // A port nothing listens on: the download fails like an offline machine's.
  const { url, server } = await serve(null, []);
  await new Promise((ok) => server.close(ok));
  const err = await withEnv(isolated("cache-offline", { PROCGEN_ASSETS_BASE_URL: url }), () =>
    resolveAssetsDir({ games: GAMES }).then(
      () => null,
      (e: Error) => e,
    ),
  );
  assert.ok(err instanceof AssetsNotFoundError);
  for (const part of [
    "--procgen-assets-dir",
    "PROCGEN_ASSETS_DIR",
    "Python procgen package",
    join(scratch, "cache-offline", "ppo.ts", "procgen"),
    url,
    "--use-monochrome-assets",
  ]) {
    assert.ok(err.message.includes(part), `missing "${part}" in: ${err.message}`);
  }
  assert.equal(err.message.includes("\n"), false);
  // With downloading off the error says so instead of naming a URL.
  const off = await withEnv(isolated("cache-offline"), () =>
    resolveAssetsDir({ games: GAMES, download: false }).catch((e: Error) => e),
  );
  assert.ok(
    off instanceof AssetsNotFoundError &&
      off.message.includes("downloading is off") &&
      off.message.includes("--use-monochrome-assets"),
  );
});

test("loadImage decodes palette, RGB and RGBA PNGs to straight RGBA of the manifest's size", { skip: SKIP }, () => {
  // One file of each PNG colour type (MANIFEST.tsv's png_color_type column: 3 palette, 2 RGB, 6 RGBA).
  const rows = readFileSync(join(SOURCE, "MANIFEST.tsv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split("\t"));
  for (const colorType of ["2", "3", "6"]) {
    const row = rows.find((r) => r[5] === colorType && Number(r[1]) < 50000)!;
    const img = loadImage(SOURCE, row[0]);
    assert.equal(img.width, Number(row[3]));
    assert.equal(img.height, Number(row[4]));
    assert.equal(img.rgba.length, img.width * img.height * 4);
    if (colorType === "2") for (let i = 3; i < img.rgba.length; i += 4) assert.equal(img.rgba[i], 255);
    // Cached: the same object comes back.
    assert.equal(loadImage(SOURCE, row[0]), img);
  }
});
