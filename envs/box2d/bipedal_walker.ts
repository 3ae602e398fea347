// BipedalWalker, ported from Gymnasium's `gymnasium/envs/box2d/bipedal_walker.py` (BipedalWalker-v3, identical in
// 0.29 and 1.0), on planck.
//
// A hull on two legs (thigh + shin each, four motorised revolute joints) walks to the right over procedurally
// generated terrain: gentle grass in the normal version, and in hardcore also stumps, pits and stairs. The agent
// sees hull and joint kinematics, leg contacts and 10 lidar distances, never its coordinates. Every constant is
// Gymnasium's; as for LunarLander, planck computes in float64 where Box2D uses float32 and our generator is not
// numpy's, so a seed gives a different (equally distributed) terrain and trajectory than in Python.

import { Box as BoxShape, Edge, Polygon, RevoluteJoint, Vec2, World, type Body, type Contact } from "planck";

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box } from "../gymnasium/spaces.ts";
import type { Float32Box } from "../gymnasium/spaces.ts";
import { Canvas, type Frame, type Point, type RGB, warnRenderModeNotSet } from "../classic_control/raster.ts";
import { clip, drawBody } from "./lunar_lander.ts";

export const FPS = 50;
export const SCALE = 30.0; // pixels per metre; forces are tuned to it

export const MOTORS_TORQUE = 80;
export const SPEED_HIP = 4;
export const SPEED_KNEE = 6;
export const LIDAR_RANGE = 160 / SCALE;

/** Bound of the random horizontal force on the hull at reset. */
export const INITIAL_RANDOM = 5;

export const HULL_POLY: readonly Point[] = [
  [-30, +9],
  [+6, +9],
  [+34, +1],
  [+34, -8],
  [-30, -8],
];
export const LEG_DOWN = -8 / SCALE;
export const LEG_W = 8 / SCALE;
export const LEG_H = 34 / SCALE;

export const VIEWPORT_W = 600;
export const VIEWPORT_H = 400;

export const TERRAIN_STEP = 14 / SCALE;
/** Terrain length, in steps. */
export const TERRAIN_LENGTH = 200;
export const TERRAIN_HEIGHT = VIEWPORT_H / SCALE / 4;
/** Grass stretches between obstacles last TERRAIN_GRASS/2 .. TERRAIN_GRASS steps. */
export const TERRAIN_GRASS = 10;
/** Flat steps at the start, where the walker stands. */
export const TERRAIN_STARTPAD = 20;
export const FRICTION = 2.5;

/** The walker collides only with the ground (category 1); lidar rays ignore anything not in category 1. */
const GROUND_CATEGORY = 0x0001;
const WALKER_CATEGORY = 0x0020;

/** Colours Gymnasium gives obstacle bodies (stumps, pit walls, stairs); its hardcore test looks for them. */
export const OBSTACLE_COLOR1: RGB = [255, 255, 255];
export const OBSTACLE_COLOR2: RGB = [153, 153, 153];

const enum TerrainState {
  GRASS,
  STUMP,
  STAIRS,
  PIT,
  _STATES_,
}

export interface BipedalWalkerKwargs {
  renderMode?: string | null;
  /** Adds stumps, pits and stairs to the terrain (BipedalWalkerHardcore-v3). */
  hardcore?: boolean;
}

/** A static terrain body with the colours Gymnasium draws it with. */
export interface TerrainBody {
  body: Body;
  color1: RGB;
  color2: RGB;
}

/** One lidar ray of the last step: from `p1` towards `p2` (the hit point once something was hit). */
interface LidarRay {
  fraction: number;
  p1: Point;
  p2: Point;
}

export class BipedalWalker extends Env<Float32Array, ArrayLike<number>> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: FPS };

  readonly hardcore: boolean;
  readonly observationSpace: Float32Box;
  readonly actionSpace: Float32Box;

  world: World | null = null;
  hull: Body | null = null;
  /** [thigh0, shin0, thigh1, shin1]; the shins (1 and 3) report ground contact. */
  legs: Body[] = [];
  /** [hip0, knee0, hip1, knee1]. */
  joints: RevoluteJoint[] = [];
  /** Contact flags of legs[1] and legs[3]. */
  readonly legGroundContact: [boolean, boolean] = [false, false];
  /** Obstacle polygons first, then the ground edges (Gymnasium's `self.terrain`, before its draw-order reversal). */
  terrain: TerrainBody[] = [];
  terrainX: number[] = [];
  terrainY: number[] = [];
  gameOver = false;
  /** Horizontal camera offset in metres, updated every step. */
  scroll = 0;

  private prevShaping: number | null = null;
  private terrainPoly: { poly: Point[]; color: RGB }[] = [];
  private cloudPoly: { poly: Point[]; x1: number; x2: number }[] = [];
  private lidar: LidarRay[] = [];
  private lidarRender = 0;

  constructor(kwargs: BipedalWalkerKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.hardcore = kwargs.hardcore ?? false;
    // Angles in [-pi, pi]; speeds up to 5x the rated ones (ground impacts give spikes); leg contacts are 0/1 but
    // Gymnasium bounds them by 5; lidar fractions by [-1, 1].
    const low = [
      -Math.PI,
      -5,
      -5,
      -5,
      -Math.PI,
      -5,
      -Math.PI,
      -5,
      -0,
      -Math.PI,
      -5,
      -Math.PI,
      -5,
      -0,
      ...new Array(10).fill(-1),
    ];
    const high = [Math.PI, 5, 5, 5, Math.PI, 5, Math.PI, 5, 5, Math.PI, 5, Math.PI, 5, 5, ...new Array(10).fill(1)];
    this.observationSpace = new Box(low, high, [24], "float32") as Float32Box;
    // Motor speed commands for hip0, knee0, hip1, knee1.
    this.actionSpace = new Box(-1, 1, [4], "float32") as Float32Box;
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    // Gymnasium keeps one default-gravity b2World and destroys the bodies on reset; a fresh world per reset is the
    // same physics and keeps resets reproducible (planck's World, unlike b2World(), defaults to zero gravity).
    const world = new World({ gravity: Vec2(0, -10) });
    this.world = world;
    this.gameOver = false;
    this.prevShaping = null;
    this.scroll = 0.0;
    this.lidarRender = 0;
    this.legGroundContact[0] = false;
    this.legGroundContact[1] = false;

    this.generateTerrain(world);
    this.generateClouds();

    const initX = (TERRAIN_STEP * TERRAIN_STARTPAD) / 2;
    const initY = TERRAIN_HEIGHT + 2 * LEG_H;
    const hull = world.createDynamicBody({ position: Vec2(initX, initY) });
    hull.createFixture(Polygon(HULL_POLY.map(([x, y]) => Vec2(x / SCALE, y / SCALE))), {
      density: 5.0,
      friction: 0.1,
      filterCategoryBits: WALKER_CATEGORY,
      filterMaskBits: GROUND_CATEGORY,
      restitution: 0.0,
    });
    hull.applyForceToCenter(Vec2(this.npRandom.uniform(-INITIAL_RANDOM, INITIAL_RANDOM), 0), true);
    this.hull = hull;

    this.legs = [];
    this.joints = [];
    for (const i of [-1, +1]) {
      const thigh = world.createDynamicBody({ position: Vec2(initX, initY - LEG_H / 2 - LEG_DOWN), angle: i * 0.05 });
      thigh.createFixture(BoxShape(LEG_W / 2, LEG_H / 2), {
        density: 1.0,
        restitution: 0.0,
        filterCategoryBits: WALKER_CATEGORY,
        filterMaskBits: GROUND_CATEGORY,
      });
      // referenceAngle 0 is Box2D's default; planck would otherwise take the bodies' initial relative angle.
      const hip = world.createJoint(
        RevoluteJoint({
          bodyA: hull,
          bodyB: thigh,
          localAnchorA: Vec2(0, LEG_DOWN),
          localAnchorB: Vec2(0, LEG_H / 2),
          referenceAngle: 0,
          enableMotor: true,
          enableLimit: true,
          maxMotorTorque: MOTORS_TORQUE,
          motorSpeed: i,
          lowerAngle: -0.8,
          upperAngle: 1.1,
        }),
      )!;
      this.legs.push(thigh);
      this.joints.push(hip);

      const shin = world.createDynamicBody({
        position: Vec2(initX, initY - (LEG_H * 3) / 2 - LEG_DOWN),
        angle: i * 0.05,
      });
      shin.createFixture(BoxShape((0.8 * LEG_W) / 2, LEG_H / 2), {
        density: 1.0,
        restitution: 0.0,
        filterCategoryBits: WALKER_CATEGORY,
        filterMaskBits: GROUND_CATEGORY,
      });
      const knee = world.createJoint(
        RevoluteJoint({
          bodyA: thigh,
          bodyB: shin,
          localAnchorA: Vec2(0, -LEG_H / 2),
          localAnchorB: Vec2(0, LEG_H / 2),
          referenceAngle: 0,
          enableMotor: true,
          enableLimit: true,
          maxMotorTorque: MOTORS_TORQUE,
          motorSpeed: 1,
          lowerAngle: -1.6,
          upperAngle: -0.1,
        }),
      )!;
      this.legs.push(shin);
      this.joints.push(knee);
    }

    // Gymnasium's ContactDetector: the hull touching anything is a fall; the shins report ground contact.
    const onContact = (touching: boolean) => (contact: Contact) => {
      const a = contact.getFixtureA().getBody();
      const b = contact.getFixtureB().getBody();
      if (touching && (a === hull || b === hull)) this.gameOver = true;
      for (let k = 0; k < 2; k++) {
        const shinK = this.legs[1 + 2 * k];
        if (a === shinK || b === shinK) this.legGroundContact[k] = touching;
      }
    };
    world.on("begin-contact", onContact(true));
    world.on("end-contact", onContact(false));

    this.lidar = Array.from({ length: 10 }, () => ({ fraction: 1.0, p1: [0, 0] as Point, p2: [0, 0] as Point }));
    const [obs] = this.step([0, 0, 0, 0]);
    return [obs, {}];
  }

  /**
   * Gymnasium's `_generate_terrain`: a state machine walking right one TERRAIN_STEP at a time. Grass is a damped
   * random walk of the height around TERRAIN_HEIGHT; in hardcore, each grass stretch is followed by a stump, a pit
   * or a staircase (each a "oneshot" that creates static polygons, then shapes the height for `counter` steps).
   * The random draws happen in Gymnasium's order, so the generator stream matches its structure.
   */
  private generateTerrain(world: World): void {
    const rng = this.npRandom;
    let state: TerrainState = TerrainState.GRASS;
    let velocity = 0.0;
    let y = TERRAIN_HEIGHT;
    let counter = TERRAIN_STARTPAD;
    let oneshot = false;
    this.terrain = [];
    this.terrainX = [];
    this.terrainY = [];
    let stairSteps = 0;
    let stairWidth = 0;
    let stairHeight = 0;
    let originalY = 0;

    const addObstacle = (poly: Point[]) => {
      const body = world.createBody();
      body.createFixture(Polygon(poly.map(([px, py]) => Vec2(px, py))), { friction: FRICTION });
      this.terrain.push({ body, color1: OBSTACLE_COLOR1, color2: OBSTACLE_COLOR2 });
    };

    for (let i = 0; i < TERRAIN_LENGTH; i++) {
      const x = i * TERRAIN_STEP;
      this.terrainX.push(x);

      if (state === TerrainState.GRASS && !oneshot) {
        velocity = 0.8 * velocity + 0.01 * Math.sign(TERRAIN_HEIGHT - y);
        if (i > TERRAIN_STARTPAD) velocity += rng.uniform(-1, 1) / SCALE;
        y += velocity;
      } else if (state === TerrainState.PIT && oneshot) {
        // Two 4-step-deep walls `counter` steps apart; the ground between them drops by 4 steps.
        counter = rng.integers(3, 5);
        const poly: Point[] = [
          [x, y],
          [x + TERRAIN_STEP, y],
          [x + TERRAIN_STEP, y - 4 * TERRAIN_STEP],
          [x, y - 4 * TERRAIN_STEP],
        ];
        addObstacle(poly);
        addObstacle(poly.map(([px, py]) => [px + TERRAIN_STEP * counter, py]));
        counter += 2;
        originalY = y;
      } else if (state === TerrainState.PIT && !oneshot) {
        y = originalY;
        if (counter > 1) y -= 4 * TERRAIN_STEP;
      } else if (state === TerrainState.STUMP && oneshot) {
        counter = rng.integers(1, 3);
        const size = counter * TERRAIN_STEP;
        addObstacle([
          [x, y],
          [x + size, y],
          [x + size, y + size],
          [x, y + size],
        ]);
      } else if (state === TerrainState.STAIRS && oneshot) {
        stairHeight = rng.random() > 0.5 ? +1 : -1;
        stairWidth = rng.integers(4, 5);
        stairSteps = rng.integers(3, 5);
        originalY = y;
        for (let s = 0; s < stairSteps; s++) {
          addObstacle([
            [x + s * stairWidth * TERRAIN_STEP, y + s * stairHeight * TERRAIN_STEP],
            [x + (1 + s) * stairWidth * TERRAIN_STEP, y + s * stairHeight * TERRAIN_STEP],
            [x + (1 + s) * stairWidth * TERRAIN_STEP, y + (-1 + s * stairHeight) * TERRAIN_STEP],
            [x + s * stairWidth * TERRAIN_STEP, y + (-1 + s * stairHeight) * TERRAIN_STEP],
          ]);
        }
        counter = stairSteps * stairWidth;
      } else if (state === TerrainState.STAIRS && !oneshot) {
        const s = stairSteps * stairWidth - counter - stairHeight;
        const n = s / stairWidth;
        y = originalY + n * stairHeight * TERRAIN_STEP;
      }

      oneshot = false;
      this.terrainY.push(y);
      counter -= 1;
      if (counter === 0) {
        counter = rng.integers(TERRAIN_GRASS / 2, TERRAIN_GRASS);
        if (state === TerrainState.GRASS && this.hardcore) {
          state = rng.integers(1, TerrainState._STATES_) as TerrainState;
        } else {
          state = TerrainState.GRASS;
        }
        oneshot = true;
      }
    }

    // The ground itself: one edge per step (alternating greens when drawn), plus the filled polygon under it.
    this.terrainPoly = [];
    for (let i = 0; i < TERRAIN_LENGTH - 1; i++) {
      const p0: Point = [this.terrainX[i], this.terrainY[i]];
      const p1: Point = [this.terrainX[i + 1], this.terrainY[i + 1]];
      const body = world.createBody();
      body.createFixture(Edge(Vec2(p0[0], p0[1]), Vec2(p1[0], p1[1])), {
        friction: FRICTION,
        filterCategoryBits: GROUND_CATEGORY,
      });
      const color: RGB = [76, i % 2 === 0 ? 255 : 204, 76];
      this.terrain.push({ body, color1: color, color2: color });
      this.terrainPoly.push({ poly: [p0, p1, [p1[0], 0], [p0[0], 0]], color: [102, 153, 76] });
    }
  }

  /** Decorative clouds; drawn from the env's generator like Gymnasium's, so the stream after them matches its order. */
  private generateClouds(): void {
    const rng = this.npRandom;
    this.cloudPoly = [];
    for (let c = 0; c < TERRAIN_LENGTH / 20; c++) {
      const x = rng.uniform(0, TERRAIN_LENGTH) * TERRAIN_STEP;
      const y = ((VIEWPORT_H / SCALE) * 3) / 4;
      const poly: Point[] = [];
      for (let a = 0; a < 5; a++) {
        // Gymnasium's 3.14 (not pi) kept: it only shapes the clouds.
        const px = x + 15 * TERRAIN_STEP * Math.sin((3.14 * 2 * a) / 5) + rng.uniform(0, 5 * TERRAIN_STEP);
        const py = y + 5 * TERRAIN_STEP * Math.cos((3.14 * 2 * a) / 5) + rng.uniform(0, 5 * TERRAIN_STEP);
        poly.push([px, py]);
      }
      this.cloudPoly.push({ poly, x1: Math.min(...poly.map((p) => p[0])), x2: Math.max(...poly.map((p) => p[0])) });
    }
  }

  step(action: ArrayLike<number>): StepResult<Float32Array> {
    const world = this.world;
    const hull = this.hull;
    if (world === null || hull === null) throw new Error("Call reset before using step method.");

    // Torque control: each action's sign picks the motor direction at full rated speed, its magnitude (clipped to
    // 1) scales the torque the motor may use to get there.
    const speeds = [SPEED_HIP, SPEED_KNEE, SPEED_HIP, SPEED_KNEE];
    for (let j = 0; j < 4; j++) {
      this.joints[j].setMotorSpeed(speeds[j] * Math.sign(action[j]));
      this.joints[j].setMaxMotorTorque(MOTORS_TORQUE * clip(Math.abs(action[j]), 0, 1));
    }

    world.step(1.0 / FPS, 6 * 30, 2 * 30);

    const pos = hull.getPosition();
    const vel = hull.getLinearVelocity();

    // Ten rays fanning from straight down (i = 0) to 1.35 rad forward. The callback clips the ray to every ground
    // hit it reports, so the final fraction is the closest hit (v3's fix; v2 returned whichever was reported last).
    for (let i = 0; i < 10; i++) {
      const ray = this.lidar[i];
      ray.fraction = 1.0;
      ray.p1 = [pos.x, pos.y];
      ray.p2 = [pos.x + Math.sin((1.5 * i) / 10.0) * LIDAR_RANGE, pos.y - Math.cos((1.5 * i) / 10.0) * LIDAR_RANGE];
      world.rayCast(Vec2(ray.p1[0], ray.p1[1]), Vec2(ray.p2[0], ray.p2[1]), (fixture, point, _normal, fraction) => {
        if ((fixture.getFilterCategoryBits() & GROUND_CATEGORY) === 0) return -1;
        ray.p2 = [point.x, point.y];
        ray.fraction = fraction;
        return fraction;
      });
    }

    const j = this.joints;
    const state = [
      hull.getAngle(), // normally up to 0.5
      (2.0 * hull.getAngularVelocity()) / FPS,
      (0.3 * vel.x * (VIEWPORT_W / SCALE)) / FPS, // normalised to about -1..1
      (0.3 * vel.y * (VIEWPORT_H / SCALE)) / FPS,
      j[0].getJointAngle(), // reaches 1.1 high up; spikes on hitting the ground are normal
      j[0].getJointSpeed() / SPEED_HIP,
      j[1].getJointAngle() + 1.0,
      j[1].getJointSpeed() / SPEED_KNEE,
      this.legGroundContact[0] ? 1.0 : 0.0,
      j[2].getJointAngle(),
      j[2].getJointSpeed() / SPEED_HIP,
      j[3].getJointAngle() + 1.0,
      j[3].getJointSpeed() / SPEED_KNEE,
      this.legGroundContact[1] ? 1.0 : 0.0,
      ...this.lidar.map((ray) => ray.fraction),
    ];

    this.scroll = pos.x - VIEWPORT_W / SCALE / 5;

    // Progress to the right, normalised to about 300 over the course, minus a penalty for a tilted hull.
    const shaping = (130 * pos.x) / SCALE - 5.0 * Math.abs(state[0]);
    let reward = this.prevShaping === null ? 0 : shaping - this.prevShaping;
    this.prevShaping = shaping;
    // Torque cost: about -50 over a heuristic walk; a better agent spends less.
    for (let k = 0; k < 4; k++) reward -= 0.00035 * MOTORS_TORQUE * clip(Math.abs(action[k]), 0, 1);

    let terminated = false;
    if (this.gameOver || pos.x < 0) {
      reward = -100;
      terminated = true;
    }
    // Reaching the end of the course (the last grass stretch) also ends the episode, with no bonus.
    if (pos.x > (TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP) terminated = true;

    return [Float32Array.from(state), reward, terminated, false, {}];
  }

  /** Gymnasium's scene: sky, parallax clouds, terrain, one sweeping lidar ray, the walker and the start flag. */
  override render(): Frame | null {
    if (this.renderMode === null) {
      warnRenderModeNotSet(this.spec?.id ?? "BipedalWalker-v3");
      return null;
    }
    if (this.hull === null) return null;

    // Gymnasium draws on a surface (VIEWPORT_W + scroll) px wide and returns its last VIEWPORT_W columns; drawing
    // everything shifted left by that many pixels is the same picture on a VIEWPORT_W canvas.
    const offset = Math.trunc(Math.max(0.0, this.scroll) * SCALE);
    const scroll = this.scroll;
    const canvas = new Canvas(VIEWPORT_W, VIEWPORT_H, [0, 0, 0]);
    const toPx = (x: number, y: number): Point => [x - offset, y];

    canvas.fillPolygon(
      [
        toPx(scroll * SCALE, 0),
        toPx(scroll * SCALE + VIEWPORT_W, 0),
        toPx(scroll * SCALE + VIEWPORT_W, VIEWPORT_H),
        toPx(scroll * SCALE, VIEWPORT_H),
      ],
      [215, 215, 255],
    );

    for (const { poly, x1, x2 } of this.cloudPoly) {
      // Clouds move at half the scroll speed.
      if (x2 < scroll / 2 || x1 > scroll / 2 + VIEWPORT_W / SCALE) continue;
      canvas.fillPolygon(
        poly.map((p) => toPx(p[0] * SCALE + (scroll * SCALE) / 2, p[1] * SCALE)),
        [255, 255, 255],
      );
    }
    for (const { poly, color } of this.terrainPoly) {
      if (poly[1][0] < scroll || poly[0][0] > scroll + VIEWPORT_W / SCALE) continue;
      canvas.fillPolygon(
        poly.map((p) => toPx(p[0] * SCALE, p[1] * SCALE)),
        color,
      );
    }

    // One ray per frame, sweeping out over rays 0..9 and back over 9..0, then 80 frames without.
    this.lidarRender = (this.lidarRender + 1) % 100;
    const r = this.lidarRender;
    if (r < 2 * this.lidar.length) {
      const ray = r < this.lidar.length ? this.lidar[r] : this.lidar[2 * this.lidar.length - r - 1];
      canvas.line(toPx(ray.p1[0] * SCALE, ray.p1[1] * SCALE), toPx(ray.p2[0] * SCALE, ray.p2[1] * SCALE), [255, 0, 0]);
    }

    // Gymnasium's draw list: the terrain in reverse creation order (ground edges, then obstacles), legs, hull.
    for (let k = this.terrain.length - 1; k >= 0; k--) {
      const { body, color1, color2 } = this.terrain[k];
      const shape = body.getFixtureList()!.getShape();
      if (shape.getType() === "edge") {
        const edge = shape as Edge;
        canvas.line(
          toPx(edge.m_vertex1.x * SCALE, edge.m_vertex1.y * SCALE),
          toPx(edge.m_vertex2.x * SCALE, edge.m_vertex2.y * SCALE),
          color1,
        );
      } else {
        drawBody(canvas, body, color1, color2, offset);
      }
    }
    for (const i of [-1, +1]) {
      const color1: RGB = [153 - i * 25, 76 - i * 25, 127 - i * 25];
      const color2: RGB = [102 - i * 25, 51 - i * 25, 76 - i * 25];
      const k = i === -1 ? 0 : 2;
      drawBody(canvas, this.legs[k], color1, color2, offset);
      drawBody(canvas, this.legs[k + 1], color1, color2, offset);
    }
    drawBody(canvas, this.hull, [127, 51, 229], [76, 76, 127], offset);

    const flagy1 = TERRAIN_HEIGHT * SCALE;
    const flagy2 = flagy1 + 50;
    const x = TERRAIN_STEP * 3 * SCALE;
    canvas.line(toPx(x, flagy1), toPx(x, flagy2), [0, 0, 0]);
    const flag: Point[] = [toPx(x, flagy2), toPx(x, flagy2 - 10), toPx(x + 25, flagy2 - 5)];
    canvas.fillPolygon(flag, [230, 51, 0]);
    canvas.polyline([...flag, flag[0]], [0, 0, 0]);

    canvas.flipVertical();
    return canvas.toFrame();
  }

  override close(): void {
    this.world = null;
    this.hull = null;
    this.legs = [];
    this.joints = [];
  }
}
