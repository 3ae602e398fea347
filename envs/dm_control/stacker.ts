// dm_control's stacker domain (suite/stacker.py): stack_2, stack_4, fully observable. 10 s episodes, actions every
// 0.01 s (10 physics steps of 1 ms).
// Model: `assets/stacker.xml` less boxes n..3.
// Initial state, redrawn until nothing touches: the arm (see arm.ts); the target at height box size times
// (2 randint(n) + 1) and x U(-0.37, 0.37); each box at x U(0.1, 0.3), z U(0, 0.7), angle U(0, 2 pi).
// Observation: arm_pos (8 x 2), arm_vel, touch = log1p of every sensor, hand_pos, box_pos (n x 4), box_vel
// (x, y, z joints of each box), target_pos (x, z).
// Reward: closeness of the nearest box to the target (Gaussian, margin twice the box size) times the hand being
// at least 0.1 from the target (margin 0.01).

import { ARM_JOINTS, ArmPhysics, randomArmPose } from "./arm.ts";
import { Environment, type Observation, Task } from "./control.ts";
import { readModel, removeElement } from "./common.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const CLOSE = 0.01;
const CONTROL_TIMESTEP = 0.01;
const TIME_LIMIT = 10;

export function stackerModel(nBoxes: number): string {
  let xml = readModel("stacker.xml");
  for (let b = nBoxes; b < 4; b++) xml = removeElement(xml, "body", `box${b}`);
  return xml;
}

export class StackerPhysics extends ArmPhysics {
  touch(): Float64Array {
    return this.dataF64("sensordata").map(Math.log1p);
  }
}

export class Stack extends Task<StackerPhysics> {
  private readonly boxNames: string[];
  private readonly boxJointNames: string[];

  constructor(
    readonly nBoxes: number,
    random?: RandomState | number,
  ) {
    super(random);
    this.boxNames = Array.from({ length: nBoxes }, (_, b) => `box${b}`);
    this.boxJointNames = this.boxNames.flatMap((name) => ["x", "y", "z"].map((dim) => `${name}_${dim}`));
  }

  initializeEpisode(physics: StackerPhysics): void {
    const model = physics.model;
    do {
      randomArmPose(physics, this.random);
      const targetHeight = 2 * this.random.randint(0, this.nBoxes) + 1;
      const target = physics.id("body", "target");
      const boxSize = (model.geom_size as Float64Array)[3 * physics.id("geom", "target")];
      const bodyPos = model.body_pos as Float64Array;
      bodyPos[3 * target + 2] = boxSize * targetHeight;
      bodyPos[3 * target] = this.random.uniform(-0.37, 0.37);
      const qpos = physics.dataF64("qpos");
      for (const name of this.boxNames) {
        qpos[physics.qposAddress(`${name}_x`)] = this.random.uniform(0.1, 0.3);
        qpos[physics.qposAddress(`${name}_z`)] = this.random.uniform(0, 0.7);
        qpos[physics.qposAddress(`${name}_y`)] = this.random.uniform(0, 2 * Math.PI);
      }
      physics.afterReset();
    } while (physics.data.ncon > 0);
  }

  getObservation(physics: StackerPhysics): Observation {
    const boxPos = new Float64Array(4 * this.nBoxes);
    this.boxNames.forEach((name, i) => boxPos.set(physics.body2dPose(name), 4 * i));
    return new Map<string, Float64Array | { data: Float64Array; shape: number[] }>([
      ["arm_pos", { data: physics.boundedJointPos(ARM_JOINTS), shape: [ARM_JOINTS.length, 2] }],
      ["arm_vel", physics.jointVel(ARM_JOINTS)],
      ["touch", physics.touch()],
      ["hand_pos", physics.body2dPose("hand")],
      ["box_pos", { data: boxPos, shape: [this.nBoxes, 4] }],
      ["box_vel", physics.jointVel(this.boxJointNames)],
      ["target_pos", physics.body2dPose("target", false)],
    ]);
  }

  getReward(physics: StackerPhysics): number {
    const boxSize = physics.modelF64("geom_size")[3 * physics.id("geom", "target")];
    const minDistance = Math.min(...this.boxNames.map((name) => physics.siteDistance(name, "target")));
    const boxIsClose = tolerance(minDistance, { margin: 2 * boxSize });
    const handIsFar = tolerance(physics.siteDistance("grasp", "target"), {
      bounds: [0.1, Number.POSITIVE_INFINITY],
      margin: CLOSE,
    });
    return boxIsClose * handIsFar;
  }
}

export const STACKER_TASKS = ["stack_2", "stack_4"];

export function loadStacker(task: string, random?: RandomState | number): Environment<StackerPhysics> {
  const nBoxes = task === "stack_2" ? 2 : 4;
  return new Environment(new StackerPhysics(stackerModel(nBoxes)), new Stack(nBoxes, random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
