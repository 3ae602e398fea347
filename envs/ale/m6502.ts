// The 6507 CPU of the Atari 2600 as ALE emulates it: Stella 3.x's "low compatibility" M6502 (ALE's default setting
// `cpu = low`, src/ale/emucore/M6502Low.*), whose timing model is simple and is what ALE's traces follow:
//
// * An instruction's whole base cycle count (the table below) is added to the system clock right after its opcode
//   is fetched, before any of its operand reads or writes. So every bus access of an instruction is seen by the TIA
//   and RIOT at the cycle the instruction *ends*. The extra cycle of an indexed read that crosses a page is added just
//   before the operand read; a taken branch adds 1 (2 across a page) after it.
// * Only the reads Stella's low CPU makes happen (no dummy reads of the real chip, except the stack and program
//   counter reads of JSR/RTS/RTI/PLA/PLP/BRK, which Stella does make). They matter for the data bus value that TIA
//   reads leave in their undriven bits and for cartridge hotspots.
// * Decimal mode uses Stella's BCD tables; the undocumented opcodes Stella implements behave as Stella's do; the
//   opcodes Stella marks invalid (x2 except 82/C2/E2) stop the CPU for good (a "fatal error": ALE then freezes).
//
// The CPU talks to the rest of the console through `Bus`: `peek`/`poke` take the full 16-bit address (some
// cartridges, FE, decode A13 of it); `clock.cycles` is the system clock the instruction times are added to.

export interface Bus {
  peek(address: number): number;
  poke(address: number, value: number): void;
  /**
   * The data bus's last value (Stella's System data bus state). The CPU keeps it while it reads and writes RAM and
   * ROM directly, and sets it here before each bus call and when `execute` returns.
   */
  dataBus?: number;
}

/** Stella's M6502::ourInstructionProcessorCycleTable. */
// prettier-ignore
const CYCLES = new Uint8Array([
  7, 6, 2, 8, 3, 3, 5, 5, 3, 2, 2, 2, 4, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
  6, 6, 2, 8, 3, 3, 5, 5, 4, 2, 2, 2, 4, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
  6, 6, 2, 8, 3, 3, 5, 5, 3, 2, 2, 2, 3, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
  6, 6, 2, 8, 3, 3, 5, 5, 4, 2, 2, 2, 5, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
  2, 6, 2, 6, 3, 3, 3, 3, 2, 2, 2, 2, 4, 4, 4, 4,
  2, 6, 2, 6, 4, 4, 4, 4, 2, 5, 2, 5, 5, 5, 5, 5,
  2, 6, 2, 6, 3, 3, 3, 4, 2, 2, 2, 2, 4, 4, 4, 4,
  2, 5, 2, 5, 4, 4, 4, 4, 2, 4, 2, 4, 4, 4, 4, 4,
  2, 6, 2, 8, 3, 3, 5, 5, 2, 2, 2, 2, 4, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
  2, 6, 2, 8, 3, 3, 5, 5, 2, 2, 2, 2, 4, 4, 6, 6,
  2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
]);

// Addressing modes. The access pattern of each also depends on whether the operation reads, writes or both.
const IMP = 0, IMM = 1, ZP = 2, ZPX = 3, ZPY = 4, ABS = 5, ABSX = 6, ABSY = 7, IND = 8, INDX = 9, INDY = 10;
const READ = 1, WRITE = 2, RMW = 3;

// Operations (the instruction semantics, independent of addressing).
const enum Op {
  ILLEGAL, ADC, AND, ASL, ASLA, BCC, BCS, BEQ, BIT, BMI, BNE, BPL, BRK, BVC, BVS, CLC, CLD, CLI, CLV, CMP, CPX, CPY,
  DEC, DEX, DEY, EOR, INC, INX, INY, JMP, JSR, LDA, LDX, LDY, LSR, LSRA, NOP, ORA, PHA, PHP, PLA, PLP, ROL, ROLA, ROR,
  RORA, RTI, RTS, SBC, SEC, SED, SEI, STA, STX, STY, TAX, TAY, TSX, TXA, TXS, TYA,
  // undocumented
  ANC, ANE, ARR, ASR, DCP, ISB, LAS, LAX, LXA, RLA, RRA, SAX, SBX, SHA, SHS, SHX, SHY, SLO, SRE,
}

/** [operation, kind, [opcode, mode]...]: the opcode map of Stella's M6502.m4. */
const OPCODES: [Op, number, ...[number, number][]][] = [
  [Op.ADC, READ, [0x69, IMM], [0x65, ZP], [0x75, ZPX], [0x6d, ABS], [0x7d, ABSX], [0x79, ABSY], [0x61, INDX], [0x71, INDY]],
  [Op.AND, READ, [0x29, IMM], [0x25, ZP], [0x35, ZPX], [0x2d, ABS], [0x3d, ABSX], [0x39, ABSY], [0x21, INDX], [0x31, INDY]],
  [Op.ASL, RMW, [0x06, ZP], [0x16, ZPX], [0x0e, ABS], [0x1e, ABSX]],
  [Op.ASLA, 0, [0x0a, IMP]],
  [Op.BCC, READ, [0x90, IMM]], [Op.BCS, READ, [0xb0, IMM]], [Op.BEQ, READ, [0xf0, IMM]], [Op.BMI, READ, [0x30, IMM]],
  [Op.BNE, READ, [0xd0, IMM]], [Op.BPL, READ, [0x10, IMM]], [Op.BVC, READ, [0x50, IMM]], [Op.BVS, READ, [0x70, IMM]],
  [Op.BIT, READ, [0x24, ZP], [0x2c, ABS]],
  [Op.BRK, 0, [0x00, IMP]],
  [Op.CLC, 0, [0x18, IMP]], [Op.CLD, 0, [0xd8, IMP]], [Op.CLI, 0, [0x58, IMP]], [Op.CLV, 0, [0xb8, IMP]],
  [Op.CMP, READ, [0xc9, IMM], [0xc5, ZP], [0xd5, ZPX], [0xcd, ABS], [0xdd, ABSX], [0xd9, ABSY], [0xc1, INDX], [0xd1, INDY]],
  [Op.CPX, READ, [0xe0, IMM], [0xe4, ZP], [0xec, ABS]],
  [Op.CPY, READ, [0xc0, IMM], [0xc4, ZP], [0xcc, ABS]],
  [Op.DEC, RMW, [0xc6, ZP], [0xd6, ZPX], [0xce, ABS], [0xde, ABSX]],
  [Op.DEX, 0, [0xca, IMP]], [Op.DEY, 0, [0x88, IMP]],
  [Op.EOR, READ, [0x49, IMM], [0x45, ZP], [0x55, ZPX], [0x4d, ABS], [0x5d, ABSX], [0x59, ABSY], [0x41, INDX], [0x51, INDY]],
  [Op.INC, RMW, [0xe6, ZP], [0xf6, ZPX], [0xee, ABS], [0xfe, ABSX]],
  [Op.INX, 0, [0xe8, IMP]], [Op.INY, 0, [0xc8, IMP]],
  [Op.JMP, WRITE, [0x4c, ABS], [0x6c, IND]],
  [Op.JSR, 0, [0x20, IMP]],
  [Op.LDA, READ, [0xa9, IMM], [0xa5, ZP], [0xb5, ZPX], [0xad, ABS], [0xbd, ABSX], [0xb9, ABSY], [0xa1, INDX], [0xb1, INDY]],
  [Op.LDX, READ, [0xa2, IMM], [0xa6, ZP], [0xb6, ZPY], [0xae, ABS], [0xbe, ABSY]],
  [Op.LDY, READ, [0xa0, IMM], [0xa4, ZP], [0xb4, ZPX], [0xac, ABS], [0xbc, ABSX]],
  [Op.LSR, RMW, [0x46, ZP], [0x56, ZPX], [0x4e, ABS], [0x5e, ABSX]],
  [Op.LSRA, 0, [0x4a, IMP]],
  [Op.NOP, 0, [0x1a, IMP], [0x3a, IMP], [0x5a, IMP], [0x7a, IMP], [0xda, IMP], [0xea, IMP], [0xfa, IMP]],
  [Op.NOP, READ, [0x80, IMM], [0x82, IMM], [0x89, IMM], [0xc2, IMM], [0xe2, IMM], [0x04, ZP], [0x44, ZP], [0x64, ZP],
    [0x14, ZPX], [0x34, ZPX], [0x54, ZPX], [0x74, ZPX], [0xd4, ZPX], [0xf4, ZPX], [0x0c, ABS],
    [0x1c, ABSX], [0x3c, ABSX], [0x5c, ABSX], [0x7c, ABSX], [0xdc, ABSX], [0xfc, ABSX]],
  [Op.ORA, READ, [0x09, IMM], [0x05, ZP], [0x15, ZPX], [0x0d, ABS], [0x1d, ABSX], [0x19, ABSY], [0x01, INDX], [0x11, INDY]],
  [Op.PHA, 0, [0x48, IMP]], [Op.PHP, 0, [0x08, IMP]], [Op.PLA, 0, [0x68, IMP]], [Op.PLP, 0, [0x28, IMP]],
  [Op.ROL, RMW, [0x26, ZP], [0x36, ZPX], [0x2e, ABS], [0x3e, ABSX]],
  [Op.ROLA, 0, [0x2a, IMP]],
  [Op.ROR, RMW, [0x66, ZP], [0x76, ZPX], [0x6e, ABS], [0x7e, ABSX]],
  [Op.RORA, 0, [0x6a, IMP]],
  [Op.RTI, 0, [0x40, IMP]], [Op.RTS, 0, [0x60, IMP]],
  [Op.SBC, READ, [0xe9, IMM], [0xeb, IMM], [0xe5, ZP], [0xf5, ZPX], [0xed, ABS], [0xfd, ABSX], [0xf9, ABSY], [0xe1, INDX], [0xf1, INDY]],
  [Op.SEC, 0, [0x38, IMP]], [Op.SED, 0, [0xf8, IMP]], [Op.SEI, 0, [0x78, IMP]],
  [Op.STA, WRITE, [0x85, ZP], [0x95, ZPX], [0x8d, ABS], [0x9d, ABSX], [0x99, ABSY], [0x81, INDX], [0x91, INDY]],
  [Op.STX, WRITE, [0x86, ZP], [0x96, ZPY], [0x8e, ABS]],
  [Op.STY, WRITE, [0x84, ZP], [0x94, ZPX], [0x8c, ABS]],
  [Op.TAX, 0, [0xaa, IMP]], [Op.TAY, 0, [0xa8, IMP]], [Op.TSX, 0, [0xba, IMP]], [Op.TXA, 0, [0x8a, IMP]],
  [Op.TXS, 0, [0x9a, IMP]], [Op.TYA, 0, [0x98, IMP]],
  [Op.ANC, READ, [0x0b, IMM], [0x2b, IMM]],
  [Op.ANE, READ, [0x8b, IMM]],
  [Op.ARR, READ, [0x6b, IMM]],
  [Op.ASR, READ, [0x4b, IMM]],
  [Op.DCP, RMW, [0xcf, ABS], [0xdf, ABSX], [0xdb, ABSY], [0xc7, ZP], [0xd7, ZPX], [0xc3, INDX], [0xd3, INDY]],
  [Op.ISB, RMW, [0xef, ABS], [0xff, ABSX], [0xfb, ABSY], [0xe7, ZP], [0xf7, ZPX], [0xe3, INDX], [0xf3, INDY]],
  [Op.LAS, READ, [0xbb, ABSY]],
  [Op.LAX, READ, [0xaf, ABS], [0xbf, ABSY], [0xa7, ZP], [0xb7, ZPY], [0xa3, INDX], [0xb3, INDY]],
  [Op.LXA, READ, [0xab, IMM]],
  [Op.RLA, RMW, [0x2f, ABS], [0x3f, ABSX], [0x3b, ABSY], [0x27, ZP], [0x37, ZPX], [0x23, INDX], [0x33, INDY]],
  [Op.RRA, RMW, [0x6f, ABS], [0x7f, ABSX], [0x7b, ABSY], [0x67, ZP], [0x77, ZPX], [0x63, INDX], [0x73, INDY]],
  [Op.SAX, WRITE, [0x8f, ABS], [0x87, ZP], [0x97, ZPY], [0x83, INDX]],
  [Op.SBX, READ, [0xcb, IMM]],
  [Op.SHA, WRITE, [0x9f, ABSY], [0x93, INDY]],
  [Op.SHS, WRITE, [0x9b, ABSY]],
  [Op.SHX, WRITE, [0x9e, ABSY]],
  [Op.SHY, WRITE, [0x9c, ABSX]],
  [Op.SLO, RMW, [0x0f, ABS], [0x1f, ABSX], [0x1b, ABSY], [0x07, ZP], [0x17, ZPX], [0x03, INDX], [0x13, INDY]],
  [Op.SRE, RMW, [0x4f, ABS], [0x5f, ABSX], [0x5b, ABSY], [0x47, ZP], [0x57, ZPX], [0x43, INDX], [0x53, INDY]],
];

// Stella's BCD tables: BCD_TO_BIN[t] reads a byte as two decimal digits (also for invalid digits, e.g. 0x0F = 15);
// BIN_TO_BCD[t] writes t % 100 as two digits. Indexed as Stella's 2x256 array, so a negative index into the second
// row lands in the first, as it does in C.
const BCD = new Uint8Array(512);
for (let t = 0; t < 256; t++) {
  BCD[t] = (t >> 4) * 10 + (t & 0x0f);
  BCD[256 + t] = (((t % 100) / 10) << 4) | t % 10;
}

/** Execution status bits (Stella's M6502 myExecutionStatus). */
export const STOP_BIT = 0x01;
export const FATAL_ERROR_BIT = 0x02;
/** Ours, not Stella's: the cartridge mapped another bank (mapRom), so `execute` reloads its copy before going on. */
const ROM_REMAPPED_BIT = 0x04;

// ---- the interpreter, generated once from the tables above ----
//
// `execute` is one loop around one `switch (opcode)` (a jump table in V8). Its cases are JavaScript built from the
// tables above when a CPU first runs: each is its addressing mode's accesses (as the operation's kind needs them:
// read, write or both), then the operation's semantics, with the cycle count as a constant. So an instruction costs
// one dispatch, and each access is compiled for where it can land:
//
// * the instruction's own bytes: straight from the mapped bank (`rom`, see mapRom: no hotspots, no RAM ports) when
//   the whole instruction lies in it (`fast`, decided at the opcode), else through `fetchAt`;
// * `readZp`/`writeZp` (zero page and stack, below $200 so A12 and A9 are clear): RIOT RAM when A7 is set, else the
//   bus (the TIA);
// * `read`/`write` (any address): RIOT RAM, the mapped bank, or the bus.
//
// Registers, flags, the data bus value and the mapped bank and RAM are locals of the loop. The data bus value
// (Stella's System data bus state: the last byte read or written, which TIA reads return in their undriven bits)
// is `db`, set by every access and handed to the bus when the bus is called. A bank switch (a hotspot touched
// through the bus) raises ROM_REMAPPED_BIT, and the loop reloads `rom` before the next instruction: within the
// instruction that switched, no later access reads the mapped bank, since the stream only moves up from a hotspot
// (past the mapped range, or wrapping to the TIA) and the only stream read after a data access, RTS's, follows
// stack reads, which cannot reach the cartridge. (E0 carts switch by rewriting the bank in place; an FE bank,
// mapped for one A13 half, stays right for that half.) Results of calls are or-ed with 0: V8 cannot see their
// type, and an untyped value flowing into `db` and the opcode would make it box and check them everywhere.

/**
 * `a` (an expression without side effects) in the mapped bank, short of its last two bytes (the bus reads those the
 * same); leaves its offset in `t`.
 */
const inRom = (a: string) => `((${a}) & romSelect) === romMatch && (t = (${a}) & 0xfff) >= romFrom && t < romEnd`;
const fromRam = (a: string) => `(db = ram[(${a}) & 0x7f])`;
const fromBus = (a: string) => `(db = cpu.readBus(${a}, db) | 0)`;
// RIOT RAM is A12 and A9 clear, A7 set; RAM_MATCH and RAM_BIT are constants of the generated code, which never
// match when the CPU has no RAM mapped (see buildExecute).
const isRam = (a: string) => `((${a}) & 0x1280) === RAM_MATCH`;
/**
 * Byte `k` (1 or 2) of the instruction, at `pc`: from the mapped bank at the opcode's offset `o` + k when the whole
 * instruction lies in it (`fast`, decided at the opcode), else from wherever `pc` points.
 */
const operandByte = (k: number) => `(fast ? (db = rom[o + ${k}]) : (db = cpu.fetchAt(pc, db) | 0))`;
const read = (a: string) => `(${isRam(a)} ? ${fromRam(a)} : ${inRom(a)} ? (db = rom[t]) : ${fromBus(a)})`;
const readZp = (a: string) => `(((${a}) & RAM_BIT) !== 0 ? ${fromRam(a)} : ${fromBus(a)})`;
/**
 * A write of `value` (evaluated once) to `a`. `afterRead`: whether the instruction's previous access was a read
 * (WSYNC halts the CPU only then); it is for every write but the second and third of the pushes that follow a push.
 */
const write = (a: string, value: string, afterRead = true) =>
  `if (${isRam(a)}) ram[(${a}) & 0x7f] = db = ${value}; else cpu.writeBus(${a}, db = ${value}, ${afterRead});`;
const writeZp = (a: string, value: string, afterRead = true) =>
  `if (((${a}) & RAM_BIT) !== 0) ram[(${a}) & 0x7f] = db = ${value}; else cpu.writeBus(${a}, db = ${value}, ${afterRead});`;
const nextPc = "pc = (pc + 1) & 0xffff;";
const push = (value: string, afterRead = true) => `${writeZp("0x100 + sp", value, afterRead)} sp = (sp - 1) & 0xff;`;
const pull = `sp = (sp + 1) & 0xff; u = ${readZp("0x100 + sp")};`;
/** The dummy stack read JSR, RTS, RTI, PLA and PLP make first (Stella's low CPU makes it). */
const stackDummyRead = `${readZp("0x100 + sp")};`;
/** The status register; B always reads set on a 6507 (Stella's PS()). */
const PS = "(0x30 | (n & 0x80 ? 0x80 : 0) | (v ? 0x40 : 0) | (cpu.d ? 0x08 : 0) | (cpu.i ? 0x04 : 0) | (notZ ? 0 : 0x02) | (c ? 0x01 : 0))";
const setPS = (ps: string) =>
  `n = ${ps} & 0x80; v = (${ps} >> 6) & 1; cpu.d = (${ps} >> 3) & 1; cpu.i = (${ps} >> 2) & 1; notZ = ${ps} & 0x02 ? 0 : 1; c = ${ps} & 1;`;

/** The accesses of each addressing mode, for an operation of `kind`: `address` and, unless it only writes, `operand`. */
function addressing(mode: number, kind: number): string {
  const load = (readAt: (a: string) => string) => (kind === WRITE ? "" : `operand = ${readAt("address")};`);
  // An indexed read pays a cycle when the index crosses a page (Stella adds it before the read); writes and RMW
  // have it in their base count.
  const crossing = (index: string) => (kind === READ ? `if (((address ^ (address + ${index})) & 0xff00) !== 0) clock.cycles++;` : "");
  const absolute = `address = ${operandByte(1)}; ${nextPc} address |= ${operandByte(2)} << 8; ${nextPc}`;
  switch (mode) {
    case IMP:
      return "";
    case IMM:
      return `operand = ${operandByte(1)}; ${nextPc}`;
    case ZP:
      return `address = ${operandByte(1)}; ${nextPc} ${load(readZp)}`;
    case ZPX:
      return `address = (${operandByte(1)} + x) & 0xff; ${nextPc} ${load(readZp)}`;
    case ZPY:
      return `address = (${operandByte(1)} + y) & 0xff; ${nextPc} ${load(readZp)}`;
    case ABS:
      // JMP is listed as WRITE: it only needs the address.
      return `${absolute} ${load(read)}`;
    case ABSX:
      return `${absolute} ${crossing("x")} address = (address + x) & 0xffff; ${load(read)}`;
    case ABSY:
      return `${absolute} ${crossing("y")} address = (address + y) & 0xffff; ${load(read)}`;
    case IND:
      // JMP ($nnnn) with the 6502's bug: the pointer's high byte comes from the start of the same page.
      return `${absolute} w = ((address ^ (address + 1)) & 0xff00) !== 0 ? address & 0xff00 : address + 1;
        address = ${read("address")} | (${read("w")} << 8);`;
    case INDX:
      // Stella does not wrap pointer + 1 to the zero page: ($FF,X) reads its high byte from $0100.
      return `w = (${operandByte(1)} + x) & 0xff; ${nextPc} address = ${readZp("w")} | (${readZp("w + 1")} << 8); ${load(read)}`;
    case INDY:
      return `w = ${operandByte(1)}; ${nextPc} address = ${readZp("w")} | (${readZp("w + 1")} << 8); ${crossing("y")}
        address = (address + y) & 0xffff; ${load(read)}`;
  }
  throw new Error(`unknown addressing mode ${mode}`);
}

const ADC = `if (!cpu.d) {
    u = ((a << 24) >> 24) + ((operand << 24) >> 24) + c; v = u > 127 || u < -128 ? 1 : 0;
    u = a + operand + c; a = u & 0xff; c = u > 0xff ? 1 : 0;
  } else {
    w = a; u = BCD[a] + BCD[operand] + c; c = u > 99 ? 1 : 0; a = BCD[256 + (u & 0xff)];
    v = (w ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
  }
  notZ = n = a;`;
const SBC = `if (!cpu.d) {
    w = ~operand & 0xff; u = ((a << 24) >> 24) + ((w << 24) >> 24) + c; v = u > 127 || u < -128 ? 1 : 0;
    u = a + w + c; a = u & 0xff; c = u > 0xff ? 1 : 0;
  } else {
    w = a; u = BCD[a] - BCD[operand] - (c ? 0 : 1); if (u < 0) u += 100; a = BCD[256 + u];
    c = w >= operand + (c ? 0 : 1) ? 1 : 0; v = (w ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
  }
  notZ = n = a;`;
/** A taken branch: 1 extra cycle, 2 if the target is on another page (Stella adds them after the operand read). */
const branchIf = (condition: string) =>
  `if (${condition}) { u = (pc + ((operand << 24) >> 24)) & 0xffff; clock.cycles += ((pc ^ u) & 0xff00) !== 0 ? 2 : 1; pc = u; }`;

/** Each operation's semantics; `store(value)` writes to the operand's address as the addressing mode does. */
const SEMANTICS: Record<Op, (store: (value: string) => string) => string> = {
  [Op.ILLEGAL]: () => `cpu.status |= ${FATAL_ERROR_BIT};`,
  [Op.ADC]: () => ADC,
  [Op.SBC]: () => SBC,
  [Op.RRA]: (store) => `u = c; c = operand & 1; operand = (operand >> 1) | (u ? 0x80 : 0); ${store("operand")} ${ADC}`,
  [Op.ISB]: (store) => `operand = (operand + 1) & 0xff; ${store("operand")} ${SBC}`,
  [Op.AND]: () => "a &= operand; notZ = n = a;",
  [Op.ANC]: () => "a &= operand; notZ = n = a; c = a >> 7;",
  [Op.ANE]: () => "a = (a | 0xee) & x & operand; notZ = n = a;",
  [Op.ARR]: () => `if (!cpu.d) {
      a &= operand; a = (a >> 1) | (c ? 0x80 : 0); c = (a >> 6) & 1; v = ((a & 0x40) ^ ((a & 0x20) << 1)) !== 0 ? 1 : 0;
      notZ = n = a;
    } else {
      u = a & operand; a = (u >> 1) | (c ? 0x80 : 0); n = c ? 0x80 : 0; notZ = a; v = (u ^ a) & 0x40 ? 1 : 0;
      if ((u & 0x0f) + (u & 0x01) > 0x05) a = (a & 0xf0) | ((a + 0x06) & 0x0f);
      if ((u & 0xf0) + (u & 0x10) > 0x50) { a = (a + 0x60) & 0xff; c = 1; } else { c = 0; }
    }`,
  [Op.ASL]: (store) => `c = operand >> 7; operand = (operand << 1) & 0xff; ${store("operand")} notZ = n = operand;`,
  [Op.ASLA]: () => "c = a >> 7; a = (a << 1) & 0xff; notZ = n = a;",
  [Op.ASR]: () => "a &= operand; c = a & 1; a >>= 1; notZ = n = a;",
  [Op.BCC]: () => branchIf("!c"),
  [Op.BCS]: () => branchIf("c"),
  [Op.BEQ]: () => branchIf("!notZ"),
  [Op.BMI]: () => branchIf("n & 0x80"),
  [Op.BNE]: () => branchIf("notZ"),
  [Op.BPL]: () => branchIf("!(n & 0x80)"),
  [Op.BVC]: () => branchIf("!v"),
  [Op.BVS]: () => branchIf("v"),
  [Op.BIT]: () => "notZ = a & operand; n = operand; v = (operand >> 6) & 1;",
  [Op.BRK]: () => `${operandByte(1)}; ${nextPc} ${push("pc >> 8")} ${push("pc & 0xff", false)} ${push(PS, false)}
    cpu.i = 1; pc = ${read("0xfffe")}; pc |= ${read("0xffff")} << 8;`,
  [Op.CLC]: () => "c = 0;",
  [Op.CLD]: () => "cpu.d = 0;",
  [Op.CLI]: () => "cpu.i = 0;",
  [Op.CLV]: () => "v = 0;",
  [Op.CMP]: () => "notZ = n = (a - operand) & 0xff; c = a >= operand ? 1 : 0;",
  [Op.CPX]: () => "notZ = n = (x - operand) & 0xff; c = x >= operand ? 1 : 0;",
  [Op.CPY]: () => "notZ = n = (y - operand) & 0xff; c = y >= operand ? 1 : 0;",
  [Op.DCP]: (store) => `u = (operand - 1) & 0xff; ${store("u")} notZ = n = (a - u) & 0xff; c = a >= u ? 1 : 0;`,
  [Op.DEC]: (store) => `operand = (operand - 1) & 0xff; ${store("operand")} notZ = n = operand;`,
  [Op.DEX]: () => "x = (x - 1) & 0xff; notZ = n = x;",
  [Op.DEY]: () => "y = (y - 1) & 0xff; notZ = n = y;",
  [Op.EOR]: () => "a ^= operand; notZ = n = a;",
  [Op.INC]: (store) => `operand = (operand + 1) & 0xff; ${store("operand")} notZ = n = operand;`,
  [Op.INX]: () => "x = (x + 1) & 0xff; notZ = n = x;",
  [Op.INY]: () => "y = (y + 1) & 0xff; notZ = n = y;",
  [Op.JMP]: () => "pc = address;",
  [Op.JSR]: () => `u = ${operandByte(1)}; ${nextPc} ${stackDummyRead} ${push("pc >> 8")} ${push("pc & 0xff", false)}
    pc = u | (${operandByte(2)} << 8);`,
  [Op.LAS]: () => "a = x = sp = sp & operand; notZ = n = a;",
  [Op.LAX]: () => "a = x = operand; notZ = n = a;",
  [Op.LDA]: () => "a = operand; notZ = n = a;",
  [Op.LDX]: () => "x = operand; notZ = n = x;",
  [Op.LDY]: () => "y = operand; notZ = n = y;",
  [Op.LSR]: (store) => `c = operand & 1; operand >>= 1; ${store("operand")} notZ = n = operand;`,
  [Op.LSRA]: () => "c = a & 1; a >>= 1; notZ = n = a;",
  [Op.LXA]: () => "a = x = (a | 0xee) & operand; notZ = n = a;",
  [Op.NOP]: () => "",
  [Op.ORA]: () => "a |= operand; notZ = n = a;",
  [Op.PHA]: () => push("a"),
  [Op.PHP]: () => push(PS),
  [Op.PLA]: () => `${stackDummyRead} ${pull} a = u; notZ = n = a;`,
  [Op.PLP]: () => `${stackDummyRead} ${pull} ${setPS("u")}`,
  [Op.RLA]: (store) => `u = ((operand << 1) | c) & 0xff; ${store("u")} a &= u; c = operand >> 7; notZ = n = a;`,
  [Op.ROL]: (store) => `u = c; c = operand >> 7; operand = ((operand << 1) | u) & 0xff; ${store("operand")} notZ = n = operand;`,
  [Op.ROLA]: () => "u = c; c = a >> 7; a = ((a << 1) | u) & 0xff; notZ = n = a;",
  [Op.ROR]: (store) => `u = c; c = operand & 1; operand = (operand >> 1) | (u ? 0x80 : 0); ${store("operand")} notZ = n = operand;`,
  [Op.RORA]: () => "u = c; c = a & 1; a = (a >> 1) | (u ? 0x80 : 0); notZ = n = a;",
  [Op.RTI]: () => `${stackDummyRead} ${pull} ${setPS("u")} ${pull} pc = u; ${pull} pc |= u << 8;`,
  [Op.RTS]: () => `${stackDummyRead} ${pull} pc = u; ${pull} pc |= u << 8; ${read("pc")}; ${nextPc}`,
  [Op.SAX]: (store) => store("a & x"),
  [Op.SBX]: () => "u = (x & a) - operand; x = u & 0xff; notZ = n = x; c = u >= 0 ? 1 : 0;",
  [Op.SEC]: () => "c = 1;",
  [Op.SED]: () => "cpu.d = 1;",
  [Op.SEI]: () => "cpu.i = 1;",
  [Op.SHA]: (store) => store("a & x & (((address >> 8) + 1) & 0xff)"),
  [Op.SHS]: (store) => `sp = a & x; ${store("a & x & (((address >> 8) + 1) & 0xff)")}`,
  [Op.SHX]: (store) => store("x & (((address >> 8) + 1) & 0xff)"),
  [Op.SHY]: (store) => store("y & (((address >> 8) + 1) & 0xff)"),
  [Op.SLO]: (store) => `c = operand >> 7; operand = (operand << 1) & 0xff; ${store("operand")} a |= operand; notZ = n = a;`,
  [Op.SRE]: (store) => `c = operand & 1; operand >>= 1; ${store("operand")} a ^= operand; notZ = n = a;`,
  [Op.STA]: (store) => store("a"),
  [Op.STX]: (store) => store("x"),
  [Op.STY]: (store) => store("y"),
  [Op.TAX]: () => "x = a; notZ = n = x;",
  [Op.TAY]: () => "y = a; notZ = n = y;",
  [Op.TSX]: () => "x = sp; notZ = n = x;",
  [Op.TXA]: () => "a = x; notZ = n = a;",
  [Op.TXS]: () => "sp = x;",
  [Op.TYA]: () => "a = y; notZ = n = a;",
};

/** The source of one opcode's case: the whole base cycle count first (Stella's low CPU), accesses, semantics. */
function opcodeCase(opcode: number, op: Op, kind: number, mode: number): string {
  const zeroPage = mode === ZP || mode === ZPX || mode === ZPY;
  const store = (value: string) => (zeroPage ? writeZp("address", value) : write("address", value));
  return `case ${opcode}: clock.cycles += ${CYCLES[opcode]}; ${addressing(mode, kind)} ${SEMANTICS[op](store)} break;`;
}

/** The 6502's documented opcodes: what programs run; the rest (and the invalid ones) are kept out of the hot loop. */
const documented = (code: number, op: Op) => op !== Op.ILLEGAL && op < Op.ANC && (op !== Op.NOP || code === 0xea);

/** The cases of the opcodes `wanted` picks, invalid ones included (Op.ILLEGAL for any the table does not list). */
function cases(wanted: (code: number, op: Op) => boolean): string {
  const source: string[] = [];
  const listed = new Set<number>();
  for (const [op, kind, ...codes] of OPCODES) {
    for (const [code, mode] of codes) {
      listed.add(code);
      if (wanted(code, op)) source.push(opcodeCase(code, op, kind, mode));
    }
  }
  for (let code = 0; code < 256; code++) if (!listed.has(code) && wanted(code, Op.ILLEGAL)) source.push(opcodeCase(code, Op.ILLEGAL, 0, IMP));
  return source.join("\n");
}

// The CPU's state as the generated functions hold it: loaded into locals at the start, stored back at the end. The
// D and I flags, which few instructions touch, stay in the CPU's fields (fewer values for the loop to carry).
const LOAD_STATE = `
  let a = cpu.a, x = cpu.x, y = cpu.y, sp = cpu.sp, pc = cpu.pc;
  let n = cpu.n, v = cpu.v, notZ = cpu.notZ, c = cpu.c, db = cpu.bus.dataBus | 0;`;
const STORE_STATE = `
  cpu.a = a, cpu.x = x, cpu.y = y, cpu.sp = sp, cpu.pc = pc;
  cpu.n = n, cpu.v = v, cpu.notZ = notZ, cpu.c = c, cpu.bus.dataBus = db;`;
const LOAD_MEMORY = `
  const clock = cpu.clock;
  const ram = cpu.ram ?? NO_RAM;
  let rom = cpu.rom, romSelect = cpu.romSelect, romMatch = cpu.romMatch, romFrom = cpu.romFrom, romEnd = cpu.romTo - 2;`;
/** The scratch variables of one instruction (declared per instruction so the loop carries none of them). */
const SCRATCH = "let address = 0, operand = 0, t = 0, u = 0, w = 0;";

type Execute = (cpu: M6502, count: number) => boolean;
type Undocumented = (cpu: M6502, opcode: number, fast: boolean, o: number) => void;

/**
 * M6502Low::execute's loop (see above), for a CPU with RIOT RAM mapped (`ramMapped`) or without. A function V8
 * optimizes must stay under its bytecode limit (60 KB), so the loop has the documented opcodes' cases, and hands
 * the others, with the state stored back, to a second function with their cases (the opcode fetched, `pc` past it,
 * `fast` and `o` as the loop set them).
 */
function buildExecute(ramMapped: boolean): Execute {
  const compile = <F>(source: string, undocumented: Undocumented | null): F => {
    const constants = source.replace(/RAM_BIT/g, ramMapped ? "0x80" : "0").replace(/RAM_MATCH/g, ramMapped ? "0x80" : "-1");
    return new Function("BCD", "NO_RAM", "undocumented", constants)(BCD, new Uint8Array(128), undocumented);
  };
  const undocumented = compile<Undocumented>(`return function undocumented(cpu, opcode, fast, o) {
    ${LOAD_MEMORY} ${LOAD_STATE} ${SCRATCH}
    switch (opcode) {
      ${cases((code, op) => !documented(code, op))}
    }
    ${STORE_STATE}
  };`, null);
  return compile<Execute>(`return function execute(cpu, count) {
    cpu.status &= ${FATAL_ERROR_BIT};
    ${LOAD_MEMORY} ${LOAD_STATE}
    while (count > 0) {
      if (cpu.status !== 0) {
        if (cpu.status !== ${ROM_REMAPPED_BIT}) break;
        cpu.status = 0;
        rom = cpu.rom, romSelect = cpu.romSelect, romMatch = cpu.romMatch, romFrom = cpu.romFrom, romEnd = cpu.romTo - 2;
      }
      count--;
      ${SCRATCH}
      const o = pc & 0xfff;
      const fast = (pc & romSelect) === romMatch && o >= romFrom && o < romEnd;
      const opcode = (db = fast ? rom[o] : cpu.fetchAt(pc, db) | 0);
      ${nextPc}
      switch (opcode) {
        ${cases(documented)}
        default:
          ${STORE_STATE}
          undocumented(cpu, opcode, fast, o);
          a = cpu.a, x = cpu.x, y = cpu.y, sp = cpu.sp, pc = cpu.pc;
          n = cpu.n, v = cpu.v, notZ = cpu.notZ, c = cpu.c, db = cpu.bus.dataBus | 0;
      }
    }
    ${STORE_STATE}
    return (cpu.status & ${FATAL_ERROR_BIT}) === 0;
  };`, undocumented);
}

/**
 * Runs every opcode in each situation its code tells apart (operands and pointers in RIOT RAM, in the mapped bank and
 * on the bus, across pages; code in the bank, at its end and elsewhere; each flag set and clear; the stack in RAM and
 * not; a bank switch) on a scratch CPU, so that V8's first optimized compile of `execute` has type feedback for all
 * of it. Without this, V8 compiles, then deoptimizes and recompiles (a few hundred ms of CPU for a function this
 * size) each time a game first takes a path the earlier games had not: work repeated in every process, and noise in
 * the middle of measurements. Several rounds: V8 only starts collecting feedback after a function's first calls.
 */
function primeFeedback(execute: Execute, ramMapped: boolean): void {
  // A flat 8K: $0000-$0FFF behind the bus (or RAM where mapped), $1000-$1FFF the mapped bank.
  const memory = Uint8Array.from({ length: 0x2000 }, (_, k) => (k * 37 + (k >> 8)) & 0xff);
  const bank = memory.subarray(0x1000);
  const bus: Bus = {
    dataBus: 0,
    peek: (address) => memory[address & 0x1fff],
    poke: (address, value) => {
      memory[address & 0x1fff] = value;
      cpu.mapRom(bank, 0, 0x1000);
    },
  };
  const cpu = new M6502(bus, { cycles: 0 });
  cpu.mapRam(ramMapped ? memory.subarray(0x80, 0x100) : null);
  // [code address, operand bytes, X and Y, SP, flags (PS), where the zero-page pointer points]
  const situations: [number, number, number, number, number, number, number][] = [
    [0x1100, 0x80, 0x00, 0x00, 0xff, 0x00, 0x0090],
    [0x1180, 0x05, 0x02, 0x01, 0x7f, 0xff, 0x0280],
    [0x11fe, 0xf0, 0x10, 0x20, 0xfe, 0x4b, 0x10f0],
    [0x0090, 0x81, 0x00, 0x7f, 0x80, 0xc9, 0x1ff0],
    [0x1fff, 0x00, 0x00, 0x00, 0x01, 0x08, 0x0000],
  ];
  // Rounds vary A and the flags (D flipped in odd rounds, N V Z C from round 2) for the arithmetic's branches.
  for (let round = 0; round < 4; round++) {
    for (let opcode = 0; opcode < 256; opcode++) {
      for (const [at, low, high, index, sp, ps, target] of situations) {
        cpu.mapRom(bank, 0, 0x1000);
        for (const pointer of [low, (low + index) & 0xff]) memory.set([target & 0xff, target >> 8], pointer);
        memory.set([opcode, low, high].slice(0, 0x2000 - at), at);
        cpu.status = 0;
        cpu.pc = at;
        cpu.x = cpu.y = index;
        cpu.sp = sp;
        cpu.setPS(ps ^ (round & 1 ? 0x08 : 0) ^ (round & 2 ? 0xc3 : 0));
        cpu.a = [0x00, 0x80, 0x7f, 0xff][round];
        execute(cpu, 2);
      }
    }
  }
}

/** The two interpreters, built at first use: with RIOT RAM mapped (the console's CPU), without (a bare CPU). */
const interpreters: [Execute | null, Execute | null] = [null, null];

/** A bank that is never read: `romFrom = romTo = 0` while no cartridge bank is mapped. */
const NO_ROM = new Uint8Array(4096);

export class M6502 {
  a = 0;
  x = 0;
  y = 0;
  sp = 0xff;
  pc = 0;
  // Flags as Stella keeps them: N and notZ hold the last result (bit 7 / non-zero), the others 0 or 1.
  n = 0;
  v = 0;
  d = 0;
  i = 0;
  notZ = 1;
  c = 0;
  /** STOP_BIT: the TIA ended the frame; FATAL_ERROR_BIT: an invalid opcode was executed. */
  status = 0;
  /**
   * Whether the access before the bus write in progress was a read (the TIA's WSYNC only halts the CPU after a
   * read, as in Stella).
   */
  lastAccessWasRead = true;

  // What the generated `execute` reads directly (so not `private`: it is plain JavaScript).
  /**
   * The cartridge's current 4K window as read: reads with `address & romSelect` equal to romMatch (A12 set, and
   * for FE carts A13 as mapped) and offset (address & $FFF) in [romFrom, romTo) are served from it (see mapRom).
   */
  rom: Uint8Array = NO_ROM;
  romSelect = 0x1000;
  romMatch = 0x1000;
  romFrom = 0;
  romTo = 0;
  /** The RIOT's 128 bytes of RAM, read and written directly where the bus maps them, or null. */
  ram: Uint8Array | null = null;

  constructor(
    readonly bus: Bus,
    /** Stella's System::cycles (reset at every frame start), shared with the TIA and RIOT. */
    readonly clock: { cycles: number },
  ) {}

  /**
   * Lets program and operand fetches from the cartridge skip the bus where its reads have no side effects: a read
   * at A12-set `address` whose offset (address & $FFF) is in [from, to) is `rom[offset]` (a cartridge maps its
   * current bank here whenever it switches; hotspots and RAM ports stay outside the range). Null: no shortcut.
   * `a13`: the bank is only for addresses with A13 set (true) or clear (false), as FE carts decode it.
   */
  mapRom(rom: Uint8Array | null, from = 0, to = 0x1000, a13: boolean | null = null): void {
    if (rom !== null && rom.length !== 4096) throw new RangeError(`mapRom: expected 4096 bytes, got ${rom.length}`);
    this.rom = rom ?? NO_ROM;
    this.romSelect = a13 === null ? 0x1000 : 0x3000;
    this.romMatch = a13 === true ? 0x3000 : 0x1000;
    this.romFrom = rom === null ? 0 : from;
    this.romTo = rom === null ? 0 : to;
    this.status |= ROM_REMAPPED_BIT;
  }

  /** Lets the CPU access the RIOT's RAM (`ram`, 128 bytes) without the bus. */
  mapRam(ram: Uint8Array | null): void {
    if (ram !== null && ram.length !== 128) throw new RangeError(`mapRam: expected 128 bytes, got ${ram.length}`);
    this.ram = ram;
  }

  /** M6502::reset: registers cleared, SP = $FF, flags from PS($20), PC from the reset vector. */
  reset(): void {
    this.status = 0;
    this.a = this.x = this.y = 0;
    this.sp = 0xff;
    this.setPS(0x20);
    this.lastAccessWasRead = true;
    this.pc = this.bus.peek(0xfffc) | (this.bus.peek(0xfffd) << 8);
  }

  /** Asks the CPU to stop after the current instruction (the TIA's frame end). */
  stop(): void {
    this.status |= STOP_BIT;
  }

  /** The status register; B always reads set on a 6507 (Stella's PS()). */
  getPS(): number {
    return 0x20 | 0x10 | (this.n & 0x80 ? 0x80 : 0) | (this.v ? 0x40 : 0) | (this.d ? 0x08 : 0) | (this.i ? 0x04 : 0) |
      (this.notZ ? 0 : 0x02) | (this.c ? 0x01 : 0);
  }

  setPS(ps: number): void {
    this.n = ps & 0x80;
    this.v = (ps >> 6) & 1;
    this.d = (ps >> 3) & 1;
    this.i = (ps >> 2) & 1;
    this.notZ = ps & 0x02 ? 0 : 1;
    this.c = ps & 1;
  }

  /** A read of the instruction stream outside the mapped bank (see `execute`'s `fast`): served as any read. */
  fetchAt(address: number, db: number): number {
    const offset = address & 0xfff;
    if ((address & this.romSelect) === this.romMatch && offset >= this.romFrom && offset < this.romTo) return this.rom[offset];
    if ((address & 0x1280) === 0x80 && this.ram !== null) return this.ram[address & 0x7f];
    return this.readBus(address, db);
  }

  /** A read `execute` does not serve itself: the bus, which sees `db` as the data bus value until it drives it. */
  readBus(address: number, db: number): number {
    this.bus.dataBus = db;
    return this.bus.peek(address);
  }

  /** A write `execute` does not serve itself (see `write` above for `afterRead`). */
  writeBus(address: number, value: number, afterRead: boolean): void {
    this.lastAccessWasRead = afterRead;
    this.bus.poke(address, value);
  }

  /**
   * M6502Low::execute: runs up to `count` instructions, stopping early after the instruction during which `stop()`
   * was called. Returns false if the CPU is (or went) dead on an invalid opcode.
   */
  execute(count: number): boolean {
    const ramMapped = this.ram !== null ? 1 : 0;
    let execute = interpreters[ramMapped];
    if (execute === null) {
      execute = interpreters[ramMapped] = buildExecute(ramMapped === 1);
      primeFeedback(execute, ramMapped === 1);
    }
    return execute(this, count);
  }
}
