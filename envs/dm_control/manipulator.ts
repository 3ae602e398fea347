// dm_control's manipulator domain (suite/manipulator.py): bring_ball, bring_peg, insert_ball, insert_peg, fully
// observable. 10 s episodes, actions every 0.01 s (10 physics steps of 1 ms).
// Model: `assets/manipulator.xml` less the props the task does not use (it keeps the object, its target, and for
// insert tasks the receptacle: cup for the ball, slot for the peg).
// Initial state, redrawn until nothing touches: the arm (see arm.ts); the target at x U(-0.4, 0.4), z U(0.1, 0.4);
// for insert tasks the receptacle there too, rotated by U(-pi/3, pi/3) about y, otherwise the target rotated by
// U(-pi, pi); then the object starts in the hand (p 0.1: at the grasp site, along its direction), in the target
// (p 0.1) or anywhere (p 0.8: x U(-0.5, 0.5), z U(0, 0.7), angle U(0, 2 pi), x velocity U(-5, 5)).
// Observation: arm_pos (8 x 2: sin, cos), arm_vel, touch = log1p of the five touch sensors, hand_pos, object_pos,
// object_vel (x, z, angle), target_pos (the 2-D poses: x, z, quaternion w, y).
// Reward: ball, closeness of ball to target (tolerance within 0.01, margin 0.02); peg, the larger of bringing
// (mean closeness of peg to target and peg tip to target tip) and a third of grasping (mean closeness of the grasp
// and pinch sites to the peg's).

import { ARM_JOINTS, ArmPhysics, randomArmPose } from "./arm.ts";
import { Environment, type Observation, Task } from "./control.ts";
import { readModel, removeElement } from "./common.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const CLOSE = 0.01;
const CONTROL_TIMESTEP = 0.01;
const TIME_LIMIT = 10;
const P_IN_HAND = 0.1;
const P_IN_TARGET = 0.1;
const ALL_PROPS = ["ball", "target_ball", "cup", "peg", "target_peg", "slot"];
const TOUCH_SENSORS = ["palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch"];

/** The manipulator model with only the props of the task. */
export function manipulatorModel(usePeg: boolean, insert: boolean): string {
  const required = usePeg ? ["peg", "target_peg"] : ["ball", "target_ball"];
  if (insert) required.push(usePeg ? "slot" : "cup");
  let xml = readModel("manipulator.xml");
  for (const prop of ALL_PROPS) if (!required.includes(prop)) xml = removeElement(xml, "body", prop);
  return xml;
}

export class ManipulatorPhysics extends ArmPhysics {
  touch(): Float64Array {
    return Float64Array.from(TOUCH_SENSORS, (s) => Math.log1p(this.sensor(s)[0]));
  }
}

export class Bring extends Task<ManipulatorPhysics> {
  private readonly target: string;
  private readonly object: string;
  private readonly objectJoints: string[];
  private readonly receptacle: string;

  constructor(
    readonly usePeg: boolean,
    readonly insert: boolean,
    random?: RandomState | number,
  ) {
    super(random);
    this.target = usePeg ? "target_peg" : "target_ball";
    this.object = usePeg ? "peg" : "ball";
    this.objectJoints = ["x", "z", "y"].map((dim) => `${this.object}_${dim}`);
    this.receptacle = usePeg ? "slot" : "cup";
  }

  initializeEpisode(physics: ManipulatorPhysics): void {
    const uniform = (lo: number, hi: number) => this.random.uniform(lo, hi);
    const model = physics.model;
    do {
      randomArmPose(physics, this.random);
      const targetX = uniform(-0.4, 0.4);
      const targetZ = uniform(0.1, 0.4);
      const bodyPos = model.body_pos as Float64Array;
      const bodyQuat = model.body_quat as Float64Array;
      let targetAngle: number;
      if (this.insert) {
        targetAngle = uniform(-Math.PI / 3, Math.PI / 3);
        const r = physics.id("body", this.receptacle);
        bodyPos[3 * r] = targetX;
        bodyPos[3 * r + 2] = targetZ;
        bodyQuat[4 * r] = Math.cos(targetAngle / 2);
        bodyQuat[4 * r + 2] = Math.sin(targetAngle / 2);
      } else {
        targetAngle = uniform(-Math.PI, Math.PI);
      }
      const t = physics.id("body", this.target);
      bodyPos[3 * t] = targetX;
      bodyPos[3 * t + 2] = targetZ;
      bodyQuat[4 * t] = Math.cos(targetAngle / 2);
      bodyQuat[4 * t + 2] = Math.sin(targetAngle / 2);

      const initType = this.random.choiceWeighted(
        ["in_hand", "in_target", "uniform"],
        [P_IN_HAND, P_IN_TARGET, 1 - P_IN_HAND - P_IN_TARGET],
      );
      let objectX: number;
      let objectZ: number;
      let objectAngle: number;
      if (initType === "in_target") {
        objectX = targetX;
        objectZ = targetZ;
        objectAngle = targetAngle;
      } else if (initType === "in_hand") {
        physics.afterReset();
        const grasp = physics.id("site", "grasp");
        const siteXpos = physics.dataF64("site_xpos");
        const siteXmat = physics.dataF64("site_xmat");
        objectX = siteXpos[3 * grasp];
        objectZ = siteXpos[3 * grasp + 2];
        objectAngle = Math.PI - Math.atan2(siteXmat[9 * grasp + 6], siteXmat[9 * grasp]);
      } else {
        objectX = uniform(-0.5, 0.5);
        objectZ = uniform(0, 0.7);
        objectAngle = uniform(0, 2 * Math.PI);
        physics.dataF64("qvel")[physics.qvelAddress(`${this.object}_x`)] = uniform(-5, 5);
      }
      const qpos = physics.dataF64("qpos");
      [objectX, objectZ, objectAngle].forEach((v, i) => {
        qpos[physics.qposAddress(this.objectJoints[i])] = v;
      });
      physics.afterReset();
    } while (physics.data.ncon > 0);
  }

  getObservation(physics: ManipulatorPhysics): Observation {
    return new Map<string, Float64Array | { data: Float64Array; shape: number[] }>([
      ["arm_pos", { data: physics.boundedJointPos(ARM_JOINTS), shape: [ARM_JOINTS.length, 2] }],
      ["arm_vel", physics.jointVel(ARM_JOINTS)],
      ["touch", physics.touch()],
      ["hand_pos", physics.body2dPose("hand")],
      ["object_pos", physics.body2dPose(this.object)],
      ["object_vel", physics.jointVel(this.objectJoints)],
      ["target_pos", physics.body2dPose(this.target)],
    ]);
  }

  private isClose(distance: number): number {
    return tolerance(distance, { bounds: [0, CLOSE], margin: CLOSE * 2 });
  }

  getReward(physics: ManipulatorPhysics): number {
    if (!this.usePeg) return this.isClose(physics.siteDistance("ball", "target_ball"));
    const grasp = this.isClose(physics.siteDistance("peg_grasp", "grasp"));
    const pinch = this.isClose(physics.siteDistance("peg_pinch", "pinch"));
    const grasping = (grasp + pinch) / 2;
    const bring = this.isClose(physics.siteDistance("peg", "target_peg"));
    const bringTip = this.isClose(physics.siteDistance("target_peg_tip", "peg_tip"));
    const bringing = (bring + bringTip) / 2;
    return Math.max(bringing, grasping / 3);
  }
}

export const MANIPULATOR_TASKS = ["bring_ball", "bring_peg", "insert_ball", "insert_peg"];

export function loadManipulator(task: string, random?: RandomState | number): Environment<ManipulatorPhysics> {
  const usePeg = task.endsWith("peg");
  const insert = task.startsWith("insert");
  return new Environment(new ManipulatorPhysics(manipulatorModel(usePeg, insert)), new Bring(usePeg, insert, random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
