// procgen's entity model (`entity.h/.cpp`) and the object ids every game shares (`object-ids.h`).
//
// An entity is an axis-aligned box: centre (x, y), half-extents (rx, ry), world y pointing UP. Games keep their
// entities in one plain array; order matters everywhere (stepping and collisions run from the end, drawing from
// the start, new entities are appended), exactly as the C++ vector.

import { atan2f } from "./libm.ts";

export const PLAYER = 0;
export const WALL_OBJ = 51;
export const EXIT_OBJ = 52;
export const AGENT_OBJ = 53;
export const EXPLOSION = 54;
export const EXPLOSION2 = 55;
export const EXPLOSION3 = 56;
export const EXPLOSION4 = 57;
export const EXPLOSION5 = 58;
export const TRAIL = 59;
export const SPACE = 100;
export const INVALID_OBJ = -1;
export const DOOR_OBJ = 200;
export const KEY_OBJ = 300;

/** Types at or above this are never drawn from images: they are solid colour fills (procgen's USE_ASSET_THRESHOLD). */
export const USE_ASSET_THRESHOLD = 100;

/**
 * procgen's `Entity`. Its real-valued fields are C++ `float`s: every store rounds to float32 (the accessors below),
 * so positions, speeds and sizes follow the original's values bit for bit where the arithmetic does.
 */
export class Entity {
  type: number;
  imageType: number;
  imageTheme = 0;
  /** -1: drawn before the grid; 0: after it; 1: last (the agent, clouds). */
  renderZ = 0;
  willErase = false;
  collidesWithEntities = false;
  isReflected = false;
  fireTime = -1;
  spawnTime = -1;
  lifeTime = 0;
  expireTime = -1;
  /** Position and size in screen fractions rather than world units (overlays). */
  useAbsCoords = false;
  /** Moved by the engine's sub-stepping collision physics (`basic_step_object`) instead of x += vx. */
  smartStep = false;
  /** Ignored by `hasAnyCollision` when other entities are placed. */
  avoidsCollisions = false;
  /** Erased as soon as it is fully outside the world. */
  autoErase = true;

  private _x = 0;
  private _y = 0;
  private _vx = 0;
  private _vy = 0;
  private _rx = 0;
  private _ry = 0;
  private _collisionMargin = 0;
  private _rotation = 0;
  private _vrot = 0;
  private _friction = 1;
  private _alpha = 1;
  private _health = 1;
  private _theta = -100;
  private _growRate = 1;
  private _alphaDecay = 1;
  private _climberSpawnX = 0;

  get x(): number {
    return this._x;
  }
  set x(v: number) {
    this._x = Math.fround(v);
  }
  get y(): number {
    return this._y;
  }
  set y(v: number) {
    this._y = Math.fround(v);
  }
  get vx(): number {
    return this._vx;
  }
  set vx(v: number) {
    this._vx = Math.fround(v);
  }
  get vy(): number {
    return this._vy;
  }
  set vy(v: number) {
    this._vy = Math.fround(v);
  }
  get rx(): number {
    return this._rx;
  }
  set rx(v: number) {
    this._rx = Math.fround(v);
  }
  get ry(): number {
    return this._ry;
  }
  set ry(v: number) {
    this._ry = Math.fround(v);
  }
  get collisionMargin(): number {
    return this._collisionMargin;
  }
  set collisionMargin(v: number) {
    this._collisionMargin = Math.fround(v);
  }
  /** Radians, clockwise on screen. */
  get rotation(): number {
    return this._rotation;
  }
  set rotation(v: number) {
    this._rotation = Math.fround(v);
  }
  get vrot(): number {
    return this._vrot;
  }
  set vrot(v: number) {
    this._vrot = Math.fround(v);
  }
  get friction(): number {
    return this._friction;
  }
  set friction(v: number) {
    this._friction = Math.fround(v);
  }
  get alpha(): number {
    return this._alpha;
  }
  set alpha(v: number) {
    this._alpha = Math.fround(v);
  }
  get health(): number {
    return this._health;
  }
  set health(v: number) {
    this._health = Math.fround(v);
  }
  get theta(): number {
    return this._theta;
  }
  set theta(v: number) {
    this._theta = Math.fround(v);
  }
  get growRate(): number {
    return this._growRate;
  }
  set growRate(v: number) {
    this._growRate = Math.fround(v);
  }
  get alphaDecay(): number {
    return this._alphaDecay;
  }
  set alphaDecay(v: number) {
    this._alphaDecay = Math.fround(v);
  }
  get climberSpawnX(): number {
    return this._climberSpawnX;
  }
  set climberSpawnX(v: number) {
    this._climberSpawnX = Math.fround(v);
  }

  constructor(x: number, y: number, vx: number, vy: number, rx: number, ry: number, type: number) {
    this.x = x;
    this.y = y;
    this.vx = vx;
    this.vy = vy;
    this.rx = rx;
    this.ry = ry;
    this.type = type;
    this.imageType = type;
    if (type === EXPLOSION) {
      this.growRate = 1.4;
      this.expireTime = 4;
    } else if (type === TRAIL) {
      this.growRate = 1.05;
      this.alphaDecay = 0.8;
    }
  }

  /** The per-step update every entity gets after (optional) collision physics. */
  step(): void {
    if (!this.smartStep) {
      this.x += this.vx;
      this.y += this.vy;
    }
    this.rotation += this.vrot;
    this.vx *= this.friction;
    this.vy *= this.friction;
    this.lifeTime += 1;
    if (this.expireTime > 0 && this.lifeTime > this.expireTime) this.willErase = true;
    // Explosions animate through their five images, one per step.
    if (this.type === EXPLOSION && this.imageType < EXPLOSION5) this.imageType += 1;
    this.rx *= this.growRate;
    this.ry *= this.growRate;
    this.alpha *= this.alphaDecay;
  }

  faceDirection(dx: number, dy: number, offset = 0): void {
    // glibc's atan2f of the float arguments (procgen's float overload); the sum is rounded when stored.
    if (dx !== 0 || dy !== 0) this.rotation = -atan2f(dy, dx) + Math.fround(offset);
  }
}
