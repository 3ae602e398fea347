// dm_control's lqr domain (suite/lqr.py): lqr_2_1 (2 bodies, 1 actuator), lqr_6_2 (6 bodies, 2 actuators).
// No time limit; actions every 0.03 s (the physics timestep); constraints disabled.
// Model: `_make_model` chains n bodies onto the world, each with a slide joint `joint_i` whose stiffness is
// U(15, 25) and damping U(0, 0) (both drawn, in that order, from the task's RandomState when the env is made, so
// the model of an env made without a seed is random and not reproduced by a later reset seed, as in dm_control),
// a geom and a site; neighbouring sites are joined by spatial tendons; the first k joints get unlimited motors.
// Initial state: qpos = sqrt(2) u / |u| with u = randn(nq). Observation: position, velocity.
// Reward: 1 - (|qpos|^2 / 2 + 0.1 |ctrl|^2 / 2). Termination (discount 0) once |(qpos, qvel)| < 1e-6.

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import { RandomState } from "./random_state.ts";

const CONTROL_COST_COEF = 0.1;
const TERMINAL_TOL = 1e-6;

/** The MJCF of an LQR chain, drawing each joint's stiffness and damping from `random`. */
export function lqrModel(nBodies: number, nActuators: number, random: RandomState): string {
  if (nBodies < 1 || nActuators < 1) throw new RangeError("At least 1 body and 1 actuator required.");
  if (nActuators > nBodies) throw new RangeError("At most 1 actuator per body.");
  const bodies: string[] = [];
  let actuators = "";
  let tendons = "";
  for (let i = 0; i < nBodies; i++) {
    const stiffness = random.uniform(15, 25);
    const damping = random.uniform(0, 0);
    const pos = i === 0 ? ".25 0 .1" : ".25 0 0";
    bodies.push(
      `<body name="body_${i}" pos="${pos}"><joint name="joint_${i}" stiffness="${stiffness}" damping="${damping}"/>` +
        `<geom name="geom_${i}"/><site name="site_${i}"/>`,
    );
    if (i < nActuators) actuators += `<motor name="motor_${i}" joint="joint_${i}"/>`;
    if (i < nBodies - 1)
      tendons += `<spatial name="tendon_${i}"><site site="site_${i}"/><site site="site_${i + 1}"/></spatial>`;
  }
  const chain = bodies.join("") + "</body>".repeat(nBodies);
  const xml = readModel("lqr.xml");
  const worldEnd = xml.lastIndexOf("</worldbody>");
  const withChain = xml.slice(0, worldEnd) + chain + xml.slice(worldEnd);
  return withChain.replace("</mujoco>", `<actuator>${actuators}</actuator><tendon>${tendons}</tendon></mujoco>`);
}

export class LqrPhysics extends Physics {
  stateNorm(): number {
    return norm([...this.dataF64("qpos"), ...this.dataF64("qvel")]);
  }
}

function halfSquaredNorm(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  return 0.5 * s;
}

export class LqrLevel extends Task<LqrPhysics> {
  constructor(
    readonly controlCostCoef: number,
    random?: RandomState | number,
  ) {
    super(random);
    if (controlCostCoef <= 0) throw new RangeError("control_cost_coef must be positive.");
  }

  initializeEpisode(physics: LqrPhysics): void {
    const nq = physics.model.nq;
    const unit = this.random.randnArray(nq);
    const n = norm(unit);
    const qpos = physics.dataF64("qpos");
    for (let i = 0; i < nq; i++) qpos[i] = (Math.SQRT2 * unit[i]) / n;
  }

  getObservation(physics: LqrPhysics): Observation {
    return new Map([
      ["position", physics.position()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: LqrPhysics): number {
    const stateCost = halfSquaredNorm(physics.position());
    const controlCost = halfSquaredNorm(physics.control());
    return 1 - (stateCost + controlCost * this.controlCostCoef);
  }

  override getTermination(physics: LqrPhysics): number | null {
    return physics.stateNorm() < TERMINAL_TOL ? 0.0 : null;
  }
}

export const LQR_TASKS = ["lqr_2_1", "lqr_6_2"];

export function loadLqr(task: string, random?: RandomState | number): Environment<LqrPhysics> {
  const rng = random instanceof RandomState ? random : new RandomState(random);
  const [nBodies, nActuators] = task === "lqr_2_1" ? [2, 1] : [6, 2];
  const physics = new LqrPhysics(lqrModel(nBodies, nActuators, rng));
  return new Environment(physics, new LqrLevel(CONTROL_COST_COEF, rng), { timeLimit: Number.POSITIVE_INFINITY });
}
