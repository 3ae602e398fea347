// LunarLander, ported from Gymnasium 1.0's `gymnasium/envs/box2d/lunar_lander.py` (LunarLander-v3), on planck.
//
// Land a rigid-body lander with two spring-loaded legs on a pad between two flags. The moon's surface is 11 random
// chunks (the pad in the middle is flat), the lander starts at the top centre with a random push, and the engines
// fire impulses with a random dispersion. Every constant below is Gymnasium's; the physics engine is planck (a
// TypeScript port of Box2D 2.3, the version pybox2d wraps), stepped exactly as Gymnasium steps Box2D.
//
// What cannot carry over bit for bit: Box2D computes in float32 and planck in float64, so trajectories for a given
// seed drift from Python's, although the env's generator is numpy's PCG64 and the terrain heights, the initial push
// and the engine dispersion are drawn in the order of Gymnasium's code; the rewards and the termination rules are
// the same.
//
// v3 versus v2 (Gymnasium 1.0 changelog): v3 re-draws the wind/turbulence offsets from the env's seeded generator on
// every reset (v2 drew them once, unseeded, at construction), builds a fresh Box2D world on every reset (v2 reused
// one, which made resets non-deterministic), and widens the observation bounds (x, y: +-1.5 -> +-2.5; velocities
// +-5 -> +-10; angle +-pi -> +-2 pi). These change observable behaviour, so `-v2` is not registered as an alias.

import { Box as BoxShape, Circle, Edge, Polygon, RevoluteJoint, Vec2, World, type Body, type Contact } from "planck";

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, Discrete } from "../gymnasium/spaces.ts";
import type { Float32Box } from "../gymnasium/spaces.ts";
import { Canvas, type Frame, type Point, type RGB, warnRenderModeNotSet } from "../classic_control/raster.ts";

export const FPS = 50;
/** Pixels per Box2D metre; it also sets how fast-paced the game is (forces are tuned to it). */
export const SCALE = 30.0;

export const MAIN_ENGINE_POWER = 13.0;
export const SIDE_ENGINE_POWER = 0.6;

/** Bound of each component of the random force applied to the lander at reset (Gymnasium: "1500 makes it harder"). */
export const INITIAL_RANDOM = 1000.0;

/** The lander's hull, in pixels (divided by SCALE when it becomes a Box2D polygon). */
export const LANDER_POLY: readonly Point[] = [
  [-14, +17],
  [-17, 0],
  [-17, -10],
  [+17, -10],
  [+17, 0],
  [+14, +17],
];
export const LEG_AWAY = 20;
export const LEG_DOWN = 18;
export const LEG_W = 2;
export const LEG_H = 8;
export const LEG_SPRING_TORQUE = 40;

export const SIDE_ENGINE_HEIGHT = 14;
export const SIDE_ENGINE_AWAY = 12;
/** Where the main engine sits below the lander's centre, in pixels. */
export const MAIN_ENGINE_Y_LOCATION = 4;

export const VIEWPORT_W = 600;
export const VIEWPORT_H = 400;

/** Number of terrain chunk boundaries across the viewport; the helipad spans the two middle chunks. */
export const CHUNKS = 11;

const W = VIEWPORT_W / SCALE;
const H = VIEWPORT_H / SCALE;

/** Collision categories: the moon is Box2D's default category 1, and everything else collides only with it. */
const GROUND_CATEGORY = 0x0001;
const LANDER_CATEGORY = 0x0010;
const LEG_CATEGORY = 0x0020;
const PARTICLE_CATEGORY = 0x0100;

const LANDER_COLOR1: RGB = [128, 102, 230];
const LANDER_COLOR2: RGB = [77, 77, 128];

export interface LunarLanderKwargs {
  renderMode?: string | null;
  /** `Box(-1, 1, (2,))` actions (main throttle, lateral throttle) instead of `Discrete(4)`. */
  continuous?: boolean;
  /** The moon's gravity, strictly between -12 and 0 (default -10). */
  gravity?: number;
  /** Applies a non-periodic horizontal wind and turbulence torque while no leg touches the ground. */
  enableWind?: boolean;
  /** Maximum wind force (recommended 0..20, default 15). */
  windPower?: number;
  /** Maximum turbulence torque (recommended 0..2, default 1.5). */
  turbulencePower?: number;
}

/** A decorative exhaust particle: a tiny Box2D circle that bounces on the ground and fades as `ttl` runs out. */
interface Particle {
  body: Body;
  ttl: number;
  color: RGB;
}

export class LunarLander extends Env<Float32Array, number | ArrayLike<number>> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: FPS };

  readonly continuous: boolean;
  readonly gravity: number;
  readonly enableWind: boolean;
  readonly windPower: number;
  readonly turbulencePower: number;

  readonly observationSpace: Float32Box;
  readonly actionSpace: Discrete | Float32Box;

  /** Non-null after `reset`: the Box2D world, rebuilt on every reset (the v3 determinism fix). */
  world: World | null = null;
  lander: Body | null = null;
  /** Left leg (index 0, at -x) and right leg (index 1). */
  legs: Body[] = [];
  /** Whether each leg currently touches the moon, maintained by the contact listener. */
  readonly legGroundContact: [boolean, boolean] = [false, false];
  /** Set when the lander's body (not a leg) touches the moon: a crash. */
  gameOver = false;
  /** Phase of the wind and turbulence functions; drawn from the env's generator on each reset when wind is on. */
  windIdx = 0;
  torqueIdx = 0;

  helipadX1 = 0;
  helipadX2 = 0;
  helipadY = 0;
  /** The black sky above each terrain chunk, in world coordinates (rendering only). */
  private skyPolys: Point[][] = [];
  private prevShaping: number | null = null;
  private particles: Particle[] = [];

  constructor(kwargs: LunarLanderKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.continuous = kwargs.continuous ?? false;
    this.gravity = kwargs.gravity ?? -10.0;
    this.enableWind = kwargs.enableWind ?? false;
    this.windPower = kwargs.windPower ?? 15.0;
    this.turbulencePower = kwargs.turbulencePower ?? 1.5;

    // Gymnasium asserts the gravity range and only warns about out-of-range wind settings.
    if (!(-12.0 < this.gravity && this.gravity < 0.0)) {
      throw new RangeError(`gravity (current value: ${this.gravity}) must be between -12 and 0`);
    }
    if (0.0 > this.windPower || this.windPower > 20.0) {
      console.warn(`wind_power value is recommended to be between 0.0 and 20.0, (current value: ${this.windPower})`);
    }
    if (0.0 > this.turbulencePower || this.turbulencePower > 2.0) {
      console.warn(
        `turbulence_power value is recommended to be between 0.0 and 2.0, (current value: ${this.turbulencePower})`,
      );
    }

    // v3 bounds: positions may overshoot the viewport by 150% before the episode ends, velocities by 10x the
    // rated speed; the leg-contact flags are 0 or 1. The "useful" range is -1..1, but spikes can be higher.
    const high = [2.5, 2.5, 10.0, 10.0, 2 * Math.PI, 10.0, 1.0, 1.0];
    const low = [-2.5, -2.5, -10.0, -10.0, -2 * Math.PI, -10.0, -0.0, -0.0];
    this.observationSpace = new Box(low, high, [8], "float32") as Float32Box;
    // Continuous: [main, lateral]. Main: -1..0 off, 0..1 throttle 50%..100% (the engine cannot run below 50%).
    // Lateral: -1..-0.5 left engine, 0.5..1 right engine, in between off. Discrete: noop, left, main, right.
    this.actionSpace = this.continuous ? (new Box(-1, +1, [2], "float32") as Float32Box) : new Discrete(4);
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    const rng = this.npRandom;
    // A fresh world on every reset, as v3 does: destroying the bodies of the old one left state behind in Box2D
    // (Gymnasium issue #728), and a new world is also what makes our resets reproducible.
    const world = new World({ gravity: Vec2(0, this.gravity) });
    this.world = world;
    this.particles = [];
    this.gameOver = false;
    this.prevShaping = null;
    this.legGroundContact[0] = false;
    this.legGroundContact[1] = false;

    // Terrain: CHUNKS + 1 random heights in [0, H/2), the five around the middle flattened to the helipad height,
    // then a 3-point moving average (0.33, not 1/3, as Gymnasium; height[-1] wraps around as Python indexing does).
    const height = Array.from({ length: CHUNKS + 1 }, () => rng.uniform(0, H / 2));
    const chunkX = Array.from({ length: CHUNKS }, (_, i) => (W / (CHUNKS - 1)) * i);
    const mid = Math.floor(CHUNKS / 2);
    this.helipadX1 = chunkX[mid - 1];
    this.helipadX2 = chunkX[mid + 1];
    this.helipadY = H / 4;
    for (let k = -2; k <= 2; k++) height[mid + k] = this.helipadY;
    const smoothY = Array.from(
      { length: CHUNKS },
      (_, i) => 0.33 * (height[(i - 1 + height.length) % height.length] + height[i] + height[i + 1]),
    );

    const moon = world.createBody();
    moon.createFixture(Edge(Vec2(0, 0), Vec2(W, 0)));
    this.skyPolys = [];
    for (let i = 0; i < CHUNKS - 1; i++) {
      const p1: Point = [chunkX[i], smoothY[i]];
      const p2: Point = [chunkX[i + 1], smoothY[i + 1]];
      moon.createFixture(Edge(Vec2(p1[0], p1[1]), Vec2(p2[0], p2[1])), { density: 0, friction: 0.1 });
      this.skyPolys.push([p1, p2, [p2[0], H], [p1[0], H]]);
    }

    const initialX = VIEWPORT_W / SCALE / 2;
    const initialY = VIEWPORT_H / SCALE;
    const lander = world.createDynamicBody({ position: Vec2(initialX, initialY), angle: 0.0 });
    lander.createFixture(Polygon(LANDER_POLY.map(([x, y]) => Vec2(x / SCALE, y / SCALE))), {
      density: 5.0,
      friction: 0.1,
      filterCategoryBits: LANDER_CATEGORY,
      filterMaskBits: GROUND_CATEGORY,
      restitution: 0.0,
    });
    this.lander = lander;

    // The random initial push: a force that acts during the first world step (the one `reset` takes below).
    lander.applyForceToCenter(
      Vec2(rng.uniform(-INITIAL_RANDOM, INITIAL_RANDOM), rng.uniform(-INITIAL_RANDOM, INITIAL_RANDOM)),
      true,
    );

    if (this.enableWind) {
      // v3: the phases C of tanh(sin(2k(t+C)) + sin(pi k(t+C))) come from the seeded generator, once per episode.
      this.windIdx = rng.integers(-9999, 9999);
      this.torqueIdx = rng.integers(-9999, 9999);
    }

    this.legs = [];
    for (const i of [-1, +1]) {
      const leg = world.createDynamicBody({
        position: Vec2(initialX - (i * LEG_AWAY) / SCALE, initialY),
        angle: i * 0.05,
      });
      leg.createFixture(BoxShape(LEG_W / SCALE, LEG_H / SCALE), {
        density: 1.0,
        restitution: 0.0,
        filterCategoryBits: LEG_CATEGORY,
        filterMaskBits: GROUND_CATEGORY,
      });
      // The leg hangs from the hull centre with a weak motor pushing it outwards against a joint limit: a spring.
      // Box2D's revoluteJointDef defaults referenceAngle to 0; planck would default it to the bodies' current
      // relative angle (here +-0.05), shifting the limits, so it is given explicitly.
      const joint = RevoluteJoint({
        bodyA: lander,
        bodyB: leg,
        localAnchorA: Vec2(0, 0),
        localAnchorB: Vec2((i * LEG_AWAY) / SCALE, LEG_DOWN / SCALE),
        referenceAngle: 0,
        enableMotor: true,
        enableLimit: true,
        maxMotorTorque: LEG_SPRING_TORQUE,
        motorSpeed: +0.3 * i, // low enough not to jump back into the sky
        // Gymnasium's "most esoteric numbers": angled legs may travel within a 0.5 rad window.
        lowerAngle: i === -1 ? +0.9 - 0.5 : -0.9,
        upperAngle: i === -1 ? +0.9 : -0.9 + 0.5,
      });
      world.createJoint(joint);
      this.legs.push(leg);
    }

    // Gymnasium's ContactDetector: any contact of the hull is a crash; leg contacts toggle the leg's flag.
    const onContact = (touching: boolean) => (contact: Contact) => {
      const a = contact.getFixtureA().getBody();
      const b = contact.getFixtureB().getBody();
      if (touching && (a === lander || b === lander)) this.gameOver = true;
      for (let k = 0; k < 2; k++) if (a === this.legs[k] || b === this.legs[k]) this.legGroundContact[k] = touching;
    };
    world.on("begin-contact", onContact(true));
    world.on("end-contact", onContact(false));

    // Gymnasium returns the observation of one no-op step, which also applies the initial push.
    const [obs] = this.step(this.continuous ? [0, 0] : 0);
    return [obs, {}];
  }

  step(action: number | ArrayLike<number>): StepResult<Float32Array> {
    const world = this.world;
    const lander = this.lander;
    if (world === null || lander === null) throw new Error("You forgot to call reset()");

    if (this.enableWind && !(this.legGroundContact[0] || this.legGroundContact[1])) {
      // tanh(sin(2 k x) + sin(pi k x)) with k = 0.01 is never periodic.
      const windMag =
        Math.tanh(Math.sin(0.02 * this.windIdx) + Math.sin(Math.PI * 0.01 * this.windIdx)) * this.windPower;
      this.windIdx += 1;
      lander.applyForceToCenter(Vec2(windMag, 0.0), true);
      const torqueMag =
        Math.tanh(Math.sin(0.02 * this.torqueIdx) + Math.sin(Math.PI * 0.01 * this.torqueIdx)) * this.turbulencePower;
      this.torqueIdx += 1;
      lander.applyTorque(torqueMag, true);
    }

    let main: number;
    let lateral: number;
    let discrete = -1;
    if (this.continuous) {
      const a = action as ArrayLike<number>;
      main = clip(a[0], -1, 1);
      lateral = clip(a[1], -1, 1);
    } else {
      if (!this.actionSpace.contains(action)) throw new Error(`${String(action)} (${typeof action}) invalid`);
      discrete = action as number;
      main = lateral = 0;
    }

    // tip points along the lander's up axis, side along its right axis.
    const angle = lander.getAngle();
    const tip: Point = [Math.sin(angle), Math.cos(angle)];
    const side: Point = [-tip[1], tip[0]];
    // Drawn every step, whether or not an engine fires, so the generator's stream does not depend on the actions.
    const dispersion = [this.npRandom.uniform(-1.0, +1.0) / SCALE, this.npRandom.uniform(-1.0, +1.0) / SCALE];
    const position = lander.getPosition();

    let mPower = 0.0;
    if ((this.continuous && main > 0.0) || discrete === 2) {
      mPower = this.continuous ? (clip(main, 0.0, 1.0) + 1.0) * 0.5 : 1.0;
      // The impulse acts MAIN_ENGINE_Y_LOCATION pixels below the centre, +-2 px of dispersion along and across.
      const ox = tip[0] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion[0]) + side[0] * dispersion[1];
      const oy = -tip[1] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion[0]) - side[1] * dispersion[1];
      const impulsePos = Vec2(position.x + ox, position.y + oy);
      if (this.renderMode !== null) {
        this.createParticle(3.5, impulsePos, mPower).applyLinearImpulse(
          Vec2(ox * MAIN_ENGINE_POWER * mPower, oy * MAIN_ENGINE_POWER * mPower),
          impulsePos,
          true,
        );
      }
      lander.applyLinearImpulse(
        Vec2(-ox * MAIN_ENGINE_POWER * mPower, -oy * MAIN_ENGINE_POWER * mPower),
        impulsePos,
        true,
      );
    }

    let sPower = 0.0;
    if ((this.continuous && Math.abs(lateral) > 0.5) || discrete === 1 || discrete === 3) {
      // Discrete 1 fires the left engine (pushing right), 3 the right one: direction = action - 2.
      const direction = this.continuous ? Math.sign(lateral) : discrete - 2;
      sPower = this.continuous ? clip(Math.abs(lateral), 0.5, 1.0) : 1.0;
      const ox = tip[0] * dispersion[0] + side[0] * (3 * dispersion[1] + (direction * SIDE_ENGINE_AWAY) / SCALE);
      const oy = -tip[1] * dispersion[0] - side[1] * (3 * dispersion[1] + (direction * SIDE_ENGINE_AWAY) / SCALE);
      // Gymnasium's 17 (not SIDE_ENGINE_HEIGHT) in the x term makes the thrust point, hence the torque, depend on
      // the lander's orientation; a documented quirk, kept because it is part of v3's dynamics.
      const impulsePos = Vec2(
        position.x + ox - (tip[0] * 17) / SCALE,
        position.y + oy + (tip[1] * SIDE_ENGINE_HEIGHT) / SCALE,
      );
      if (this.renderMode !== null) {
        this.createParticle(0.7, impulsePos, sPower).applyLinearImpulse(
          Vec2(ox * SIDE_ENGINE_POWER * sPower, oy * SIDE_ENGINE_POWER * sPower),
          impulsePos,
          true,
        );
      }
      lander.applyLinearImpulse(
        Vec2(-ox * SIDE_ENGINE_POWER * sPower, -oy * SIDE_ENGINE_POWER * sPower),
        impulsePos,
        true,
      );
    }

    world.step(1.0 / FPS, 6 * 30, 2 * 30);

    const pos = lander.getPosition();
    const vel = lander.getLinearVelocity();
    const state = [
      (pos.x - VIEWPORT_W / SCALE / 2) / (VIEWPORT_W / SCALE / 2),
      (pos.y - (this.helipadY + LEG_DOWN / SCALE)) / (VIEWPORT_H / SCALE / 2),
      (vel.x * (VIEWPORT_W / SCALE / 2)) / FPS,
      (vel.y * (VIEWPORT_H / SCALE / 2)) / FPS,
      lander.getAngle(),
      (20.0 * lander.getAngularVelocity()) / FPS,
      this.legGroundContact[0] ? 1.0 : 0.0,
      this.legGroundContact[1] ? 1.0 : 0.0,
    ];

    // Potential-based shaping: closer, slower, more level and with legs down is better; a leg that loses contact
    // after touching down gives its 10 points back.
    const shaping =
      -100 * Math.sqrt(state[0] * state[0] + state[1] * state[1]) -
      100 * Math.sqrt(state[2] * state[2] + state[3] * state[3]) -
      100 * Math.abs(state[4]) +
      10 * state[6] +
      10 * state[7];
    let reward = this.prevShaping === null ? 0 : shaping - this.prevShaping;
    this.prevShaping = shaping;
    reward -= mPower * 0.3; // fuel: about -30 over a heuristic landing
    reward -= sPower * 0.03;

    let terminated = false;
    if (this.gameOver || Math.abs(state[0]) >= 1.0) {
      terminated = true;
      reward = -100;
    }
    // Box2D puts a body to sleep once it (and everything jointed to it) has been at rest for half a second:
    // a landing that came to rest. Checked last, so it overrides a crash detected on the same step, as in Gymnasium.
    if (!lander.isAwake()) {
      terminated = true;
      reward = +100;
    }
    return [Float32Array.from(state), reward, terminated, false, {}];
  }

  private createParticle(mass: number, position: Vec2, ttl: number): Body {
    const world = this.world!;
    const body = world.createDynamicBody({ position, angle: 0.0 });
    body.createFixture(Circle(Vec2(0, 0), 2 / SCALE), {
      density: mass,
      friction: 0.1,
      filterCategoryBits: PARTICLE_CATEGORY,
      filterMaskBits: GROUND_CATEGORY,
      restitution: 0.3,
    });
    this.particles.push({ body, ttl, color: particleColor(ttl) });
    this.cleanParticles(false);
    return body;
  }

  /** Removes expired particles from the front of the queue (all of them with `all`), as `_clean_particles`. */
  private cleanParticles(all: boolean): void {
    while (this.particles.length > 0 && (all || this.particles[0].ttl < 0))
      this.world!.destroyBody(this.particles.shift()!.body);
  }

  /** Gymnasium's pygame scene: white ground under a black sky, the lander, its exhaust particles and two flags. */
  override render(): Frame | null {
    if (this.renderMode === null) {
      warnRenderModeNotSet(this.spec?.id ?? "LunarLander-v3");
      return null;
    }
    if (this.lander === null) return null;

    // Particles age (and redden, then grey out) once per rendered frame, as in Gymnasium.
    for (const p of this.particles) {
      p.ttl -= 0.15;
      p.color = particleColor(p.ttl);
    }
    this.cleanParticles(false);

    const canvas = new Canvas(VIEWPORT_W, VIEWPORT_H, [255, 255, 255]);
    const px = (p: Point): Point => [p[0] * SCALE, p[1] * SCALE];
    for (const poly of this.skyPolys) canvas.fillPolygon(poly.map(px), [0, 0, 0]);

    for (const p of this.particles) {
      const c = p.body.getPosition();
      canvas.fillCircle(c.x * SCALE, c.y * SCALE, 2, p.color);
    }
    for (const body of [this.lander, ...this.legs]) drawBody(canvas, body, LANDER_COLOR1, LANDER_COLOR2);

    // Gymnasium draws the flags after every fixture, so they end up on top of everything.
    for (const x of [this.helipadX1 * SCALE, this.helipadX2 * SCALE]) {
      const flagy1 = this.helipadY * SCALE;
      const flagy2 = flagy1 + 50;
      canvas.line([x, flagy1], [x, flagy2], [255, 255, 255]);
      canvas.fillPolygon(
        [
          [x, flagy2],
          [x, flagy2 - 10],
          [x + 25, flagy2 - 5],
        ],
        [204, 204, 0],
      );
    }
    canvas.flipVertical();
    return canvas.toFrame();
  }

  override close(): void {
    this.world = null;
    this.lander = null;
    this.legs = [];
    this.particles = [];
  }
}

/** `np.clip` for one number (shared with the walker). */
export function clip(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

/** Exhaust colour for a remaining lifetime: bright red-white when fresh, fading to grey (51, 51, 51). */
function particleColor(ttl: number): RGB {
  return [
    Math.trunc(Math.max(0.2, 0.15 + ttl) * 255),
    Math.trunc(Math.max(0.2, 0.5 * ttl) * 255),
    Math.trunc(Math.max(0.2, 0.5 * ttl) * 255),
  ];
}

/** Every polygon fixture of `body`, filled with `fill` and outlined with `outline`, in pixel coordinates. */
export function drawBody(canvas: Canvas, body: Body, fill: RGB, outline: RGB, offsetX = 0): void {
  const xf = body.getTransform();
  for (let f = body.getFixtureList(); f !== null; f = f.getNext()) {
    const shape = f.getShape();
    if (shape.getType() !== "polygon") continue;
    const path: Point[] = (shape as Polygon).m_vertices.map((v) => {
      const w = xfMul(xf, v);
      return [w[0] * SCALE - offsetX, w[1] * SCALE];
    });
    canvas.fillPolygon(path, fill);
    canvas.polyline([...path, path[0]], outline);
  }
}

/** A body transform applied to a local point. */
function xfMul(xf: { p: { x: number; y: number }; q: { c: number; s: number } }, v: { x: number; y: number }): Point {
  return [xf.q.c * v.x - xf.q.s * v.y + xf.p.x, xf.q.s * v.x + xf.q.c * v.y + xf.p.y];
}

/**
 * Gymnasium's `heuristic(env, s)`: a hand-written PD controller that lands most episodes with a return above 200.
 * It aims the lander's tilt towards the pad (at most 0.4 rad), holds a hover height proportional to the horizontal
 * offset, and once a leg touches only damps the descent. Returns a Discrete action, or `[main, lateral]` in [-1, 1]
 * for the continuous lander.
 */
export function heuristicLander(continuous: boolean, s: ArrayLike<number>): number | Float32Array {
  let angleTarg = s[0] * 0.5 + s[2] * 1.0; // point towards the centre
  angleTarg = clip(angleTarg, -0.4, 0.4); // more than 0.4 rad (22 degrees) is bad
  const hoverTarg = 0.55 * Math.abs(s[0]); // the farther out, the higher to hover

  let angleTodo = (angleTarg - s[4]) * 0.5 - s[5] * 1.0;
  let hoverTodo = (hoverTarg - s[1]) * 0.5 - s[3] * 0.5;
  if (s[6] || s[7]) {
    // legs have contact: just reduce the fall speed
    angleTodo = 0;
    hoverTodo = -s[3] * 0.5;
  }

  if (continuous) return Float32Array.of(clip(hoverTodo * 20 - 1, -1, 1), clip(-angleTodo * 20, -1, 1));
  if (hoverTodo > Math.abs(angleTodo) && hoverTodo > 0.05) return 2;
  if (angleTodo < -0.05) return 3;
  if (angleTodo > +0.05) return 1;
  return 0;
}
