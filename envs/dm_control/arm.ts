// The planar arm that dm_control's manipulator and stacker domains share (suite/manipulator.py and stacker.py have
// the same Physics helpers and the same arm initialisation).

import { hstack, norm } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";

export const ARM_JOINTS = [
  "arm_root",
  "arm_shoulder",
  "arm_elbow",
  "arm_wrist",
  "finger",
  "fingertip",
  "thumb",
  "thumbtip",
];

export class ArmPhysics extends Physics {
  /** (sin, cos) of each joint's position, one row per joint (shape (n, 2)). */
  boundedJointPos(joints: readonly string[]): Float64Array {
    const qpos = this.dataF64("qpos");
    const out = new Float64Array(2 * joints.length);
    joints.forEach((joint, i) => {
      const q = qpos[this.qposAddress(joint)];
      out[2 * i] = Math.sin(q);
      out[2 * i + 1] = Math.cos(q);
    });
    return out;
  }

  jointVel(joints: readonly string[]): Float64Array {
    const qvel = this.dataF64("qvel");
    return Float64Array.from(joints, (joint) => qvel[this.qvelAddress(joint)]);
  }

  /** A body's (x, z) position and, with `orientation`, its quaternion's (w, y): the pose in the arm's plane. */
  body2dPose(body: string, orientation = true): Float64Array {
    const id = this.id("body", body);
    const xpos = this.dataF64("xpos");
    const pos = [xpos[3 * id], xpos[3 * id + 2]];
    if (!orientation) return Float64Array.from(pos);
    const xquat = this.dataF64("xquat");
    return hstack(pos, [xquat[4 * id], xquat[4 * id + 2]]);
  }

  /** The distance between two sites. */
  siteDistance(site1: string, site2: string): number {
    const a = this.id("site", site1);
    const b = this.id("site", site2);
    const xpos = this.dataF64("site_xpos");
    return norm([xpos[3 * a] - xpos[3 * b], xpos[3 * a + 1] - xpos[3 * b + 1], xpos[3 * a + 2] - xpos[3 * b + 2]]);
  }
}

/**
 * Draws the arm's joints: U(range) for limited joints, U(-pi, pi) for the others (one uniform draw over the arrays
 * of bounds), then the finger copies the thumb. A joint counts as limited when its range is a non-empty interval
 * (see randomizers.ts).
 */
export function randomArmPose(physics: ArmPhysics, random: RandomState): void {
  const model = physics.model;
  const ranges = model.jnt_range as Float64Array;
  const low: number[] = [];
  const high: number[] = [];
  for (const joint of ARM_JOINTS) {
    const j = physics.id("joint", joint);
    const limited = ranges[2 * j] < ranges[2 * j + 1];
    low.push(limited ? ranges[2 * j] : -Math.PI);
    high.push(limited ? ranges[2 * j + 1] : Math.PI);
  }
  const angles = random.uniformArray(low, high, ARM_JOINTS.length);
  const qpos = physics.dataF64("qpos");
  ARM_JOINTS.forEach((joint, i) => {
    qpos[physics.qposAddress(joint)] = angles[i];
  });
  qpos[physics.qposAddress("finger")] = qpos[physics.qposAddress("thumb")];
}
