// PettingZoo's multi-agent Atari environments (`pettingzoo.atari.<name>.parallel_env()`), over Multi-Agent ALE
// (envs/ale with a MultiAgentGameSpec). PettingZoo's current Parallel API:
//
//   const env = atari.parallelEnv("pong_v3", { romDir });
//   const [observations, infos] = env.reset({ seed: 1 });          // keyed by agent: first_0, second_0, ...
//   const [obs, rewards, terminations, truncations, infos] = env.step({ first_0: 1, second_0: 3 });
//
// One `step` is one emulator frame ("cycle"): every agent's action goes to its own controller, each player gets its
// own reward from RAM. Truncation after `maxCycles` frames (default 100000); termination when the game is over, or
// for one agent when its lives go negative. Every agent sees the same observation. Facts: PettingZoo notes 1.1-1.6.

import { randomSeed } from "../torch/rng.ts";
import { Box, Discrete, type Space } from "../gymnasium/spaces.ts";
import { ACTION_MEANINGS } from "../ale/controls.ts";
import type { RgbFrame } from "../ale/env.ts";
import { ALEInterface } from "../ale/interface.ts";
import { MULTI_AGENT_GAMES, type MultiAgentGameSpec } from "../ale/multi_agent_games.ts";
import { findRom } from "../ale/roms.ts";
import { screenToRgb } from "../ale/palette.ts";
import type { AgentDict, DeferredStepResult, ParallelEnv, ParallelStepResult } from "./parallel.ts";

export type AtariObsType = "rgb_image" | "grayscale_image" | "ram";

export interface AtariEnvOptions {
  /** Folder searched first for `<rom>.bin` (else ALE_ROMS_DIR, else an installed ale-py's roms/). */
  romDir?: string | null;
  obsType?: AtariObsType;
  fullActionSpace?: boolean;
  /** Frames after which every agent is truncated (PettingZoo's max_cycles). */
  maxCycles?: number;
  renderMode?: "rgb_array" | null;
  /** Multi-Agent ALE mode number; default: the env's own choice (the table below). Must be a mode for its player count. */
  modeNum?: number | null;
  /** Player count for the envs that offer 2 or 4. */
  numPlayers?: number;
  /** pong_v3's, combat_plane_v2's ("bi-plane" / "jet") and maze_craze_v3's ("robbers" / "race" / "capture") `game_version`. */
  gameVersion?: string;
  /** combat_plane_v2 (default true). */
  guidedMissile?: boolean;
  /** combat_tank_v2 (defaults true, false, true). */
  hasMaze?: boolean;
  isInvisible?: boolean;
  billiardHit?: boolean;
  /** space_invaders_v2 (defaults false, true, false, false, false). */
  alternatingControl?: boolean;
  movingShields?: boolean;
  zigzagingBombs?: boolean;
  fastBomb?: boolean;
  invisibleInvaders?: boolean;
  /** maze_craze_v3's `visibilty_level` 0-3 (default 0: the maze fully visible). */
  visibilityLevel?: number;
}

/** One row of PettingZoo's Atari table (notes 1.6): ROM, players and how the mode is chosen. */
interface AtariEnvEntry {
  rom: string;
  /** Default player count; `players` lists the allowed ones. */
  numPlayers: number;
  players: readonly number[];
  /** The mode the env passes to ALE with these options (undefined: the first mode for the player count). */
  mode?: (o: AtariEnvOptions) => number | undefined;
}

const PONG_VERSIONS: Record<string, [number, number | null]> = {
  classic: [4, 6],
  two_paddles: [10, 11],
  soccer: [14, 16],
  foozpong: [19, 21],
  hockey: [27, 29],
  quadrapong: [-1, 33],
  handball: [35, 37],
  volleyball: [39, 41],
  basketball: [45, 49],
};
const byPlayers = (two: number, four: number) => (o: AtariEnvOptions) => ((o.numPlayers ?? 2) === 4 ? four : two);

/** A `game_version` option's mode from its table (PettingZoo asserts on an unknown one). */
function versionMode(envId: string, versions: Record<string, number>, version: string): number {
  const mode = versions[version];
  if (mode === undefined)
    throw new Error(`${envId}: unknown game_version "${version}"; one of ${Object.keys(versions).join(", ")}`);
  return mode;
}
const COMBAT_PLANE_VERSIONS = { "bi-plane": 15, jet: 21 };
const MAZE_CRAZE_VERSIONS = { robbers: 2, race: 1, capture: 12 };
/** combat_tank_v2's first mode by (is_invisible, billiard_hit); a maze adds 1. */
const COMBAT_TANK_MODES: Record<string, number> = {
  "false,false": 1,
  "false,true": 8,
  "true,false": 10,
  "true,true": 13,
};

/** The 24 `pettingzoo.atari` envs. Combat, maze_craze and space_war are PAL cartridges (notes 2.8). */
export const ATARI_ENVS: Readonly<Record<string, AtariEnvEntry>> = {
  basketball_pong_v3: { rom: "pong", numPlayers: 2, players: [2, 4], mode: byPlayers(45, 49) },
  boxing_v2: { rom: "boxing", numPlayers: 2, players: [2] },
  combat_plane_v2: {
    rom: "combat",
    numPlayers: 2,
    players: [2],
    mode: (o) =>
      versionMode("combat_plane_v2", COMBAT_PLANE_VERSIONS, o.gameVersion ?? "bi-plane") +
      ((o.guidedMissile ?? true) ? 0 : 1),
  },
  combat_tank_v2: {
    rom: "combat",
    numPlayers: 2,
    players: [2],
    mode: (o) =>
      COMBAT_TANK_MODES[`${o.isInvisible ?? false},${o.billiardHit ?? true}`] + ((o.hasMaze ?? true) ? 1 : 0),
  },
  double_dunk_v3: { rom: "double_dunk", numPlayers: 2, players: [2] },
  entombed_competitive_v3: { rom: "entombed", numPlayers: 2, players: [2], mode: () => 2 },
  entombed_cooperative_v3: { rom: "entombed", numPlayers: 2, players: [2], mode: () => 3 },
  flag_capture_v2: { rom: "flag_capture", numPlayers: 2, players: [2] },
  foozpong_v3: { rom: "pong", numPlayers: 4, players: [2, 4], mode: (o) => ((o.numPlayers ?? 4) === 4 ? 21 : 19) },
  ice_hockey_v2: { rom: "ice_hockey", numPlayers: 2, players: [2] },
  joust_v3: { rom: "joust", numPlayers: 2, players: [2] },
  mario_bros_v3: { rom: "mario_bros", numPlayers: 2, players: [2] },
  maze_craze_v3: {
    rom: "maze_craze",
    numPlayers: 2,
    players: [2],
    mode: (o) => {
      const level = o.visibilityLevel ?? 0;
      if (!(Number.isInteger(level) && level >= 0 && level < 4))
        throw new Error(`maze_craze_v3: visibilty_level must be 0-3, got ${level}`);
      return (versionMode("maze_craze_v3", MAZE_CRAZE_VERSIONS, o.gameVersion ?? "robbers") - 1) * 4 + level;
    },
  },
  othello_v3: { rom: "othello", numPlayers: 2, players: [2] },
  pong_v3: {
    rom: "pong",
    numPlayers: 2,
    players: [2, 4],
    mode: (o) => {
      const version = o.gameVersion ?? "classic";
      const modes = PONG_VERSIONS[version];
      if (modes === undefined)
        throw new Error(`pong_v3: unknown game_version "${version}"; one of ${Object.keys(PONG_VERSIONS).join(", ")}`);
      const mode = (o.numPlayers ?? 2) === 4 ? modes[1] : modes[0];
      if (mode === null || mode < 0)
        throw new Error(`pong_v3: game_version "${version}" has no ${o.numPlayers ?? 2}-player mode`);
      return mode;
    },
  },
  quadrapong_v4: { rom: "pong", numPlayers: 4, players: [4], mode: () => 33 },
  space_invaders_v2: {
    rom: "space_invaders",
    numPlayers: 2,
    players: [2],
    mode: (o) =>
      33 +
      ((o.movingShields ?? true) ? 1 : 0) +
      (o.zigzagingBombs ? 2 : 0) +
      (o.fastBomb ? 4 : 0) +
      (o.invisibleInvaders ? 8 : 0) +
      (o.alternatingControl ? 16 : 0),
  },
  space_war_v2: { rom: "space_war", numPlayers: 2, players: [2] },
  surround_v2: { rom: "surround", numPlayers: 2, players: [2] },
  tennis_v3: { rom: "tennis", numPlayers: 2, players: [2] },
  video_checkers_v4: { rom: "video_checkers", numPlayers: 2, players: [2] },
  volleyball_pong_v3: {
    rom: "pong",
    numPlayers: 4,
    players: [2, 4],
    mode: (o) => ((o.numPlayers ?? 4) === 4 ? 41 : 39),
  },
  warlords_v3: { rom: "warlords", numPlayers: 4, players: [4] },
  wizard_of_wor_v3: { rom: "wizard_of_wor", numPlayers: 2, players: [2] },
};

/** Agent names in player order (PettingZoo's `first_0`, `second_0`, ...). */
const AGENT_NAMES = ["first_0", "second_0", "third_0", "fourth_0"];

/** `pettingzoo.atari.<envId>.parallel_env(...)`. */
export function parallelEnv(envId: string, options: AtariEnvOptions = {}): ParallelAtariEnv {
  const entry = ATARI_ENVS[envId];
  if (entry === undefined)
    throw new Error(`unknown PettingZoo Atari env "${envId}"; one of ${Object.keys(ATARI_ENVS).join(", ")}`);
  const spec = MULTI_AGENT_GAMES.get(entry.rom);
  if (spec === undefined) throw new Error(`${envId}: no Multi-Agent ALE settings for the ${entry.rom} ROM`);
  const numPlayers = options.numPlayers ?? entry.numPlayers;
  if (!entry.players.includes(numPlayers))
    throw new Error(`${envId}: num_players must be one of ${entry.players.join(", ")}, got ${numPlayers}`);
  return new ParallelAtariEnv(envId, spec, numPlayers, {
    ...options,
    modeNum: options.modeNum ?? entry.mode?.({ ...options, numPlayers }) ?? null,
  });
}

/** PettingZoo's ParallelAtariEnv (`pettingzoo/atari/base_atari_env.py`). */
export class ParallelAtariEnv implements ParallelEnv<Uint8Array, number> {
  readonly metadata = { renderModes: ["human", "rgb_array"], name: "" };
  readonly possibleAgents: string[];
  agents: string[] = [];
  readonly ale: ALEInterface;
  readonly renderMode: "rgb_array" | null;
  readonly mode: number;
  private readonly actionMapping: number[];
  private readonly obsType: AtariObsType;
  private readonly maxCycles: number;
  private readonly obsSpace: Box;
  private readonly actSpace: Discrete;
  private frame = 0;
  /** Reused action vector for the ALE (one entry per player). */
  private readonly aleActions: number[];
  private seeded = false;
  /** allLives() output, reused every frame. */
  private readonly livesOut: number[] = [];

  constructor(
    readonly envId: string,
    readonly game: MultiAgentGameSpec,
    readonly numPlayers: number,
    options: AtariEnvOptions,
  ) {
    const {
      obsType = "rgb_image",
      fullActionSpace = false,
      maxCycles = 100000,
      renderMode = null,
      romDir = null,
    } = options;
    if (!["rgb_image", "grayscale_image", "ram"].includes(obsType))
      throw new Error(`obs_type must be rgb_image, grayscale_image or ram, got ${obsType}`);
    if (!(Number.isInteger(maxCycles) && maxCycles > 0))
      throw new Error(`max_cycles must be a positive integer, got ${maxCycles}`);
    if (renderMode !== null && renderMode !== "rgb_array")
      throw new Error(`render_mode ${renderMode} not supported (rgb_array)`);
    this.metadata.name = envId;
    this.obsType = obsType;
    this.maxCycles = maxCycles;
    this.renderMode = renderMode;
    const modes = game.playerModes[numPlayers as 1 | 2 | 4];
    const mode = options.modeNum ?? modes[0];
    if (!modes.includes(mode))
      throw new Error(`${envId}: mode_num ${mode} is not a ${numPlayers}-player mode; available: ${modes.join(", ")}`);
    this.mode = mode;
    const rom = findRom(game.rom, game.md5, { romDir }).bytes;
    // PettingZoo: repeat_action_probability 0 (sticky actions off); ALE frame_skip 1; no ALE-side frame budget.
    this.ale = new ALEInterface(game, rom, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0, mode }, () => 0);
    if (this.ale.numPlayersActive() !== numPlayers)
      throw new Error(`${envId}: mode ${mode} is for ${this.ale.numPlayersActive()} players, not ${numPlayers}`);
    this.actionMapping = fullActionSpace ? this.ale.getLegalActionSet() : this.ale.getMinimalActionSet();
    this.actSpace = new Discrete(this.actionMapping.length);
    const [height, width] = this.ale.getScreenDims();
    const shape = obsType === "ram" ? [128] : obsType === "grayscale_image" ? [height, width, 1] : [height, width, 3];
    this.obsSpace = new Box(0, 255, shape, "uint8");
    this.possibleAgents = AGENT_NAMES.slice(0, numPlayers);
    this.aleActions = new Array(numPlayers).fill(0);
  }

  observationSpace(_agent: string): Space {
    return this.obsSpace;
  }

  actionSpace(_agent: string): Discrete {
    return this.actSpace;
  }

  get maxNumAgents(): number {
    return this.possibleAgents.length;
  }

  get numAgents(): number {
    return this.agents.length;
  }

  /**
   * A seed reloads the ROM with ALE random_seed = seed (the system generator behind power-on RAM and RIOT timers);
   * without one the episode continues from the emulator's state, as PettingZoo's reset does. An env never seeded
   * draws a random 32-bit seed first (PettingZoo 1.18.1's constructor, which CleanRL's numbers used).
   */
  reset(
    args: { seed?: number; options?: Record<string, unknown> } = {},
  ): [AgentDict<Uint8Array>, AgentDict<Record<string, unknown>>] {
    if (args.seed !== undefined || !this.seeded) {
      // ALE's random_seed is a C int. The ROM load runs one reset in the ROM's default mode, then reset_game one
      // in ours (resetGame with reload does both).
      this.ale.setRandomSeed((args.seed ?? randomSeed()) | 0);
      this.ale.resetGame(0, true);
      this.seeded = true;
    } else {
      this.ale.resetGame(0, false);
    }
    this.agents = [...this.possibleAgents];
    this.frame = 0;
    const obs = this.observe();
    return [this.perAgent(() => obs), this.perAgent(() => ({}))];
  }

  step(actions: AgentDict<number>): ParallelStepResult<Uint8Array> {
    const [agents, rewards, terminations, truncations, infos] = this.advance(actions);
    const obs = this.observe();
    const observations: AgentDict<Uint8Array> = {};
    for (const agent of agents) observations[agent] = obs;
    return [observations, rewards, terminations, truncations, infos];
  }

  /**
   * `step` with the observation built only if somebody asks (the internal fast path frame_skip uses, see
   * parallel.ts). The frame is still drawn, since which frames end up observed is only known afterwards; what is
   * saved is the RGB conversion and the copies of frames nobody reads. The screen is kept as its palette bytes
   * (a native copy of a third of the RGB size) and converted on the first call; every agent gets the same array,
   * as from `step`.
   */
  stepDeferred(actions: AgentDict<number>): DeferredStepResult<Uint8Array> {
    const [agents, rewards, terminations, truncations, infos] = this.advance(actions);
    let observe: () => Uint8Array;
    if (this.obsType === "rgb_image") {
      const screen = this.ale.console.screen.slice();
      let rgb: Uint8Array | null = null;
      observe = () => {
        if (rgb === null) {
          rgb = new Uint8Array(this.obsSpace.size);
          screenToRgb(screen, rgb, this.ale.console.palette);
        }
        return rgb;
      };
    } else {
      const obs = this.observe();
      observe = () => obs;
    }
    const observations: AgentDict<() => Uint8Array> = {};
    for (const agent of agents) observations[agent] = observe;
    return [observations, rewards, terminations, truncations, infos];
  }

  /** One frame for every player; the results for the agents alive before it (returned first), who then leave if done. */
  private advance(
    actions: AgentDict<number>,
  ): [
    agents: string[],
    rewards: AgentDict<number>,
    terminations: AgentDict<boolean>,
    truncations: AgentDict<boolean>,
    infos: AgentDict<Record<string, unknown>>,
  ] {
    const a = this.aleActions;
    for (let k = 0; k < this.numPlayers; k++) {
      // An agent missing from the dict (a terminated one) sends index 0.
      const index = actions[this.possibleAgents[k]] ?? 0;
      if (!this.actSpace.contains(index))
        throw new Error(`${this.envId}: action ${index} of ${this.possibleAgents[k]} is outside ${this.actSpace}`);
      a[k] = this.actionMapping[index];
    }
    const rewardsByPlayer = this.ale.actPlayers(a, this.obsType !== "ram" || this.renderMode !== null);
    this.frame++;
    const truncated = this.frame >= this.maxCycles;
    const gameOver = this.ale.gameOver();
    const lives = this.ale.allLives(this.livesOut);
    const rewards: AgentDict<number> = {};
    const terminations: AgentDict<boolean> = {};
    const truncations: AgentDict<boolean> = {};
    const infos: AgentDict<Record<string, unknown>> = {};
    const agents = this.agents;
    for (const agent of agents) {
      const k = this.possibleAgents.indexOf(agent);
      rewards[agent] = rewardsByPlayer[k];
      terminations[agent] = gameOver || lives[k] < 0;
      truncations[agent] = truncated;
      infos[agent] = {};
    }
    this.agents = agents.filter((agent) => !terminations[agent]);
    return [agents, rewards, terminations, truncations, infos];
  }

  private perAgent<T>(value: () => T): AgentDict<T> {
    const out: AgentDict<T> = {};
    for (const agent of this.agents) out[agent] = value();
    return out;
  }

  /** The current screen (or RAM): one array, shared by every agent, as PettingZoo returns it. */
  private observe(): Uint8Array {
    const out = new Uint8Array(this.obsSpace.size);
    if (this.obsType === "ram") return this.ale.getRAM(out);
    if (this.obsType === "grayscale_image") return this.ale.getScreenGrayscale(out);
    return this.ale.getScreenRGB(out);
  }

  /** `render_mode="rgb_array"`: the current screen as an RGB frame. */
  render(): RgbFrame | null {
    if (this.renderMode !== "rgb_array") return null;
    const [height, width] = this.ale.getScreenDims();
    return { width, height, data: this.ale.getScreenRGB(new Uint8Array(height * width * 3)) };
  }

  /** The meaning of each action index (ALE's names). */
  getActionMeanings(): string[] {
    return this.actionMapping.map((a) => ACTION_MEANINGS[a]);
  }

  close(): void {}
}
