// Chaser (procgen `games/chaser.cpp`): Pac-Man. The agent keeps moving at 0.5 cells per step through a maze without
// dead ends, eating small orbs (+0.04 each; all of them: +10 and the end). Large orbs (+0.04) make the enemies
// edible (and half as fast) for 75 steps. Enemies hatch from eggs after 50 steps, pick a turn at each junction
// (half the time greedily by Manhattan distance to the agent, away from it while edible), and return as eggs when
// eaten. Touching an enemy that is not edible ends the episode. Maze 11 / 13 / 19 (easy / hard / extreme).

import { type Entity, PLAYER, SPACE, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, EXTREME_MODE, type GameOptions, HARD_MODE } from "../game.ts";
import { MAZE_OFFSET, MazeGen } from "../mazegen.ts";
import type { Canvas, Rect } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const ORB_REWARD = Math.fround(0.04);
const COMPLETION_BONUS = 10;
const ORB_DIM = Math.fround(0.3);
const LARGE_ORB = 2;
const ENEMY_WEAK = 3;
const ENEMY_EGG = 4;
const MAZE_WALL = 5;
const ENEMY = 6;
const ENEMY2 = 7;
const ENEMY3 = 8;
/** Grid-only types (>= 100: drawn by drawGridObj, not from images). */
const MARKER = 1001;
const ORB = 1002;
const EAT_TIMEOUT = 75;
const EGG_TIMEOUT = 50;

const sign = (v: number) => (v > 0 ? 1 : v < 0 ? -1 : 0);
/** C's round(): halves away from zero. */
const cRound = (v: number) => Math.sign(v) * Math.round(Math.abs(v));

export class Chaser extends BasicAbstractGame {
  mazeDim = 0;
  totalEnemies = 0;
  totalOrbs = 0;
  orbsCollected = 0;
  eatTime = 0;
  freeCells: number[] = [];
  isSpace: boolean[] = [];

  constructor(options: Partial<GameOptions> = {}) {
    super("chaser", options);
    this.mixrate = 1;
    this.maxspeed = 0.5;
    this.hasUsefulVelInfo = false;
  }

  override useBlockAsset(type: number): boolean {
    return type === MAZE_WALL;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_simple_backgrounds";
  }

  override assetForType(type: number): string[] {
    const names: Record<number, string> = {
      [PLAYER]: "enemyFloating_1b",
      [ENEMY]: "enemyFlying_1",
      [ENEMY2]: "enemyFlying_2",
      [ENEMY3]: "enemyFlying_3",
      [LARGE_ORB]: "yellowCrystal",
      [ENEMY_WEAK]: "enemyWalking_1b",
      [ENEMY_EGG]: "enemySpikey_1b",
      [MAZE_WALL]: "tileStone_slope",
    };
    return names[type] === undefined ? [] : [`misc_assets/${names[type]}.png`];
  }

  /** Constant speed: a direction, once given, is kept until a wall stops the agent. */
  override updateAgentVelocity(): void {
    if (this.actionVx !== 0) this.agent.vx = this.maxspeed * this.actionVx;
    if (this.actionVy !== 0) this.agent.vy = this.maxspeed * this.actionVy;
    // Sub-step collisions can shrink the speed; procgen restores it.
    this.agent.vx = sign(this.agent.vx) * this.maxspeed;
    this.agent.vy = sign(this.agent.vy) * this.maxspeed;
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return target === MAZE_WALL || super.isBlocked(src, target, isHorizontal);
  }

  override imageForType(type: number): number {
    if (type === ENEMY) {
      if (this.canEatEnemies()) return ENEMY_WEAK;
      // Wing animation: frames 0, 1, 2, 1, ... every two steps.
      let rem = Math.trunc(this.curTime / 2) % 4;
      if (rem === 3) rem = 1;
      return ENEMY + rem;
    }
    return Math.abs(type);
  }

  /** Small orbs are green squares 0.3 of a cell wide. */
  override drawGridObj(c: Canvas, rect: Rect, type: number, theme: number): void {
    if (type === ORB) {
      c.fillRect(
        {
          x: rect.x + (rect.w * (1 - ORB_DIM)) / 2,
          y: rect.y + (rect.h * (1 - ORB_DIM)) / 2,
          w: rect.w * ORB_DIM,
          h: rect.h * ORB_DIM,
        },
        0,
        255,
        0,
      );
    } else {
      super.drawGridObj(c, rect, type, theme);
    }
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === LARGE_ORB) {
      this.eatTime = this.curTime;
      this.stepData.reward += ORB_REWARD;
      obj.willErase = true;
    } else if (obj.type === ENEMY) {
      if (this.canEatEnemies()) obj.willErase = true;
      else this.stepData.done = true;
    }
  }

  override chooseWorldDim(): void {
    this.mainWidth = this.mazeDim;
    this.mainHeight = this.mazeDim;
  }

  override gameReset(): void {
    const mode = this.options.distributionMode;
    // One quadrant gets an extra large orb (extreme), none (hard: one quadrant has no large orb) or nothing special.
    let extraOrbSign = 1;
    if (mode === EASY_MODE) [this.mazeDim, this.totalEnemies, extraOrbSign] = [11, 3, 0];
    else if (mode === HARD_MODE) [this.mazeDim, this.totalEnemies, extraOrbSign] = [13, 3, -1];
    else if (mode === EXTREME_MODE) [this.mazeDim, this.totalEnemies, extraOrbSign] = [19, 5, 1];
    super.gameReset();
    const dim = this.mazeDim;
    this.options.centerAgent = false;
    this.agent.rx = 0.5;
    this.agent.ry = 0.5;
    this.eatTime = -EAT_TIMEOUT;
    this.grid.fill(MAZE_WALL);
    const gen = new MazeGen(this.randGen, dim);
    gen.generateMazeNoDeadEnds();
    const numQuadrants = 4;
    const extraQuad = this.randGen.randn(numQuadrants);
    const orbsForQuadrant = Array.from({ length: numQuadrants }, (_, i) => 1 + (i === extraQuad ? extraOrbSign : 0));
    const quadrants: number[][] = Array.from({ length: numQuadrants }, () => []);
    for (let i = 0; i < dim; i++) {
      for (let j = 0; j < dim; j++) {
        const obj = gen.get(i + MAZE_OFFSET, j + MAZE_OFFSET);
        this.setObj(i, j, obj === WALL_OBJ ? MAZE_WALL : obj);
        if (obj === SPACE) quadrants[(i >= dim / 2 ? 1 : 0) * 2 + (j >= dim / 2 ? 1 : 0)].push(j * dim + i);
      }
    }
    // Large orbs: the chosen number per quadrant, on cells marked so no small orb goes there.
    for (let q = 0; q < numQuadrants; q++) {
      for (const k of this.randGen.simpleChoose(quadrants[q].length, orbsForQuadrant[q])) {
        const cell = quadrants[q][k];
        this.spawnEntityAtIdx(cell, Math.fround(0.4), LARGE_ORB);
        this.setObjIdx(cell, MARKER);
      }
    }
    // The agent's start and the eggs, on distinct free cells.
    let free = this.getCellsWithType(SPACE);
    const picks = this.randGen.simpleChoose(free.length, 1 + this.totalEnemies);
    const start = free[picks[0]];
    this.agent.x = (start % dim) + 0.5;
    this.agent.y = Math.trunc(start / dim) + 0.5;
    for (let i = 0; i < this.totalEnemies; i++) {
      const cell = free[picks[i + 1]];
      this.setObjIdx(cell, MARKER);
      this.spawnEgg(cell);
    }
    // Every other open cell (the agent's start included) holds a small orb.
    for (const cell of free) this.setObjIdx(cell, ORB);
    this.totalOrbs = free.length;
    this.orbsCollected = 0;
    for (const cell of this.getCellsWithType(MARKER)) this.setObjIdx(cell, SPACE);
    free = [];
    this.isSpace = [];
    for (let i = 0; i < this.grid.length; i++) {
      const open = this.grid[i] !== MAZE_WALL;
      if (open) free.push(i);
      this.isSpace.push(open);
    }
    this.freeCells = free;
  }

  canEatEnemies(): boolean {
    return this.curTime - this.eatTime < EAT_TIMEOUT;
  }

  private spawnEgg(cell: number): void {
    const egg = this.addEntity(
      (cell % this.mazeDim) + 0.5,
      Math.trunc(cell / this.mazeDim) + 0.5,
      0,
      0,
      0.5,
      ENEMY_EGG,
    );
    egg.health = EGG_TIMEOUT;
  }

  private manhattan(a: number, b: number): number {
    const w = this.mainWidth;
    return Math.abs((a % w) - (b % w)) + Math.abs(Math.trunc(a / w) - Math.trunc(b / w));
  }

  /** In-grid 4-neighbours in procgen's order (dx -1..1, then dy). */
  private adjacent(idx: number): number[] {
    const w = this.mainWidth;
    const x = idx % w;
    const y = Math.trunc(idx / w);
    const out: number[] = [];
    for (const [dx, dy] of [
      [-1, 0],
      [0, -1],
      [0, 1],
      [1, 0],
    ]) {
      const n = this.toGridIdx(x + dx, y + dy);
      if (n !== -1) out.push(n);
    }
    return out;
  }

  override gameStep(): void {
    super.gameStep();
    let numEnemies = 0;
    const edible = this.canEatEnemies();
    const vscale = edible ? 0.25 : 0.5;
    const ents = this.entities;
    for (let k = ents.length - 1; k >= 0; k--) {
      const ent = ents[k];
      if (ent.type === ENEMY_EGG) {
        numEnemies++;
        ent.health -= 1;
        if (ent.health === 0) {
          ent.willErase = true;
          this.spawnChild(ent, ENEMY, 0.5).smartStep = true;
        }
      } else if (ent.type === ENEMY) {
        numEnemies++;
        const x = Math.fround(ent.x - 0.5);
        const y = Math.fround(ent.y - 0.5);
        const enemyIdx = this.toGridIdx(Math.trunc(x), Math.trunc(y));
        const agentIdx = this.toGridIdx(Math.trunc(this.agent.x), Math.trunc(this.agent.y));
        const atJunction = Math.abs(x - cRound(x)) + Math.abs(y - cRound(y)) < 0.01;
        const aggressive = this.stepRandInt % 2 === 0;
        if ((ent.vx === 0 && ent.vy === 0) || atJunction) {
          // Never straight back; aggressive (or, while edible, fleeing) enemies keep only the best turns.
          const prevIdx = this.toGridIdx(Math.trunc(x - sign(ent.vx)), Math.trunc(y - sign(ent.vy)));
          const distScale = edible ? -1 : 1;
          let minDist = 2 * this.mainWidth;
          let options: number[] = [];
          for (const adj of this.adjacent(enemyIdx)) {
            if (!this.isSpace[adj] || adj === prevIdx) continue;
            const md = this.manhattan(adj, agentIdx) * distScale;
            if (!aggressive) options.push(adj);
            else if (md < minDist) {
              minDist = md;
              options = [adj];
            } else if (md === minDist) options.push(adj);
          }
          if (options.length > 0) {
            const next = options[this.stepRandInt % options.length];
            ent.vx = ((next % this.mainWidth) - x) * vscale;
            ent.vy = (Math.trunc(next / this.mainWidth) - y) * vscale;
          }
        }
      }
    }
    // An eaten enemy comes back as an egg on a random open cell.
    if (numEnemies < this.totalEnemies) this.spawnEgg(this.freeCells[this.stepRandInt % this.freeCells.length]);
    const agentIdx = this.getAgentIndex();
    if (this.getObjIdx(agentIdx) === ORB) {
      this.setObjIdx(agentIdx, SPACE);
      this.stepData.reward += ORB_REWARD;
      this.orbsCollected += 1;
    }
    if (this.orbsCollected === this.totalOrbs) {
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
      this.stepData.done = true;
    }
  }
}
