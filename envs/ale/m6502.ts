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
  /** The data bus's last value (Stella's System data bus state): set by the CPU's direct ROM fetches. */
  dataBus?: number;
  /**
   * What a read of the RIOT's timer (INTIM or TIMINT at `address`) would return at `cycles`, or -1 where that read
   * would have side effects; without it the CPU emulates timer-polling loops pass by pass.
   */
  peekTimerQuietly?(address: number, cycles: number): number;
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

const OPERATION = new Uint8Array(256); // Op.ILLEGAL by default
const MODE = new Uint8Array(256);
const KIND = new Uint8Array(256);
for (const [op, kind, ...codes] of OPCODES) {
  for (const [code, mode] of codes) {
    OPERATION[code] = op;
    MODE[code] = mode;
    KIND[code] = kind;
  }
}

// Stella's BCD tables: BCD_TO_BIN[t] reads a byte as two decimal digits (also for invalid digits, e.g. 0x0F = 15);
// BIN_TO_BCD[t] writes t % 100 as two digits. Indexed as Stella's 2x256 array, so a negative index into the second
// row lands in the first, as it does in C.
const BCD = new Uint8Array(512);
for (let t = 0; t < 256; t++) {
  BCD[t] = (t >> 4) * 10 + (t & 0x0f);
  BCD[256 + t] = (((t % 100) / 10) << 4) | t % 10;
}

/**
 * Whether branch `opcode` ($10, $30, ..., $F0) is taken: bits 7-6 pick the flag (N, V, C, Z) and bit 5 the value
 * that takes it.
 */
function branchTaken(opcode: number, n: number, v: number, notZ: number, c: number): boolean {
  const flag = opcode < 0x80 ? (opcode < 0x40 ? (n & 0x80) >> 7 : v) : opcode < 0xc0 ? c : notZ ? 0 : 1;
  return flag === ((opcode >> 5) & 1);
}

/** Execution status bits (Stella's M6502 myExecutionStatus). */
export const STOP_BIT = 0x01;
export const FATAL_ERROR_BIT = 0x02;

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
  /** Whether the last bus access was a read (the TIA's WSYNC only halts the CPU after a read, as in Stella). */
  lastAccessWasRead = true;

  /**
   * The cartridge's current 4K window as read, or null: reads with `address & romSelect` equal to romMatch (A12
   * set, and for FE carts A13 as mapped) and offset (address & $FFF) in [romFrom, romTo) are served from it
   * directly (see `fetch`).
   */
  private rom: Uint8Array | null = null;
  /** The RIOT's 128 bytes of RAM, read and written directly where the bus maps them (see `peek`), or null. */
  private ram: Uint8Array | null = null;
  private romFrom = 0;
  private romTo = 0;
  private romSelect = 0x1000;
  private romMatch = 0x1000;

  constructor(
    private readonly bus: Bus,
    /** Stella's System::cycles (reset at every frame start), shared with the TIA and RIOT. */
    private readonly clock: { cycles: number },
  ) {}

  /**
   * Lets program and operand fetches from the cartridge skip the bus where its reads have no side effects: a read
   * at A12-set `address` whose offset (address & $FFF) is in [from, to) is `rom[offset]` (a cartridge maps its
   * current bank here whenever it switches; hotspots and RAM ports stay outside the range). Null: no shortcut.
   * `a13`: the bank is only for addresses with A13 set (true) or clear (false), as FE carts decode it.
   */
  mapRom(rom: Uint8Array | null, from = 0, to = 0x1000, a13: boolean | null = null): void {
    if (rom !== null && rom.length !== 4096) throw new RangeError(`mapRom: expected 4096 bytes, got ${rom.length}`);
    this.romSelect = a13 === null ? 0x1000 : 0x3000;
    this.romMatch = a13 === true ? 0x3000 : 0x1000;
    this.rom = rom;
    this.romFrom = rom === null ? 0 : from;
    this.romTo = rom === null ? 0 : to;
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
    this.pc = this.peek(0xfffc) | (this.peek(0xfffd) << 8);
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

  private peek(address: number): number {
    // RIOT RAM (A12, A9 clear, A7 set: the zero page and the stack) without the calls: the console's peek would read
    // the same byte and leave it on the data bus.
    const ram = this.ram;
    if ((address & 0x1280) === 0x80 && ram !== null) {
      const value = ram[address & 0x7f];
      this.bus.dataBus = value;
      this.lastAccessWasRead = true;
      return value;
    }
    const value = this.bus.peek(address);
    this.lastAccessWasRead = true;
    return value;
  }

  /**
   * A read of the instruction stream (opcode, operands, addresses): most of a program's reads. From a plain
   * cartridge it is the bus read without the calls (the console's peek would read the same byte and leave it on
   * the data bus), which is a large part of what every instruction costs.
   */
  private fetch(address: number): number {
    const offset = address & 0xfff;
    if ((address & this.romSelect) !== this.romMatch || offset < this.romFrom || offset >= this.romTo) return this.peek(address);
    const value = this.rom![offset];
    this.bus.dataBus = value;
    this.lastAccessWasRead = true;
    return value;
  }

  private poke(address: number, value: number): void {
    const ram = this.ram;
    if ((address & 0x1280) === 0x80 && ram !== null) {
      ram[address & 0x7f] = value;
      this.bus.dataBus = value;
    } else {
      this.bus.poke(address, value);
    }
    this.lastAccessWasRead = false;
  }

  /**
   * M6502Low::execute: runs up to `count` instructions, stopping early after the instruction during which `stop()`
   * was called. Returns false if the CPU is (or went) dead on an invalid opcode.
   */
  execute(count: number): boolean {
    this.status &= FATAL_ERROR_BIT;
    const clock = this.clock;
    let a = this.a, x = this.x, y = this.y, sp = this.sp, pc = this.pc;
    let n = this.n, v = this.v, d = this.d, i = this.i, notZ = this.notZ, c = this.c;
    let executed = 0;
    while (this.status === 0 && executed < count) {
      executed++;
      const opcode = this.fetch(pc);
      pc = (pc + 1) & 0xffff;
      clock.cycles += CYCLES[opcode];
      const kind = KIND[opcode];
      let address = 0;
      let operand = 0;
      switch (MODE[opcode]) {
        case IMP:
          break;
        case IMM:
          address = pc;
          pc = (pc + 1) & 0xffff;
          operand = this.fetch(address);
          break;
        case ZP:
          address = this.fetch(pc);
          pc = (pc + 1) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case ZPX:
          address = (this.fetch(pc) + x) & 0xff;
          pc = (pc + 1) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case ZPY:
          address = (this.fetch(pc) + y) & 0xff;
          pc = (pc + 1) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case ABS:
          address = this.fetch(pc) | (this.fetch((pc + 1) & 0xffff) << 8);
          pc = (pc + 2) & 0xffff;
          // JMP is listed as WRITE: it only needs the address.
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case ABSX:
          address = this.fetch(pc) | (this.fetch((pc + 1) & 0xffff) << 8);
          pc = (pc + 2) & 0xffff;
          if (kind === READ && ((address ^ (address + x)) & 0xff00) !== 0) clock.cycles++;
          address = (address + x) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case ABSY:
          address = this.fetch(pc) | (this.fetch((pc + 1) & 0xffff) << 8);
          pc = (pc + 2) & 0xffff;
          if (kind === READ && ((address ^ (address + y)) & 0xff00) !== 0) clock.cycles++;
          address = (address + y) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        case IND: {
          // JMP ($nnnn) with the 6502's bug: the pointer's high byte comes from the start of the same page.
          const pointer = this.fetch(pc) | (this.fetch((pc + 1) & 0xffff) << 8);
          pc = (pc + 2) & 0xffff;
          const high = ((pointer ^ (pointer + 1)) & 0xff00) !== 0 ? pointer & 0xff00 : pointer + 1;
          address = this.peek(pointer) | (this.peek(high) << 8);
          break;
        }
        case INDX: {
          // Stella does not wrap pointer + 1 to the zero page: ($FF,X) reads its high byte from $0100.
          const pointer = (this.fetch(pc) + x) & 0xff;
          pc = (pc + 1) & 0xffff;
          address = this.peek(pointer) | (this.peek(pointer + 1) << 8);
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        }
        case INDY: {
          const pointer = this.fetch(pc);
          pc = (pc + 1) & 0xffff;
          address = this.peek(pointer) | (this.peek(pointer + 1) << 8);
          if (kind === READ && ((address ^ (address + y)) & 0xff00) !== 0) clock.cycles++;
          address = (address + y) & 0xffff;
          if (kind !== WRITE) operand = this.fetch(address);
          break;
        }
      }

      switch (OPERATION[opcode]) {
        case Op.ILLEGAL:
          this.status |= FATAL_ERROR_BIT;
          break;
        case Op.ADC:
        case Op.SBC:
        case Op.RRA:
        case Op.ISB: {
          const op = OPERATION[opcode];
          if (op === Op.RRA) {
            const oldC = c;
            c = operand & 1;
            operand = (operand >> 1) | (oldC ? 0x80 : 0);
            this.poke(address, operand);
          } else if (op === Op.ISB) {
            operand = (operand + 1) & 0xff;
            this.poke(address, operand);
          }
          const oldA = a;
          if (op === Op.ADC || op === Op.RRA) {
            if (!d) {
              const sum = ((a << 24) >> 24) + ((operand << 24) >> 24) + c;
              v = sum > 127 || sum < -128 ? 1 : 0;
              const usum = a + operand + c;
              a = usum & 0xff;
              c = usum > 0xff ? 1 : 0;
            } else {
              const sum = BCD[a] + BCD[operand] + c;
              c = sum > 99 ? 1 : 0;
              a = BCD[256 + (sum & 0xff)];
              v = (oldA ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
            }
          } else if (!d) {
            const inverted = ~operand & 0xff;
            const diff = ((a << 24) >> 24) + ((inverted << 24) >> 24) + c;
            v = diff > 127 || diff < -128 ? 1 : 0;
            const udiff = a + inverted + c;
            a = udiff & 0xff;
            c = udiff > 0xff ? 1 : 0;
          } else {
            let diff = BCD[a] - BCD[operand] - (c ? 0 : 1);
            if (diff < 0) diff += 100;
            a = BCD[256 + diff];
            c = oldA >= operand + (c ? 0 : 1) ? 1 : 0;
            v = (oldA ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
          }
          notZ = a;
          n = a;
          break;
        }
        case Op.AND:
          a &= operand;
          notZ = n = a;
          break;
        case Op.ANC:
          a &= operand;
          notZ = n = a;
          c = a >> 7;
          break;
        case Op.ANE:
          a = (a | 0xee) & x & operand;
          notZ = n = a;
          break;
        case Op.ARR:
          if (!d) {
            a &= operand;
            a = (a >> 1) | (c ? 0x80 : 0);
            c = (a >> 6) & 1;
            v = ((a & 0x40) ^ ((a & 0x20) << 1)) !== 0 ? 1 : 0;
            notZ = n = a;
          } else {
            const value = a & operand;
            a = (value >> 1) | (c ? 0x80 : 0);
            n = c ? 0x80 : 0;
            notZ = a;
            v = (value ^ a) & 0x40 ? 1 : 0;
            if ((value & 0x0f) + (value & 0x01) > 0x05) a = (a & 0xf0) | ((a + 0x06) & 0x0f);
            if ((value & 0xf0) + (value & 0x10) > 0x50) {
              a = (a + 0x60) & 0xff;
              c = 1;
            } else {
              c = 0;
            }
          }
          break;
        case Op.ASL:
          c = operand >> 7;
          operand = (operand << 1) & 0xff;
          this.poke(address, operand);
          notZ = n = operand;
          break;
        case Op.ASLA:
          c = a >> 7;
          a = (a << 1) & 0xff;
          notZ = n = a;
          break;
        case Op.ASR:
          a &= operand;
          c = a & 1;
          a >>= 1;
          notZ = n = a;
          break;
        case Op.BCC:
        case Op.BCS:
        case Op.BEQ:
        case Op.BMI:
        case Op.BNE:
        case Op.BPL:
        case Op.BVC:
        case Op.BVS:
          if (branchTaken(opcode, n, v, notZ, c)) {
            const next = pc;
            pc = this.branch(pc, operand);
            // Back to an absolute load 3 bytes before the branch: maybe a loop polling the RIOT timer.
            if (pc === ((next - 5) & 0xffff)) {
              const passes = this.waitForTimer(pc, opcode, a, v, c, (count - executed) >> 1, (next ^ pc) & 0xff00 ? 4 : 3);
              if (passes > 0) {
                executed += 2 * passes;
                const value = this.timerValue;
                if (this.timerLoad === 0xad) a = notZ = n = value;
                else if (this.timerLoad === 0xae) x = notZ = n = value;
                else if (this.timerLoad === 0xac) y = notZ = n = value;
                else (notZ = a & value), (n = value), (v = (value >> 6) & 1);
              }
            }
          }
          break;
        case Op.BIT:
          notZ = a & operand;
          n = operand;
          v = (operand >> 6) & 1;
          break;
        case Op.BRK: {
          this.fetch(pc);
          pc = (pc + 1) & 0xffff;
          this.poke(0x100 + sp, pc >> 8);
          sp = (sp - 1) & 0xff;
          this.poke(0x100 + sp, pc & 0xff);
          sp = (sp - 1) & 0xff;
          this.n = n, this.v = v, this.d = d, this.i = i, this.notZ = notZ, this.c = c;
          this.poke(0x100 + sp, this.getPS());
          sp = (sp - 1) & 0xff;
          i = 1;
          pc = this.peek(0xfffe);
          pc |= this.peek(0xffff) << 8;
          break;
        }
        case Op.CLC:
          c = 0;
          break;
        case Op.CLD:
          d = 0;
          break;
        case Op.CLI:
          i = 0;
          break;
        case Op.CLV:
          v = 0;
          break;
        case Op.CMP:
          notZ = n = (a - operand) & 0xff;
          c = a >= operand ? 1 : 0;
          break;
        case Op.CPX:
          notZ = n = (x - operand) & 0xff;
          c = x >= operand ? 1 : 0;
          break;
        case Op.CPY:
          notZ = n = (y - operand) & 0xff;
          c = y >= operand ? 1 : 0;
          break;
        case Op.DCP: {
          const value = (operand - 1) & 0xff;
          this.poke(address, value);
          notZ = n = (a - value) & 0xff;
          c = a >= value ? 1 : 0;
          break;
        }
        case Op.DEC:
          operand = (operand - 1) & 0xff;
          this.poke(address, operand);
          notZ = n = operand;
          break;
        case Op.DEX:
          x = (x - 1) & 0xff;
          notZ = n = x;
          break;
        case Op.DEY:
          y = (y - 1) & 0xff;
          notZ = n = y;
          break;
        case Op.EOR:
          a ^= operand;
          notZ = n = a;
          break;
        case Op.INC:
          operand = (operand + 1) & 0xff;
          this.poke(address, operand);
          notZ = n = operand;
          break;
        case Op.INX:
          x = (x + 1) & 0xff;
          notZ = n = x;
          break;
        case Op.INY:
          y = (y + 1) & 0xff;
          notZ = n = y;
          break;
        case Op.JMP:
          pc = address;
          break;
        case Op.JSR: {
          const low = this.fetch(pc);
          pc = (pc + 1) & 0xffff;
          this.peek(0x100 + sp);
          this.poke(0x100 + sp, pc >> 8);
          sp = (sp - 1) & 0xff;
          this.poke(0x100 + sp, pc & 0xff);
          sp = (sp - 1) & 0xff;
          pc = low | (this.fetch(pc) << 8);
          break;
        }
        case Op.LAS:
          a = x = sp = sp & operand;
          notZ = n = a;
          break;
        case Op.LAX:
          a = x = operand;
          notZ = n = a;
          break;
        case Op.LDA:
          a = operand;
          notZ = n = a;
          break;
        case Op.LDX:
          x = operand;
          notZ = n = x;
          break;
        case Op.LDY:
          y = operand;
          notZ = n = y;
          break;
        case Op.LSR:
          c = operand & 1;
          operand >>= 1;
          this.poke(address, operand);
          notZ = n = operand;
          break;
        case Op.LSRA:
          c = a & 1;
          a >>= 1;
          notZ = n = a;
          break;
        case Op.LXA:
          a = x = (a | 0xee) & operand;
          notZ = n = a;
          break;
        case Op.NOP:
          break;
        case Op.ORA:
          a |= operand;
          notZ = n = a;
          break;
        case Op.PHA:
          this.poke(0x100 + sp, a);
          sp = (sp - 1) & 0xff;
          break;
        case Op.PHP:
          this.n = n, this.v = v, this.d = d, this.i = i, this.notZ = notZ, this.c = c;
          this.poke(0x100 + sp, this.getPS());
          sp = (sp - 1) & 0xff;
          break;
        case Op.PLA:
          this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          a = this.peek(0x100 + sp);
          notZ = n = a;
          break;
        case Op.PLP:
          this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          this.setPS(this.peek(0x100 + sp));
          n = this.n, v = this.v, d = this.d, i = this.i, notZ = this.notZ, c = this.c;
          break;
        case Op.RLA: {
          const value = ((operand << 1) | c) & 0xff;
          this.poke(address, value);
          a &= value;
          c = operand >> 7;
          notZ = n = a;
          break;
        }
        case Op.ROL: {
          const oldC = c;
          c = operand >> 7;
          operand = ((operand << 1) | oldC) & 0xff;
          this.poke(address, operand);
          notZ = n = operand;
          break;
        }
        case Op.ROLA: {
          const oldC = c;
          c = a >> 7;
          a = ((a << 1) | oldC) & 0xff;
          notZ = n = a;
          break;
        }
        case Op.ROR: {
          const oldC = c;
          c = operand & 1;
          operand = (operand >> 1) | (oldC ? 0x80 : 0);
          this.poke(address, operand);
          notZ = n = operand;
          break;
        }
        case Op.RORA: {
          const oldC = c;
          c = a & 1;
          a = (a >> 1) | (oldC ? 0x80 : 0);
          notZ = n = a;
          break;
        }
        case Op.RTI:
          this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          this.setPS(this.peek(0x100 + sp));
          n = this.n, v = this.v, d = this.d, i = this.i, notZ = this.notZ, c = this.c;
          sp = (sp + 1) & 0xff;
          pc = this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          pc |= this.peek(0x100 + sp) << 8;
          break;
        case Op.RTS:
          this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          pc = this.peek(0x100 + sp);
          sp = (sp + 1) & 0xff;
          pc |= this.peek(0x100 + sp) << 8;
          this.fetch(pc);
          pc = (pc + 1) & 0xffff;
          break;
        case Op.SAX:
          this.poke(address, a & x);
          break;
        case Op.SBX: {
          const value = (x & a) - operand;
          x = value & 0xff;
          notZ = n = x;
          c = value >= 0 ? 1 : 0;
          break;
        }
        case Op.SEC:
          c = 1;
          break;
        case Op.SED:
          d = 1;
          break;
        case Op.SEI:
          i = 1;
          break;
        case Op.SHA:
          this.poke(address, a & x & (((address >> 8) + 1) & 0xff));
          break;
        case Op.SHS:
          sp = a & x;
          this.poke(address, a & x & (((address >> 8) + 1) & 0xff));
          break;
        case Op.SHX:
          this.poke(address, x & (((address >> 8) + 1) & 0xff));
          break;
        case Op.SHY:
          this.poke(address, y & (((address >> 8) + 1) & 0xff));
          break;
        case Op.SLO:
          c = operand >> 7;
          operand = (operand << 1) & 0xff;
          this.poke(address, operand);
          a |= operand;
          notZ = n = a;
          break;
        case Op.SRE:
          c = operand & 1;
          operand >>= 1;
          this.poke(address, operand);
          a ^= operand;
          notZ = n = a;
          break;
        case Op.STA:
          this.poke(address, a);
          break;
        case Op.STX:
          this.poke(address, x);
          break;
        case Op.STY:
          this.poke(address, y);
          break;
        case Op.TAX:
          x = a;
          notZ = n = x;
          break;
        case Op.TAY:
          y = a;
          notZ = n = y;
          break;
        case Op.TSX:
          x = sp;
          notZ = n = x;
          break;
        case Op.TXA:
          a = x;
          notZ = n = a;
          break;
        case Op.TXS:
          sp = x;
          break;
        case Op.TYA:
          a = y;
          notZ = n = a;
          break;
      }
    }
    this.a = a, this.x = x, this.y = y, this.sp = sp, this.pc = pc;
    this.n = n, this.v = v, this.d = d, this.i = i, this.notZ = notZ, this.c = c;
    return (this.status & FATAL_ERROR_BIT) === 0;
  }

  /** The load opcode of the loop `waitForTimer` last ran, and the value its last pass read. */
  private timerLoad = 0;
  private timerValue = 0;

  /**
   * A loop `L: LDA/LDX/LDY/BIT timer; Bxx L` polling the RIOT timer, just after its branch went back to L (`loop`):
   * runs as many whole passes as leave the branch taken, the timer reads free of side effects and the instruction
   * budget (`maxPasses`) unspent, by advancing the clock (a pass is the load's 4 cycles, its read at their end as
   * Stella's low CPU does it, and the branch's `branchCycles`) instead of emulating them. Nothing else happens in
   * such a pass: the TIA and RIOT are only ever brought up to date when accessed. Returns the passes run (the value
   * the last one read is left in `timerValue`, the load in `timerLoad`); 0 when the loop is anything else. `a`, `v`
   * and `c` are the registers as the branch found them (a load leaves V and C as they are).
   */
  private waitForTimer(loop: number, branch: number, a: number, v: number, c: number, maxPasses: number, branchCycles: number): number {
    const offset = loop & 0xfff;
    if (this.bus.peekTimerQuietly === undefined || (loop & this.romSelect) !== this.romMatch || offset < this.romFrom || offset + 3 > this.romTo) return 0;
    const rom = this.rom!;
    const load = rom[offset];
    const address = rom[offset + 1] | (rom[offset + 2] << 8);
    // The RIOT's timer registers ($284-$287 and their mirrors: A12 and A7 clear, A9 and A2 set) under an absolute load.
    if ((load !== 0xad && load !== 0xae && load !== 0xac && load !== 0x2c) || (address & 0x1284) !== 0x284) return 0;
    const clock = this.clock;
    let passes = 0;
    for (let cycles = clock.cycles; passes < maxPasses; passes++, cycles += 4 + branchCycles) {
      const value = this.bus.peekTimerQuietly(address, cycles + 4);
      if (value < 0) break;
      const bit = load === 0x2c;
      if (!branchTaken(branch, value, bit ? (value >> 6) & 1 : v, bit ? a & value : value, c)) break;
      this.timerValue = value;
    }
    this.timerLoad = load;
    clock.cycles += passes * (4 + branchCycles);
    return passes;
  }

  /** A taken branch: 1 extra cycle, 2 if the target is on another page (Stella adds them after the operand read). */
  private branch(pc: number, offset: number): number {
    const target = (pc + ((offset << 24) >> 24)) & 0xffff;
    this.clock.cycles += ((pc ^ target) & 0xff00) !== 0 ? 2 : 1;
    return target;
  }
}
