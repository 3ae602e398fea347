// dm_control's cartpole domain (suite/cartpole.py): balance, balance_sparse, swingup, swingup_sparse, two_poles,
// three_poles. 10 s episodes at 100 Hz (the physics timestep, RK4).
//
// Model: `assets/cartpole.xml`; for n > 1 poles, poles 2..n are chained onto the first, each a body `pole_i` at
// (0, 0, 1) of class "pole" with joint `hinge_i` and geom `pole_i`, as `_make_model` builds them (it also moves the
// floor and cameras, which change nothing here).
// Initial state: balance tasks put the cart at U(-0.1, 0.1) and every hinge at U(-0.034, 0.034); swing-up tasks
// put the cart at 0.01 N(0, 1), the first pole at pi + 0.01 N(0, 1) (hanging down) and further poles at
// 0.1 N(0, 1); then every velocity is 0.01 N(0, 1).
// Observation: position = (cart x, then each pole's cos and sin of its angle: xmat zz and xz), velocity = qvel.
// Reward, smooth: mean over poles of (cos + 1) / 2, times (1 + centered) / 2 with centered a Gaussian tolerance of
// the cart position (margin 2), times (4 + small control) / 5 (quadratic tolerance of the control, margin 1, 0 at
// the margin), times (1 + small velocity) / 2 (the smallest Gaussian tolerance of the hinge velocities, margin 5).
// Sparse: 1 while the cart is within +-0.25 and every pole's cosine is within [0.995, 1], else 0.

import { Environment, type Observation, Task } from "./control.ts";
import { hstack, mean, min, prod, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 10;
const CART_RANGE = [-0.25, 0.25] as const;
const ANGLE_COSINE_RANGE = [0.995, 1] as const;

/** The MJCF of a cart with `nPoles` chained poles. */
export function cartpoleModel(nPoles: number): string {
  const xml = readModel("cartpole.xml");
  if (nPoles === 1) return xml;
  let chain = "";
  for (let i = nPoles; i >= 2; i--)
    chain = `<body name="pole_${i}" pos="0 0 1" childclass="pole"><joint name="hinge_${i}"/><geom name="pole_${i}"/>${chain}</body>`;
  return xml.replace(/(<geom name="pole_1"\/>)/, `$1${chain}`);
}

export class CartpolePhysics extends Physics {
  private readonly slider = this.qposAddress("slider");
  private readonly nPoles = this.model.nbody - 2;

  cartPosition(): number {
    return this.dataF64("qpos")[this.slider];
  }

  angularVel(): Float64Array {
    return this.dataF64("qvel").slice(1);
  }

  /** The cosine of each pole's angle: xmat's zz entry of bodies 2 and up. */
  poleAngleCosine(): Float64Array {
    const xmat = this.dataF64("xmat");
    const out = new Float64Array(this.nPoles);
    for (let i = 0; i < this.nPoles; i++) out[i] = xmat[9 * (i + 2) + 8];
    return out;
  }

  /** Cart position, then each pole's (zz, xz) xmat entries. */
  boundedPosition(): Float64Array {
    const xmat = this.dataF64("xmat");
    const angles = new Float64Array(2 * this.nPoles);
    for (let i = 0; i < this.nPoles; i++) {
      angles[2 * i] = xmat[9 * (i + 2) + 8];
      angles[2 * i + 1] = xmat[9 * (i + 2) + 2];
    }
    return hstack(this.cartPosition(), angles);
  }
}

export class Balance extends Task<CartpolePhysics> {
  constructor(
    readonly swingUp: boolean,
    readonly sparse: boolean,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: CartpolePhysics): void {
    const nv = physics.model.nv;
    const qpos = physics.dataF64("qpos");
    const slider = physics.qposAddress("slider");
    const hinge1 = physics.qposAddress("hinge_1");
    if (this.swingUp) {
      qpos[slider] = 0.01 * this.random.randn();
      qpos[hinge1] = Math.PI + 0.01 * this.random.randn();
      const rest = this.random.randnArray(nv - 2);
      for (let i = 0; i < nv - 2; i++) qpos[2 + i] = 0.1 * rest[i];
    } else {
      qpos[slider] = this.random.uniform(-0.1, 0.1);
      const hinges = this.random.uniformArray(-0.034, 0.034, nv - 1);
      for (let i = 0; i < nv - 1; i++) qpos[1 + i] = hinges[i];
    }
    const noise = this.random.randnArray(nv);
    const qvel = physics.dataF64("qvel");
    for (let i = 0; i < nv; i++) qvel[i] = 0.01 * noise[i];
  }

  getObservation(physics: CartpolePhysics): Observation {
    return new Map([
      ["position", physics.boundedPosition()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: CartpolePhysics): number {
    if (this.sparse) {
      const cartInBounds = tolerance(physics.cartPosition(), { bounds: CART_RANGE });
      const angleInBounds = prod(
        Array.from(physics.poleAngleCosine(), (c) => tolerance(c, { bounds: ANGLE_COSINE_RANGE })),
      );
      return cartInBounds * angleInBounds;
    }
    const upright = Array.from(physics.poleAngleCosine(), (c) => (c + 1) / 2);
    const centered = (1 + tolerance(physics.cartPosition(), { margin: 2 })) / 2;
    const smallControl =
      (4 + tolerance(physics.control()[0], { margin: 1, valueAtMargin: 0, sigmoid: "quadratic" })) / 5;
    const smallVelocity = (1 + min(Array.from(physics.angularVel(), (v) => tolerance(v, { margin: 5 })))) / 2;
    return mean(upright) * smallControl * smallVelocity * centered;
  }
}

const TASKS: Record<string, { poles: number; swingUp: boolean; sparse: boolean }> = {
  balance: { poles: 1, swingUp: false, sparse: false },
  balance_sparse: { poles: 1, swingUp: false, sparse: true },
  swingup: { poles: 1, swingUp: true, sparse: false },
  swingup_sparse: { poles: 1, swingUp: true, sparse: true },
  two_poles: { poles: 2, swingUp: true, sparse: false },
  three_poles: { poles: 3, swingUp: true, sparse: false },
};

export const CARTPOLE_TASKS = Object.keys(TASKS);

export function loadCartpole(task: string, random?: RandomState | number): Environment<CartpolePhysics> {
  const spec = TASKS[task];
  const physics = new CartpolePhysics(cartpoleModel(spec.poles));
  return new Environment(physics, new Balance(spec.swingUp, spec.sparse, random), { timeLimit: TIME_LIMIT });
}
