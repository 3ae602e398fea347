// The game registry: procgen's env names to game classes. A game that is written and tested adds ONE line to
// GAMES (its import and its entry); games not listed are known names that `makeGame` refuses in one line.

import type { BasicAbstractGame, GameOptions } from "../game.ts";
import { BigFish } from "./bigfish.ts";
import { BossFight } from "./bossfight.ts";
import { StarPilot } from "./starpilot.ts";
import { Jumper } from "./jumper.ts";
import { CaveFlyer } from "./caveflyer.ts";
import { Dodgeball } from "./dodgeball.ts";
import { CoinRun } from "./coinrun.ts";
import { Ninja } from "./ninja.ts";
import { Climber } from "./climber.ts";
import { FruitBot } from "./fruitbot.ts";
import { Plunder } from "./plunder.ts";
import { Chaser } from "./chaser.ts";
import { Leaper } from "./leaper.ts";
import { Miner } from "./miner.ts";
import { Heist } from "./heist.ts";
import { Maze } from "./maze.ts";

export type GameClass = new (options: Partial<GameOptions>) => BasicAbstractGame;

/** Playable games. */
export const GAMES: Record<string, GameClass> = {
  bigfish: BigFish,
  bossfight: BossFight,
  starpilot: StarPilot,
  jumper: Jumper,
  caveflyer: CaveFlyer,
  dodgeball: Dodgeball,
  coinrun: CoinRun,
  ninja: Ninja,
  climber: Climber,
  fruitbot: FruitBot,
  plunder: Plunder,
  chaser: Chaser,
  leaper: Leaper,
  miner: Miner,
  heist: Heist,
  maze: Maze,
};

/** All 16 Procgen games (procgen's ENV_NAMES), available or not. */
export const ENV_NAMES = [
  "bigfish",
  "bossfight",
  "caveflyer",
  "chaser",
  "climber",
  "coinrun",
  "dodgeball",
  "fruitbot",
  "heist",
  "jumper",
  "leaper",
  "maze",
  "miner",
  "ninja",
  "plunder",
  "starpilot",
] as const;

/** Distribution modes each game accepts beyond easy (0) and hard (1): extreme 2, memory 10 (procgen's parse_options). */
export const EXTRA_MODES: Record<string, readonly number[]> = {
  chaser: [2],
  dodgeball: [2, 10],
  leaper: [2],
  starpilot: [2],
  caveflyer: [10],
  heist: [10],
  jumper: [10],
  maze: [10],
  miner: [10],
};

export function availableGames(): string[] {
  return Object.keys(GAMES).sort();
}

export function makeGame(name: string, options: Partial<GameOptions> = {}): BasicAbstractGame {
  const cls = GAMES[name];
  if (cls === undefined) {
    if ((ENV_NAMES as readonly string[]).includes(name))
      throw new Error(
        `procgen game "${name}" is not yet available in ppo.ts (available: ${availableGames().join(", ")})`,
      );
    throw new Error(`unknown procgen game "${name}" (procgen has: ${ENV_NAMES.join(", ")})`);
  }
  const mode = options.distributionMode ?? 1;
  if (mode !== 0 && mode !== 1 && !(EXTRA_MODES[name] ?? []).includes(mode))
    throw new Error(`procgen game "${name}" has no distribution mode ${mode}`);
  return new cls(options);
}
