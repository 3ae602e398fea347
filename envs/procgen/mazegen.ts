// procgen's maze generator (`mazegen.cpp`), used by Maze, Heist and Chaser: Kruskal's algorithm on a
// `mazeDim x mazeDim` block of cells (odd side), framed by one ring of wall (MAZE_OFFSET), so the generator's grid
// is (mazeDim + 2)^2. Cells with both coordinates even are rooms; the walls between two rooms are removed in random
// order when they join two different sets. Variants: no dead ends (Chaser) and locked doors with keys (Heist).
//
// Level generation must draw exactly as the C++ does, so the details that decide the draws are kept: the wall list
// order and its erase-in-place, the order cells become free, and the C++ `std::set`s, which iterate in ascending
// order (kept here as boolean masks scanned by index).

import { AGENT_OBJ, DOOR_OBJ, EXIT_OBJ, INVALID_OBJ, KEY_OBJ, SPACE, WALL_OBJ } from "./entity.ts";
import type { Mt19937 } from "./mt19937.ts";

/** The generator's grid has a one-cell wall ring: maze cell (x, y) is grid cell (x + 1, y + 1). */
export const MAZE_OFFSET = 1;

/** Neighbours in procgen's order: dx from -1 to 1, then dy; only the four orthogonal ones. */
const NEIGHBOR_STEPS: readonly [number, number][] = [
  [-1, 0],
  [0, -1],
  [0, 1],
  [1, 0],
];

export class MazeGen {
  readonly arrayDim: number;
  /** (mazeDim + 2)^2 cells, index y * arrayDim + x, y up as everywhere in procgen. */
  readonly grid: Int32Array;
  /** Cells (maze coordinates, index y * mazeDim + x) in the order they became free. */
  private freeCells: number[] = [];

  constructor(
    private readonly rand: Mt19937,
    readonly mazeDim: number,
  ) {
    this.arrayDim = mazeDim + 2;
    this.grid = new Int32Array(this.arrayDim * this.arrayDim);
  }

  get(x: number, y: number): number {
    return this.grid[y * this.arrayDim + x];
  }

  /** The type at a grid index; the outer ring and beyond read as INVALID_OBJ. */
  private getObj(idx: number): number {
    const x = idx % this.arrayDim;
    const y = Math.trunc(idx / this.arrayDim);
    if (x <= 0 || x >= this.arrayDim - 1 || y <= 0 || y >= this.arrayDim - 1) return INVALID_OBJ;
    return this.grid[idx];
  }

  private neighbors(idx: number, type: number): number[] {
    const x = idx % this.arrayDim;
    const y = Math.trunc(idx / this.arrayDim);
    const out: number[] = [];
    for (const [dx, dy] of NEIGHBOR_STEPS) {
      const n = (y + dy) * this.arrayDim + (x + dx);
      if (this.getObj(n) === type) out.push(n);
    }
    return out;
  }

  private setFreeCell(x: number, y: number, isFree: Uint8Array): void {
    this.grid[(y + MAZE_OFFSET) * this.arrayDim + x + MAZE_OFFSET] = SPACE;
    const cell = this.mazeDim * y + x;
    if (!isFree[cell]) {
      isFree[cell] = 1;
      this.freeCells.push(cell);
    }
  }

  /** Kruskal's maze: one `randn(walls left)` per candidate wall until none is left. */
  generateMaze(): void {
    const dim = this.mazeDim;
    this.grid.fill(WALL_OBJ);
    // procgen marks the first room 0 before carving; carving always frees it again (it joins a set).
    this.grid[MAZE_OFFSET * this.arrayDim + MAZE_OFFSET] = 0;
    this.freeCells = [];
    const isFree = new Uint8Array(dim * dim);
    // Each cell starts in its own set; `members[label]` lists a set's cells, `label[cell]` names its set.
    const label = Int32Array.from({ length: dim * dim }, (_, i) => i);
    const members: number[][] = Array.from({ length: dim * dim }, (_, i) => [i]);
    // Candidate walls [x1, y1, x2, y2] between two rooms: horizontal pairs first, then vertical ones.
    const walls: [number, number, number, number][] = [];
    for (let i = 1; i < dim - 1; i += 2) for (let j = 0; j < dim; j += 2) walls.push([i - 1, j, i + 1, j]);
    for (let i = 0; i < dim; i += 2) for (let j = 1; j < dim - 1; j += 2) walls.push([i, j - 1, i, j + 1]);
    while (walls.length > 0) {
      const n = this.rand.randn(walls.length);
      const [x1, y1, x2, y2] = walls[n];
      const s0 = label[dim * y1 + x1];
      const s1 = label[dim * y2 + x2];
      const x0 = (x1 + x2) >> 1;
      const y0 = (y1 + y2) >> 1;
      if (this.get(x0 + MAZE_OFFSET, y0 + MAZE_OFFSET) === WALL_OBJ && s0 !== s1) {
        this.setFreeCell(x1, y1, isFree);
        this.setFreeCell(x0, y0, isFree);
        this.setFreeCell(x2, y2, isFree);
        // The first room's set joins the second's, together with the opened wall cell.
        for (const c of members[s0]) label[c] = s1;
        members[s1].push(...members[s0]);
        members[s0] = [];
        const center = dim * y0 + x0;
        const old = label[center];
        if (old !== s1) {
          members[old] = members[old].filter((c) => c !== center);
          label[center] = s1;
          members[s1].push(center);
        }
      }
      walls.splice(n, 1);
    }
  }

  /** A maze without dead ends (Ms. Pac-Man-like): each dead end opens one of its walls at random. */
  generateMazeNoDeadEnds(): void {
    this.generateMaze();
    for (let i = 0; i < this.arrayDim * this.arrayDim; i++) {
      if (this.getObj(i) !== SPACE) continue;
      if (this.neighbors(i, SPACE).length === 1) {
        const walls = this.neighbors(i, WALL_OBJ);
        if (walls.length > 0) this.grid[walls[this.rand.randn(walls.length)]] = SPACE;
      }
    }
  }

  /**
   * A maze with up to `numDoors` locked doors on forks (cells with more than two open neighbours), the agent's
   * start (AGENT_OBJ, never next to a door), key k+1 (KEY_OBJ + k + 1) placed where it is reachable before door
   * k+1 (DOOR_OBJ + k + 1) and the exit (EXIT_OBJ) behind the last door. Returns the number of doors placed.
   */
  generateMazeWithDoors(numDoors: number): number {
    this.generateMaze();
    const size = this.arrayDim * this.arrayDim;
    const forks: number[] = [];
    for (let i = 0; i < size; i++) if (this.getObj(i) === SPACE && this.neighbors(i, SPACE).length > 2) forks.push(i);
    const chosen = this.rand.chooseN(forks, numDoors);
    numDoors = chosen.length;
    for (const i of chosen) this.grid[i] = DOOR_OBJ;
    const spaceCells: number[] = [];
    for (let i = 0; i < size; i++) if (this.getObj(i) === SPACE) spaceCells.push(i);
    // The agent never starts next to a door: there might be no room for the key.
    let agentCell: number;
    do {
      agentCell = this.rand.chooseOne(spaceCells);
    } while (this.neighbors(agentCell, DOOR_OBJ).length > 0);
    this.grid[agentCell] = AGENT_OBJ;
    const s0 = new Uint8Array(size);
    s0[agentCell] = 1;
    for (let doorNum = 0; doorNum < numDoors + 1; doorNum++) {
      const s1 = new Uint8Array(size);
      let foundDoor = -1;
      if (doorNum < numDoors) {
        // The nearest door (breadth first from what is reachable so far) becomes door number doorNum + 1 ...
        foundDoor = this.expandToType(s0, s1, DOOR_OBJ);
        this.grid[foundDoor] = DOOR_OBJ + doorNum + 1;
        for (let i = 0; i < size; i++) if (s1[i]) s0[i] = 1;
      }
      // ... and its key (or, after the last door, the exit) goes anywhere newly reachable.
      this.expandToType(s0, s1, -999);
      const cells: number[] = [];
      for (let i = 0; i < size; i++) if (s1[i]) cells.push(i);
      if (cells.length === 0) throw new Error("mazegen: no room for a key");
      const keyCell = this.rand.chooseOne(cells);
      this.grid[keyCell] = doorNum === numDoors ? EXIT_OBJ : KEY_OBJ + doorNum + 1;
      for (let i = 0; i < size; i++) if (s1[i]) s0[i] = 1;
      if (foundDoor >= 0) s0[foundDoor] = 1;
    }
    return numDoors;
  }

  /**
   * Breadth-first growth from `s0` through SPACE, adding what it reaches to `s1`; stops at the first cell (in
   * ascending order within a wave) that touches `type` and returns that neighbour, or -1 when nothing does.
   */
  private expandToType(s0: Uint8Array, s1: Uint8Array, type: number): number {
    let curr: number[] = [];
    for (let i = 0; i < s0.length; i++) if (s0[i]) curr.push(i);
    while (curr.length > 0) {
      const next = new Uint8Array(s0.length);
      let any = false;
      for (const elem of curr) {
        const targets = this.neighbors(elem, type);
        for (const j of this.neighbors(elem, SPACE)) {
          if (!s0[j] && !s1[j]) {
            next[j] = 1;
            s1[j] = 1;
            any = true;
          }
        }
        if (targets.length > 0) return targets[0];
      }
      curr = [];
      if (any) for (let i = 0; i < next.length; i++) if (next[i]) curr.push(i);
    }
    return -1;
  }

  /** Puts objects start_obj .. start_obj + n - 1 on distinct free cells other than the first room. */
  placeObjects(startObj: number, numObjs: number): void {
    const cells = this.freeCells;
    for (let j = 0; j < numObjs; j++) {
      let m = this.rand.randn(cells.length);
      while (cells[m] === -1 || cells[m] === 0) m = this.rand.randn(cells.length);
      const cell = cells[m];
      cells[m] = -1;
      this.grid[(Math.trunc(cell / this.mazeDim) + MAZE_OFFSET) * this.arrayDim + (cell % this.mazeDim) + MAZE_OFFSET] =
        startObj + j;
    }
  }
}
