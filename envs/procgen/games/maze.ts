// Maze (procgen `games/maze.cpp`): a mouse walks a Kruskal maze one cell per step to the cheese: +10 and the end.
// Maze side 3..world (odd, random), centred in a 15 / 25 / 31 world (easy / hard / memory); timeout 500.

import { PLAYER, SPACE, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import { MAZE_OFFSET, MazeGen } from "../mazegen.ts";
import type { BackgroundGroup } from "../resources.ts";

const REWARD = 10;
const GOAL = 2;

export class Maze extends BasicAbstractGame {
  worldDim = 0;
  mazeDim = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("maze", options);
    this.timeout = 500;
    this.randomAgentStart = false;
    this.hasUsefulVelInfo = false;
    this.outOfBoundsObject = WALL_OBJ;
    this.visibility = 8;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_backgrounds";
  }

  override assetForType(type: number): string[] {
    if (type === WALL_OBJ) return ["kenney/Ground/Sand/sandCenter.png"];
    if (type === GOAL) return ["misc_assets/cheese.png"];
    if (type === PLAYER) return ["kenney/Enemies/mouse_move.png"];
    return [];
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    if (mode === EASY_MODE) this.worldDim = 15;
    else if (mode === HARD_MODE) this.worldDim = 25;
    else if (mode === MEMORY_MODE) this.worldDim = 31;
    this.mainWidth = this.worldDim;
    this.mainHeight = this.worldDim;
  }

  override gameReset(): void {
    super.gameReset();
    this.gridStep = true;
    this.mazeDim = this.randGen.randn((this.worldDim - 1) >> 1) * 2 + 3;
    const margin = (this.worldDim - this.mazeDim) >> 1;
    const gen = new MazeGen(this.randGen, this.mazeDim);
    // Only the memory mode follows the agent (with visibility 8); the others show the whole world.
    this.options.centerAgent = this.options.distributionMode === MEMORY_MODE;
    this.agent.rx = 0.5;
    this.agent.ry = 0.5;
    // The start is the maze's bottom-left room, which placeObjects never uses for the cheese.
    this.agent.x = margin + 0.5;
    this.agent.y = margin + 0.5;
    gen.generateMaze();
    gen.placeObjects(GOAL, 1);
    this.grid.fill(WALL_OBJ);
    for (let i = 0; i < this.mazeDim; i++) {
      for (let j = 0; j < this.mazeDim; j++)
        this.setObj(margin + i, margin + j, gen.get(i + MAZE_OFFSET, j + MAZE_OFFSET));
    }
    // (procgen also frames the maze with walls here; the grid is already all wall around it.)
  }

  override setActionXY(moveAct: number): void {
    super.setActionXY(moveAct);
    // Horizontal wins: a diagonal moves only sideways.
    if (this.actionVx !== 0) this.actionVy = 0;
  }

  override gameStep(): void {
    super.gameStep();
    if (this.actionVx > 0) this.agent.isReflected = true;
    if (this.actionVx < 0) this.agent.isReflected = false;
    const ix = Math.trunc(this.agent.x);
    const iy = Math.trunc(this.agent.y);
    if (this.getObj(ix, iy) === GOAL) {
      this.setObj(ix, iy, SPACE);
      this.stepData.reward += REWARD;
      this.stepData.levelComplete = true;
    }
    this.stepData.done = this.stepData.reward > 0;
  }
}
