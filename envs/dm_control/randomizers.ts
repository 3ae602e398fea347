// dm_control's `suite.utils.randomizers.randomize_limited_and_rotational_joints`: a random configuration drawn
// joint by joint in model order, consuming the task's RandomState as dm_control does:
// - a limited hinge or slide: U(range); an unlimited hinge: U(-pi, pi); unlimited slides keep their position;
// - a ball joint: unlimited, a uniform unit quaternion (randn(4), normalized); limited, a rotation of
//   rand() * range_max about an axis randn(3) normalized (`random_limited_quaternion`);
// - a free joint: its quaternion becomes rand(4) normalized (dm_control's choice: rand, not randn), its
//   position is kept.
// A joint counts as limited when its range is a non-empty interval: the WASM build cannot read mjModel's boolean
// `jnt_limited` (see Physics.actionBounds), and the models that call this never give an unlimited joint a range.

import { norm } from "./common.ts";
import { JOINT_BALL, JOINT_FREE, JOINT_HINGE, JOINT_SLIDE, type Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";

/** `mju_axisAngle2Quat`: the unit quaternion of a rotation by `angle` about the unit vector `axis`. */
export function axisAngleToQuat(axis: ArrayLike<number>, angle: number): Float64Array {
  const s = Math.sin(angle * 0.5);
  return Float64Array.of(Math.cos(angle * 0.5), axis[0] * s, axis[1] * s, axis[2] * s);
}

function normalized(x: Float64Array): Float64Array {
  const n = norm(x);
  for (let i = 0; i < x.length; i++) x[i] /= n;
  return x;
}

export function randomLimitedQuaternion(random: RandomState, limit: number): Float64Array {
  const axis = normalized(random.randnArray(3));
  const angle = random.randomSample() * limit;
  return axisAngleToQuat(axis, angle);
}

export function randomizeLimitedAndRotationalJoints(physics: Physics, random: RandomState): void {
  const model = physics.model;
  const types = model.jnt_type as Int32Array;
  const ranges = model.jnt_range as Float64Array;
  const addresses = model.jnt_qposadr as Int32Array;
  for (let j = 0; j < model.njnt; j++) {
    const type = types[j];
    const lo = ranges[2 * j];
    const hi = ranges[2 * j + 1];
    const adr = addresses[j];
    const limited = lo < hi;
    let values: ArrayLike<number> | null = null;
    let offset = 0;
    if (limited) {
      if (type === JOINT_HINGE || type === JOINT_SLIDE) values = [random.uniform(lo, hi)];
      else if (type === JOINT_BALL) values = randomLimitedQuaternion(random, hi);
    } else if (type === JOINT_HINGE) {
      values = [random.uniform(-Math.PI, Math.PI)];
    } else if (type === JOINT_BALL) {
      values = normalized(random.randnArray(4));
    } else if (type === JOINT_FREE) {
      values = normalized(random.rand(4));
      offset = 3;
    }
    if (values !== null) {
      const qpos = physics.dataF64("qpos");
      for (let i = 0; i < values.length; i++) qpos[adr + offset + i] = values[i];
    }
  }
}
