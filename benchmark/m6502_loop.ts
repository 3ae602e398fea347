// The 6507 interpreter alone: nanoseconds of CPU time per instruction on a ten-instruction loop in flat memory
// (cartridge code mapped for direct reads, the operands in RIOT RAM), the cost every emulated frame's few thousand
// instructions pay before any TIA or RIOT work. Best of `--repeats` chunks (noise only slows a chunk down).
//
//   npx tsx benchmark/m6502_loop.ts [--instructions 100000000] [--repeats 5]

import { int, parseArgs } from "../envs/run/cli.ts";
import { M6502 } from "../envs/ale/m6502.ts";

const args = parseArgs(
  {
    instructions: int(100_000_000, "instructions per chunk", { ge: 1_000_000 }),
    repeats: int(5, "chunks to time; the report is the fastest", { ge: 1 }),
  },
  "Nanoseconds per 6507 instruction on a tight loop.",
  "benchmark/m6502_loop.ts",
);

// $1000: LDA $80; CLC; ADC #3; STA $80; LDX #10; inner: LDA $1100,X; STA $81; DEX; BNE inner; JMP $1000
const LOOP = [
  0xa5, 0x80, 0x18, 0x69, 0x03, 0x85, 0x80, 0xa2, 0x0a, 0xbd, 0x00, 0x11, 0x85, 0x81, 0xca, 0xd0, 0xf8, 0x4c, 0x00,
  0x10,
];
const memory = new Uint8Array(0x2000);
memory.set(LOOP, 0x1000);
memory[0x1ffc] = 0x00;
memory[0x1ffd] = 0x10;
const bus = {
  dataBus: 0,
  peek: (address: number) => memory[address & 0x1fff],
  poke: (address: number, value: number) => void (memory[address & 0x1fff] = value),
};
const cpu = new M6502(bus, { cycles: 0 });
cpu.mapRam(new Uint8Array(128));
cpu.mapRom(memory.subarray(0x1000));
cpu.reset();

const PER_CALL = 50_000;
const calls = Math.ceil(args.instructions / PER_CALL);
for (let i = 0; i < calls / 10; i++) cpu.execute(PER_CALL); // V8 compiles `execute` first
let best = Infinity;
for (let r = 0; r < args.repeats; r++) {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) cpu.execute(PER_CALL);
  const used = process.cpuUsage(before);
  const nanoseconds = ((used.user + used.system) * 1000) / (calls * PER_CALL);
  console.log(`chunk ${r + 1}: ${nanoseconds.toFixed(2)} ns per instruction`);
  best = Math.min(best, nanoseconds);
}
console.log(`best: ${best.toFixed(2)} ns per instruction`);
