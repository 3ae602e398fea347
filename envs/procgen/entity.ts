// procgen's entity model (`entity.h/.cpp`) and the object ids every game shares (`object-ids.h`).
//
// An entity is an axis-aligned box: centre (x, y), half-extents (rx, ry), world y pointing UP. Games keep their
// entities in one plain array; order matters everywhere (stepping and collisions run from the end, drawing from
// the start, new entities are appended), exactly as the C++ vector.

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

export class Entity {
  x: number;
  y: number;
  vx: number;
  vy: number;
  rx: number;
  ry: number;
  type: number;
  imageType: number;
  imageTheme = 0;
  /** -1: drawn before the grid; 0: after it; 1: last (the agent, clouds). */
  renderZ = 0;
  willErase = false;
  collidesWithEntities = false;
  collisionMargin = 0;
  /** Radians, clockwise on screen. */
  rotation = 0;
  vrot = 0;
  isReflected = false;
  fireTime = -1;
  spawnTime = -1;
  lifeTime = 0;
  expireTime = -1;
  /** Position and size in screen fractions rather than world units (overlays). */
  useAbsCoords = false;
  friction = 1;
  /** Moved by the engine's sub-stepping collision physics (`basic_step_object`) instead of x += vx. */
  smartStep = false;
  /** Ignored by `hasAnyCollision` when other entities are placed. */
  avoidsCollisions = false;
  /** Erased as soon as it is fully outside the world. */
  autoErase = true;
  alpha = 1;
  health = 1;
  theta = -100;
  growRate = 1;
  alphaDecay = 1;
  climberSpawnX = 0;

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
    if (dx !== 0 || dy !== 0) this.rotation = -Math.atan2(dy, dx) + offset;
  }
}
