// A contact sheet of the Procgen games: the first frame of one level of each of the 16 games (easy mode unless
// --distribution-mode hard; images found or downloaded by envs/procgen/assets.ts), 4 x 4 in procgen's ENV_NAMES
// order, each 64x64 observation drawn at 2x. A game not available yet is a grey tile. Lets a reader see at once that the games look like Procgen.
//
// Usage: npx tsx benchmark/procgen_contact_sheet.ts [--procgen-assets-dir DIR] [--level-seed 0] [--scale 2]
//        [--distribution-mode easy]
//        [--out benchmark/plots/procgen_contact_sheet.png]

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PNG } from "pngjs";

import { bool, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { imageLoader, resolveAssetsDir } from "../envs/procgen/assets.ts";
import { EASY_MODE, HARD_MODE, RES } from "../envs/procgen/game.ts";
import { ENV_NAMES, GAMES, makeGame } from "../envs/procgen/games/index.ts";

handleExits(); // a bad command line or a failure below is one `error:` line, exit 2 / 1
const args = parseArgs(
  {
    procgenAssetsDir: str(null, "a copy of procgen's data/assets (default: looked up, downloaded when missing)"),
    useMonochromeAssets: bool(false, "draw procgen's solid-colour sprites instead of images"),
    levelSeed: int(0, "the level seed shown for every game"),
    distributionMode: str("easy", "easy or hard"),
    scale: int(2, "pixels per observation pixel"),
    out: str("benchmark/plots/procgen_contact_sheet.png", "where the PNG goes"),
  },
  "the first frames of all Procgen games as one PNG",
  "benchmark/procgen_contact_sheet.ts",
);

if (args.distributionMode !== "easy" && args.distributionMode !== "hard")
  usageError(`--distribution-mode must be easy or hard, got "${args.distributionMode}"`);
const mode = args.distributionMode === "easy" ? EASY_MODE : HARD_MODE;
const images = args.useMonochromeAssets
  ? null
  : imageLoader(await resolveAssetsDir({ assetsDir: args.procgenAssetsDir, log: (l) => console.log(l) }));
const cols = 4;
const gap = 4;
const tile = RES * args.scale;
const side = cols * tile + (cols + 1) * gap;
const sheet = new PNG({ width: side, height: side });
sheet.data.fill(255);
const frame = new Uint8Array(RES * RES * 3);
ENV_NAMES.forEach((name, k) => {
  const x0 = gap + (k % cols) * (tile + gap);
  const y0 = gap + Math.trunc(k / cols) * (tile + gap);
  if (GAMES[name] === undefined) {
    frame.fill(128);
  } else {
    const game = makeGame(name, { distributionMode: mode, useMonochromeAssets: args.useMonochromeAssets, images });
    game.seedLevels(0, args.levelSeed, args.levelSeed + 1);
    game.reset();
    game.observe(frame);
  }
  for (let y = 0; y < tile; y++) {
    for (let x = 0; x < tile; x++) {
      const src = (Math.trunc(y / args.scale) * RES + Math.trunc(x / args.scale)) * 3;
      const dst = ((y0 + y) * side + x0 + x) * 4;
      sheet.data[dst] = frame[src];
      sheet.data[dst + 1] = frame[src + 1];
      sheet.data[dst + 2] = frame[src + 2];
      sheet.data[dst + 3] = 255;
    }
  }
});
mkdirSync(dirname(args.out), { recursive: true });
writeFileSync(args.out, PNG.sync.write(sheet));
const available = ENV_NAMES.filter((n) => GAMES[n] !== undefined);
console.log(
  `wrote ${args.out}: ${available.length}/16 games (${available.join(", ")}), level seed ${args.levelSeed}; grey tiles: not yet available`,
);
