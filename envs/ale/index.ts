// Registers the Atari games under ale-py's ids. Importing this module is what makes `make("BreakoutNoFrameskip-v4")`
// and `make("ALE/Breakout-v5")` work; the ROM itself is looked up when the env is made (see roms.ts).
//
//   {Game}NoFrameskip-v4: frameskip 1, repeat_action_probability 0, max_num_frames_per_episode 108000, minimal
//                         action set, no TimeLimit wrapper: ale-py 0.8's legacy registration, the one CleanRL runs
//                         on Gymnasium 0.29 (ale-py 0.7 used a TimeLimit of frameskip * 100k steps instead).
//   ALE/{Game}-v5:        frameskip 4, repeat_action_probability 0.25, max_num_frames_per_episode 108000 (30 minutes
//                         of play), minimal action set; no TimeLimit wrapper (ALE truncates by frames itself).

import { register } from "../gymnasium/registration.ts";
import { AtariEnv, type AtariEnvKwargs } from "./env.ts";
import { GAMES, type GameSpec } from "./games.ts";

export { ACTION_MEANINGS, Action } from "./controls.ts";
export { Atari2600 } from "./console.ts";
export { AtariEnv } from "./env.ts";
export type { AtariEnvKwargs, ObsType, RgbFrame } from "./env.ts";
export { BEAM_RIDER, BREAKOUT, GAMES, PONG, decimalScore, findGame } from "./games.ts";
export type { GameSettings, GameSpec } from "./games.ts";
export { ALEInterface } from "./interface.ts";
export { ROM_MD5S, RomNotFoundError, findRom } from "./roms.ts";

/** AtariEnv's keyword arguments besides renderMode; `make` rejects any other, as Python's TypeError would. */
const ACCEPTED_KWARGS = [
  "game",
  "mode",
  "difficulty",
  "obsType",
  "frameskip",
  "repeatActionProbability",
  "fullActionSpace",
  "maxNumFramesPerEpisode",
  "romDir",
  "rom",
];

/** Registers `spec` under both id families. Exported so tests can register a cartridge of their own. */
export function registerGame(spec: GameSpec, extraKwargs: Record<string, unknown> = {}): void {
  const spaceKinds = { action: "discrete", observation: extraKwargs.obsType === "ram" ? "vector" : "image" } as const;
  const noFrameskip = `${spec.name}NoFrameskip-v4`;
  register({
    id: noFrameskip,
    entryPoint: (kw) => new AtariEnv(kw as unknown as AtariEnvKwargs),
    acceptedKwargs: ACCEPTED_KWARGS,
    spaceKinds,
    kwargs: {
      game: spec.rom,
      obsType: "rgb",
      frameskip: 1,
      repeatActionProbability: 0,
      fullActionSpace: false,
      maxNumFramesPerEpisode: 108_000,
      ...extraKwargs,
    },
  });
  const v5 = `ALE/${spec.name}-v5`;
  register({
    id: v5,
    entryPoint: (kw) => new AtariEnv(kw as unknown as AtariEnvKwargs),
    acceptedKwargs: ACCEPTED_KWARGS,
    spaceKinds,
    kwargs: {
      game: spec.rom,
      frameskip: 4,
      repeatActionProbability: 0.25,
      fullActionSpace: false,
      maxNumFramesPerEpisode: 108_000,
      ...extraKwargs,
    },
  });
}

for (const spec of GAMES.values()) registerGame(spec);
