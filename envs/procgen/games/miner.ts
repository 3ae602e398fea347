// Miner (procgen `games/miner.cpp`): Boulder Dash on a grid. The robot digs through dirt one cell per step,
// collects every diamond (+1 each) and then reaches the exit (+10, the end). Boulders and diamonds fall into empty
// cells and roll off round things; one that is moving when it lands on the robot kills it. The robot can push a
// boulder sideways into an empty cell. World 10 / 20 / 35 cells (easy / hard / memory).

import { type Entity, PLAYER, SPACE } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

const COMPLETION_BONUS = 10;
const DIAMOND_REWARD = 1;
const BOULDER = 1;
const DIAMOND = 2;
const MOVING_BOULDER = 3;
const MOVING_DIAMOND = 4;
const ENEMY = 5;
const EXIT = 6;
const DIRT = 9;
const OOB_WALL = 10;

function movingType(type: number): number {
  if (type === DIAMOND) return MOVING_DIAMOND;
  if (type === BOULDER) return MOVING_BOULDER;
  return type;
}

function stationaryType(type: number): number {
  if (type === MOVING_DIAMOND) return DIAMOND;
  if (type === MOVING_BOULDER) return BOULDER;
  return type;
}

function isMoving(type: number): boolean {
  return type === MOVING_BOULDER || type === MOVING_DIAMOND;
}

function isRound(type: number): boolean {
  return type === BOULDER || type === MOVING_BOULDER || type === DIAMOND || type === MOVING_DIAMOND;
}

export class Miner extends BasicAbstractGame {
  diamondsRemaining = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("miner", options);
    this.mainWidth = 20;
    this.mainHeight = 20;
    this.mixrate = 0.5;
    this.maxspeed = 0.5;
    this.hasUsefulVelInfo = false;
    this.outOfBoundsObject = OOB_WALL;
    this.visibility = 8;
  }

  override backgroundGroup(): BackgroundGroup {
    return "platform_backgrounds";
  }

  override assetForType(type: number): string[] {
    if (type === PLAYER) return ["misc_assets/robot_greenDrive1.png"];
    if (type === BOULDER) return ["misc_assets/elementStone007.png"];
    if (type === DIAMOND) return ["misc_assets/gemBlue.png"];
    if (type === EXIT) return ["misc_assets/window.png"];
    if (type === DIRT) return ["misc_assets/dirt.png"];
    if (type === OOB_WALL) return ["misc_assets/tile_bricksGrey.png"];
    return [];
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    if (super.isBlocked(src, target, isHorizontal)) return true;
    return src.type === PLAYER && (target === BOULDER || target === MOVING_BOULDER || target === OOB_WALL);
  }

  override willReflect(src: number, target: number): boolean {
    return (
      src === ENEMY &&
      (target === BOULDER ||
        target === DIAMOND ||
        target === MOVING_BOULDER ||
        target === MOVING_DIAMOND ||
        target === this.outOfBoundsObject)
    );
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === ENEMY) {
      this.stepData.done = true;
    } else if (obj.type === EXIT && this.diamondsRemaining === 0) {
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
      this.stepData.done = true;
    }
  }

  override imageForType(type: number): number {
    return Math.abs(stationaryType(type));
  }

  override setActionXY(moveAct: number): void {
    super.setActionXY(moveAct);
    if (this.actionVx !== 0) this.actionVy = 0;
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    const dim = mode === EASY_MODE ? 10 : mode === HARD_MODE ? 20 : mode === MEMORY_MODE ? 35 : this.mainWidth;
    this.mainWidth = dim;
    this.mainHeight = dim;
  }

  override gameReset(): void {
    super.gameReset();
    this.agent.rx = 0.5;
    this.agent.ry = 0.5;
    const w = this.mainWidth;
    const area = w * this.mainHeight;
    this.options.centerAgent = this.options.distributionMode === MEMORY_MODE;
    this.gridStep = true;
    // 12 diamonds and 80 boulders per 400 cells; procgen computes the fractions in float32 and truncates.
    const numDiamonds = Math.trunc(Math.fround(Math.fround(12 / 400) * area));
    const numBoulders = Math.trunc(Math.fround(Math.fround(80 / 400) * area));
    const idxs = this.randGen.simpleChoose(area, numDiamonds + numBoulders + 1);
    const ax = idxs[0] % w;
    const ay = Math.trunc(idxs[0] / w);
    this.agent.x = ax + 0.5;
    this.agent.y = ay + 0.5;
    this.grid.fill(DIRT);
    for (let i = 0; i < numDiamonds; i++) this.setObjIdx(idxs[i + 1], DIAMOND);
    for (let i = 0; i < numBoulders; i++) this.setObjIdx(idxs[i + 1 + numDiamonds], BOULDER);
    // Exit candidates are taken before the agent's cell is cleared: dirt cells under dirt or the top edge.
    const dirtCells = this.getCellsWithType(DIRT);
    this.setObj(ax, ay, SPACE);
    // No boulder right next to the start.
    for (let i = -1; i <= 1; i++)
      for (let j = -1; j <= 1; j++) if (this.getObj(ax + i, ay + j) === BOULDER) this.setObj(ax + i, ay + j, DIRT);
    const exitCandidates = dirtCells.filter((cell) => {
      const above = this.getObjIdx(cell + w);
      return above === DIRT || above === this.outOfBoundsObject;
    });
    const exitCell = exitCandidates[this.randGen.randn(exitCandidates.length)];
    this.setObjIdx(exitCell, SPACE);
    const exit = this.addEntity((exitCell % w) + 0.5, Math.trunc(exitCell / w) + 0.5, 0, 0, 0.5, EXIT);
    exit.renderZ = -1;
  }

  private isFree(idx: number): boolean {
    return this.getObjIdx(idx) === SPACE && this.getAgentIndex() !== idx;
  }

  /** Walking into a boulder with an empty cell behind it pushes it one cell (only when the move was blocked). */
  private handlePush(): void {
    const idx = this.getAgentIndex();
    const x = idx % this.mainWidth;
    if (
      this.actionVx === 1 &&
      this.agent.vx === 0 &&
      x < this.mainWidth - 2 &&
      this.getObjIdx(idx + 1) === BOULDER &&
      this.getObjIdx(idx + 2) === SPACE
    ) {
      this.setObjIdx(idx + 1, SPACE);
      this.setObjIdx(idx + 2, BOULDER);
      this.agent.x += 1;
    } else if (
      this.actionVx === -1 &&
      this.agent.vx === 0 &&
      x > 1 &&
      this.getObjIdx(idx - 1) === BOULDER &&
      this.getObjIdx(idx - 2) === SPACE
    ) {
      this.setObjIdx(idx - 1, SPACE);
      this.setObjIdx(idx - 2, BOULDER);
      this.agent.x -= 1;
    }
  }

  override gameStep(): void {
    super.gameStep();
    this.faceMoveDirection();
    this.handlePush();
    const ax = Math.trunc(this.agent.x);
    const ay = Math.trunc(this.agent.y);
    const here = this.getObj(ax, ay);
    if (here === DIAMOND) this.stepData.reward += DIAMOND_REWARD;
    if (here === DIRT || here === DIAMOND) this.setObj(ax, ay, SPACE);
    // Falling and rolling, one sweep from the bottom row up (so a column falls one cell per step).
    const w = this.mainWidth;
    const agentIdx = Math.trunc((this.agent.y - 0.5) * w + (this.agent.x - 0.5));
    let diamonds = 0;
    for (let idx = 0; idx < w * this.mainHeight; idx++) {
      const obj = this.grid[idx];
      const stat = stationaryType(obj);
      if (stat === DIAMOND) diamonds++;
      if (!isRound(obj)) continue;
      const below = idx - w;
      const obj2 = this.getObjIdx(below);
      const agentBelow = agentIdx === below;
      const x = idx % w;
      if (obj2 === SPACE && !agentBelow) {
        this.setObjIdx(idx, SPACE);
        this.setObjIdx(below, movingType(obj));
      } else if (agentBelow && isMoving(obj)) {
        this.stepData.done = true;
      } else if (isRound(obj2) && x > 0 && this.isFree(idx - 1) && this.isFree(idx - w - 1)) {
        this.setObjIdx(idx, SPACE);
        this.setObjIdx(idx - 1, stat);
      } else if (isRound(obj2) && x < w - 1 && this.isFree(idx + 1) && this.isFree(idx - w + 1)) {
        this.setObjIdx(idx, SPACE);
        this.setObjIdx(idx + 1, stat);
      } else {
        this.setObjIdx(idx, stat);
      }
    }
    this.diamondsRemaining = diamonds;
    // (procgen's miner also re-aims ENEMY entities here with randn(6); it never spawns any.)
  }
}
