// procgen's cave generator (`roomgen.cpp`), used by CaveFlyer and Jumper: a cellular automaton that smooths random
// noise into caves, the largest connected room, a breadth-first path through it, and a widening of a set of cells.
// It works on the game's grid directly (out-of-world cells read as the game's out_of_bounds_object). No random
// draws happen here; what matters for identical levels is which cells end up where, and the path's tie-breaking
// (neighbours in procgen's order: dx -1..1, then dy; C++ std::set iteration is ascending, kept as sorted scans).

import { SPACE, WALL_OBJ } from "./entity.ts";
import type { BasicAbstractGame } from "./game.ts";

/** The 4-neighbours in procgen's order. */
const ORTHOGONAL: readonly [number, number][] = [
  [-1, 0],
  [0, -1],
  [0, 1],
  [1, 0],
];

export class RoomGenerator {
  constructor(private readonly game: BasicAbstractGame) {}

  private xy(idx: number): [number, number] {
    const w = this.game.mainWidth;
    return [idx % w, Math.trunc(idx / w)];
  }

  /** Cells of `type` in the 3x3 block around idx, itself included. */
  countNeighbors(idx: number, type: number): number {
    const [x, y] = this.xy(idx);
    let n = 0;
    for (let i = -1; i <= 1; i++) for (let j = -1; j <= 1; j++) if (this.game.getObj(x + i, y + j) === type) n++;
    return n;
  }

  /** One automaton step: a cell becomes wall when at least 5 of the 9 cells around it are wall. */
  update(): void {
    const g = this.game;
    const next = new Int32Array(g.grid.length);
    for (let i = 0; i < next.length; i++) next[i] = this.countNeighbors(i, WALL_OBJ) >= 5 ? WALL_OBJ : SPACE;
    g.grid.set(next);
  }

  /**
   * The open cells 4-connected to idx (procgen's flood fill; idx itself is included only when a neighbour is
   * open, as in the C++, which adds cells as they are reached from another one).
   */
  buildRoom(idx: number, room: Set<number>): void {
    const g = this.game;
    if (g.getObjIdx(idx) !== SPACE) return;
    const queue = [idx];
    for (let head = 0; head < queue.length; head++) {
      const cur = queue[head];
      if (g.getObjIdx(cur) !== SPACE) continue;
      const [x, y] = this.xy(cur);
      for (const [dx, dy] of ORTHOGONAL) {
        const n = g.toGridIdx(x + dx, y + dy);
        if (!room.has(n) && g.getObjIdx(n) === SPACE) {
          queue.push(n);
          room.add(n);
        }
      }
    }
  }

  /** The largest room (the first found, scanning cells in order, among equals), as ascending cell indices. */
  findBestRoom(): number[] {
    const g = this.game;
    const seen = new Set<number>();
    let best: Set<number> = new Set();
    let bestSize = -1;
    for (let i = 0; i < g.grid.length; i++) {
      if (g.getObjIdx(i) === SPACE && !seen.has(i)) {
        const room = new Set<number>();
        this.buildRoom(i, room);
        for (const c of room) seen.add(c);
        if (room.size > bestSize) {
          bestSize = room.size;
          best = room;
        }
      }
    }
    return [...best].sort((a, b) => a - b);
  }

  /** Breadth-first shortest path of open cells from src to dst (both included); empty when unreachable. */
  findPath(src: number, dst: number): number[] {
    const g = this.game;
    if (g.getObjIdx(src) !== SPACE) return [];
    const covered = new Set<number>();
    const expanded = [src];
    const parents = [-1];
    let k = 0;
    for (; k < expanded.length; k++) {
      const cur = expanded[k];
      if (cur === dst) break;
      const [x, y] = this.xy(cur);
      for (const [dx, dy] of ORTHOGONAL) {
        const n = g.toGridIdx(x + dx, y + dy);
        if (!covered.has(n) && g.getObjIdx(n) === SPACE) {
          expanded.push(n);
          parents.push(k);
          covered.add(n);
        }
      }
    }
    if (k >= expanded.length) return [];
    const path: number[] = [];
    for (let i = k; i >= 0; i = parents[i]) path.push(expanded[i]);
    return path.reverse();
  }

  /** Grows `cells` n times by every open 8-neighbour of the cells added last. */
  expandRoom(cells: Set<number>, n: number): void {
    const g = this.game;
    let frontier = [...cells].sort((a, b) => a - b);
    for (let loop = 0; loop < n; loop++) {
      const next: number[] = [];
      for (const cur of frontier) {
        if (g.getObjIdx(cur) !== SPACE) continue;
        const [x, y] = this.xy(cur);
        for (let i = -1; i <= 1; i++) {
          for (let j = -1; j <= 1; j++) {
            if (i === 0 && j === 0) continue;
            const m = g.toGridIdx(x + i, y + j);
            if (!cells.has(m) && g.getObjIdx(m) === SPACE) {
              cells.add(m);
              next.push(m);
            }
          }
        }
      }
      frontier = next.sort((a, b) => a - b);
    }
  }
}
