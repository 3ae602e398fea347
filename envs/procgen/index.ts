// Registers the Gymnasium ids `procgen-{game}-v0` for the playable games (importing envs/gymnasium/index.ts does it) and
// re-exports the Procgen API: `gym.procgen.ProcgenEnv` is the vector env CleanRL trains on.
//
// Images: `make("procgen-starpilot-v0", { assetsDir })`, else the folder in PROCGEN_ASSETS_DIR; with
// `useMonochromeAssets: true` or `useGeneratedAssets: true` no image file is needed. (ppo_procgen.ts finds or
// downloads the folder first, with `findAssets` below, and passes it down.)
export { AssetsNotFoundError, imageLoader, resolveAssetsDir } from "./assets.ts";

import { register } from "../gymnasium/registration.ts";
import { usageError } from "../run/cli.ts";
import { ProcgenGymEnv, type ProcgenOptions } from "./env.ts";
import { EASY_MODE, type ImageLoader } from "./game.ts";
import { availableGames, makeGame } from "./games/index.ts";
import { AssetsNotFoundError, imageLoader, resolveAssetsDir } from "./assets.ts";

export { NUM_ACTIONS, OBS_SHAPE, OBS_SIZE, ProcgenEnv, ProcgenGymEnv, makeGames } from "./env.ts";
export type { ProcgenOptions } from "./env.ts";
export { ENV_NAMES, GAMES, availableGames, makeGame } from "./games/index.ts";
export { BasicAbstractGame, DEFAULT_GAME_OPTIONS, EASY_MODE, EXTREME_MODE, HARD_MODE, MEMORY_MODE } from "./game.ts";
export type { GameOptions, ImageLoader } from "./game.ts";

/** The keyword arguments of the gym ids (procgen's ProcgenGym3Env options, camelCase) besides renderMode. */
const ACCEPTED_KWARGS = [
  "envName",
  "numLevels",
  "startLevel",
  "distributionMode",
  "randSeed",
  "useBackgrounds",
  "restrictThemes",
  "useMonochromeAssets",
  "centerAgent",
  "paintVelInfo",
  "useSequentialLevels",
  "useGeneratedAssets",
  "assetsDir",
];

/**
 * The image loader for `assetsDir` (or PROCGEN_ASSETS_DIR); null with monochrome or generated assets and no folder. Synchronous,
 * so it never downloads: `resolveAssetsDir` (assets.ts) finds or downloads a folder first.
 */
export function imagesFor(assetsDir: string | null | undefined, monochrome: boolean): ImageLoader | null {
  const dir = assetsDir || process.env.PROCGEN_ASSETS_DIR || null;
  if (dir === null) {
    if (monochrome) return null;
    throw new AssetsNotFoundError(
      "procgen images not found: pass assetsDir (resolveAssetsDir in envs/procgen/assets.ts finds or downloads them), set PROCGEN_ASSETS_DIR to a copy of procgen's data/assets, or use useMonochromeAssets",
    );
  }
  return imageLoader(dir);
}

/**
 * The images folder a ppo_procgen.ts run uses, from its flags: found or downloaded once (`resolveAssetsDir`; a
 * training run's game only, an evaluation's checkpoint may name any), or null where --use-monochrome-assets needs
 * none and none are at hand, or where --list-envs only lists. --env-id is checked to be a ported game first. Each
 * failure is one usage-error line.
 */
export async function findAssets(args: {
  envId: string;
  evalCheckpoint: string | null;
  procgenAssetsDir: string | null;
  useMonochromeAssets: boolean;
  listEnvs: boolean;
}): Promise<string | null> {
  if (args.listEnvs) return null;
  try {
    makeGame(args.envId, { distributionMode: EASY_MODE, useMonochromeAssets: true });
  } catch (e) {
    usageError((e as Error).message);
  }
  try {
    return await resolveAssetsDir({
      assetsDir: args.procgenAssetsDir,
      optional: args.useMonochromeAssets,
      log: console.log,
      games: args.evalCheckpoint === null ? [args.envId] : undefined,
    });
  } catch (e) {
    if (e instanceof AssetsNotFoundError) usageError(e.message);
    throw e;
  }
}

for (const name of availableGames()) {
  register({
    id: `procgen-${name}-v0`,
    entryPoint: ({ renderMode, assetsDir, ...kw }) => {
      const options = { envName: name, ...kw } as unknown as ProcgenOptions;
      return new ProcgenGymEnv(
        {
          ...options,
          images: imagesFor(
            assetsDir as string | null | undefined,
            (options.useMonochromeAssets ?? false) || (options.useGeneratedAssets ?? false),
          ),
        },
        renderMode ?? null,
      );
    },
    acceptedKwargs: ACCEPTED_KWARGS,
    kwargs: { distributionMode: "hard" },
  });
}
