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
   * The data bus's last value (Stella's System data bus state): the CPU sets it before each bus call (and when it
   * stops), as its own reads of RIOT RAM and the mapped bank leave it.
   */
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
  7, 6, 2, 8, 3, 3, 5, 5, 3, 2, 2, 2, 4, 4, 6, 6, 2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7, 6, 6, 2, 8, 3, 3, 5,
  5, 4, 2, 2, 2, 4, 4, 6, 6, 2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7, 6, 6, 2, 8, 3, 3, 5, 5, 3, 2, 2, 2, 3, 4,
  6, 6, 2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7, 6, 6, 2, 8, 3, 3, 5, 5, 4, 2, 2, 2, 5, 4, 6, 6, 2, 5, 2, 8, 4,
  4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7, 2, 6, 2, 6, 3, 3, 3, 3, 2, 2, 2, 2, 4, 4, 4, 4, 2, 6, 2, 6, 4, 4, 4, 4, 2, 5, 2, 5,
  5, 5, 5, 5, 2, 6, 2, 6, 3, 3, 3, 4, 2, 2, 2, 2, 4, 4, 4, 4, 2, 5, 2, 5, 4, 4, 4, 4, 2, 4, 2, 4, 4, 4, 4, 4, 2, 6, 2,
  8, 3, 3, 5, 5, 2, 2, 2, 2, 4, 4, 6, 6, 2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7, 2, 6, 2, 8, 3, 3, 5, 5, 2, 2,
  2, 2, 4, 4, 6, 6, 2, 5, 2, 8, 4, 4, 6, 6, 2, 4, 2, 7, 4, 4, 7, 7,
]);

/**
 * Operand bytes after each opcode, by the opcode map's columns (low five bits): none for implied and accumulator
 * instructions, the invalid x2 opcodes, and BRK, JSR, RTI and RTS (JSR and BRK fetch theirs in their cases, in
 * Stella's order around the stack accesses); two for absolute, indexed absolute and indirect; one for the rest.
 */
const OPERAND_BYTES = Uint8Array.from({ length: 256 }, (_, opcode) => {
  const column = opcode & 0x1f;
  if (column === 0x00 || column === 0x02) return opcode >= 0x80 ? 1 : 0; // LDY/CPY/CPX/NOP #, LDX/NOP #
  if (column === 0x12 || (column & 0x0f) === 0x08 || (column & 0x0f) === 0x0a) return 0;
  if (column === 0x19 || column === 0x1b || (column & 0x0c) === 0x0c) return 2;
  return 1;
});

// Stella's BCD tables: BCD_TO_BIN[t] reads a byte as two decimal digits (also for invalid digits, e.g. 0x0F = 15);
// BIN_TO_BCD[t] writes t % 100 as two digits. Indexed as Stella's 2x256 array, so a negative index into the second
// row lands in the first, as it does in C.
const BCD = new Uint8Array(512);
for (let t = 0; t < 256; t++) {
  BCD[t] = (t >> 4) * 10 + (t & 0x0f);
  BCD[256 + t] = (((t % 100) / 10) << 4) | (t % 10);
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
  /** Whether the access before the current write was a read (the TIA's WSYNC only halts the CPU then, as in Stella). */
  lastAccessWasRead = true;
  /** The data bus's last value (see `peek`). */
  private busValue = 0;

  /**
   * The cartridge's current 4K window as read, or null: reads with A12 set (for FE carts A13 as mapped too) and an
   * offset (address & $FFF) in the range `mapRom` was given are served from it directly (see `fetch`).
   */
  private rom: Uint8Array | null = null;
  /** The RIOT's 128 bytes of RAM, read and written directly where the bus maps them (see `peek`), or null. */
  private ram: Uint8Array | null = null;
  /**
   * The window as one range of `address & romKey` (A12, for FE carts A13 too, and the offset): [romLow, romHigh), so
   * a read needs one mask and two comparisons to know it may be served from `rom`.
   */
  private romKey = 0x1fff;
  private romLow = 0;
  private romHigh = 0;

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
    const match = a13 === true ? 0x3000 : 0x1000;
    this.romKey = a13 === null ? 0x1fff : 0x3fff;
    this.rom = rom;
    this.romLow = rom === null ? 0 : match + from;
    this.romHigh = rom === null ? 0 : match + to;
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
    this.busValue = this.bus.dataBus ?? 0;
    this.pc = this.peek(0xfffc) | (this.peek(0xfffd) << 8);
  }

  /** Asks the CPU to stop after the current instruction (the TIA's frame end). */
  stop(): void {
    this.status |= STOP_BIT;
  }

  /** The status register; B always reads set on a 6507 (Stella's PS()). */
  getPS(): number {
    return (
      0x20 |
      0x10 |
      (this.n & 0x80 ? 0x80 : 0) |
      (this.v ? 0x40 : 0) |
      (this.d ? 0x08 : 0) |
      (this.i ? 0x04 : 0) |
      (this.notZ ? 0 : 0x02) |
      (this.c ? 0x01 : 0)
    );
  }

  setPS(ps: number): void {
    this.n = ps & 0x80;
    this.v = (ps >> 6) & 1;
    this.d = (ps >> 3) & 1;
    this.i = (ps >> 2) & 1;
    this.notZ = ps & 0x02 ? 0 : 1;
    this.c = ps & 1;
  }

  // The data bus (Stella's System data bus state: the last byte read or written, which TIA reads return in their
  // undriven bits) and whether the last access was a read (a write to WSYNC halts the CPU only then) matter only to
  // the bus calls, so the CPU keeps the first in `busValue` and hands both over just before it calls the bus.

  private peek(address: number): number {
    // RIOT RAM (A12, A9 clear, A7 set: the zero page and the stack) without the calls: the console's peek would read
    // the same byte and leave it on the data bus.
    const ram = this.ram;
    if ((address & 0x1280) === 0x80 && ram !== null) return (this.busValue = ram[address & 0x7f]);
    this.bus.dataBus = this.busValue;
    return (this.busValue = this.bus.peek(address));
  }

  /**
   * A read that may lie in the mapped bank: absolute data reads (tables in ROM) and the instruction bytes `execute`
   * does not take from the bank at once. There it is the bus read without the calls (the console's peek would read
   * the same byte and leave it on the data bus).
   */
  private fetch(address: number): number {
    const key = address & this.romKey;
    if (key < this.romLow || key >= this.romHigh) return this.peek(address);
    return (this.busValue = this.rom![key & 0xfff]);
  }

  /** A write; `afterRead` is false for the pushes that follow a push (JSR's and BRK's), the only writes after writes. */
  private poke(address: number, value: number, afterRead = true): void {
    const ram = this.ram;
    if ((address & 0x1280) === 0x80 && ram !== null) {
      ram[address & 0x7f] = value;
    } else {
      this.lastAccessWasRead = afterRead;
      this.bus.poke(address, value);
    }
    this.busValue = value;
  }

  /**
   * M6502Low::execute: runs up to `count` instructions, stopping early after the instruction during which `stop()`
   * was called. Returns false if the CPU is (or went) dead on an invalid opcode.
   *
   * One `switch` over the opcode does the instruction's addressing, operand bytes first (`pc` moves past them), then
   * jumps with `break <operation>` to its operation's semantics, each written once after the labelled block it
   * closes. A labelled break is a plain jump, so an instruction costs one indirect jump (the switch's table), where
   * an addressing-mode switch followed by an operation switch would cost two (benchmark/README.md, "The 6507
   * interpreter").
   * Instructions with nothing to share (implied ones, branches, stack and jumps) are done in their case.
   */
  execute(count: number): boolean {
    this.status &= FATAL_ERROR_BIT;
    const clock = this.clock;
    let a = this.a,
      x = this.x,
      y = this.y,
      sp = this.sp,
      pc = this.pc;
    let n = this.n,
      v = this.v,
      d = this.d,
      i = this.i,
      notZ = this.notZ,
      c = this.c;
    let executed = 0;
    while (this.status === 0 && executed < count) {
      executed++;
      // The opcode and its operand bytes (`b1`, `b2`), fetched first as Stella's low CPU does (JSR and BRK fetch theirs
      // in their cases): from the mapped window without the bus when the whole instruction lies in it (bytes read
      // there past its end are harmless), else one by one through `fetch`.
      let opcode: number;
      let length: number;
      let b1 = 0;
      let b2 = 0;
      const key = pc & this.romKey;
      if (key >= this.romLow && key + 2 < this.romHigh) {
        const rom = this.rom!;
        const offset = key & 0xfff;
        opcode = rom[offset];
        b1 = rom[offset + 1];
        b2 = rom[offset + 2];
        length = OPERAND_BYTES[opcode];
        this.busValue = rom[offset + length];
      } else {
        opcode = this.fetch(pc);
        length = OPERAND_BYTES[opcode];
        if (length > 0) b1 = this.fetch((pc + 1) & 0xffff);
        if (length > 1) b2 = this.fetch((pc + 2) & 0xffff);
      }
      pc = (pc + 1 + length) & 0xffff;
      clock.cycles += CYCLES[opcode];
      let address = 0;
      let operand = 0;
      // prettier-ignore
      adc: {
        rra: {
          cmp: {
            dcp: {
              sbc: {
                isb: {
                  rla: {
                    dec: {
                      inc: {
                        ror: {
                          rol: {
                            lsr: {
                              asl: {
                                and: {
                                  anc: {
                                    ane: {
                                      arr: {
                                        asr: {
                                          bit: {
                                            cpx: {
                                              cpy: {
                                                eor: {
                                                  lax: {
                                                    lda: {
                                                      ldx: {
                                                        ldy: {
                                                          lxa: {
                                                            ora: {
                                                              sbx: {
                                                                slo: {
                                                                  sre: {
                                                                    store: {
                                                                      switch (opcode) {
                                                                        // Reads: `operand` from the addressing mode. Indexed reads pay a cycle when the index crosses a page.
                                                                        case 0x69:
                                                                          operand = b1;
                                                                          break adc;
                                                                        case 0x65:
                                                                          operand = this.peek(b1);
                                                                          break adc;
                                                                        case 0x75:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break adc;
                                                                        case 0x6d:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break adc;
                                                                        case 0x7d:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break adc;
                                                                        case 0x79:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break adc;
                                                                        case 0x61:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break adc;
                                                                        case 0x71:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break adc;
                                                                        case 0x29:
                                                                          operand = b1;
                                                                          break and;
                                                                        case 0x25:
                                                                          operand = this.peek(b1);
                                                                          break and;
                                                                        case 0x35:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break and;
                                                                        case 0x2d:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break and;
                                                                        case 0x3d:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break and;
                                                                        case 0x39:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break and;
                                                                        case 0x21:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break and;
                                                                        case 0x31:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break and;
                                                                        case 0x0b:
                                                                        case 0x2b:
                                                                          operand = b1;
                                                                          break anc;
                                                                        case 0x8b:
                                                                          operand = b1;
                                                                          break ane;
                                                                        case 0x6b:
                                                                          operand = b1;
                                                                          break arr;
                                                                        case 0x4b:
                                                                          operand = b1;
                                                                          break asr;
                                                                        case 0x24:
                                                                          operand = this.peek(b1);
                                                                          break bit;
                                                                        case 0x2c:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break bit;
                                                                        case 0xc9:
                                                                          operand = b1;
                                                                          break cmp;
                                                                        case 0xc5:
                                                                          operand = this.peek(b1);
                                                                          break cmp;
                                                                        case 0xd5:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break cmp;
                                                                        case 0xcd:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break cmp;
                                                                        case 0xdd:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break cmp;
                                                                        case 0xd9:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break cmp;
                                                                        case 0xc1:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break cmp;
                                                                        case 0xd1:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break cmp;
                                                                        case 0xe0:
                                                                          operand = b1;
                                                                          break cpx;
                                                                        case 0xe4:
                                                                          operand = this.peek(b1);
                                                                          break cpx;
                                                                        case 0xec:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break cpx;
                                                                        case 0xc0:
                                                                          operand = b1;
                                                                          break cpy;
                                                                        case 0xc4:
                                                                          operand = this.peek(b1);
                                                                          break cpy;
                                                                        case 0xcc:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break cpy;
                                                                        case 0x49:
                                                                          operand = b1;
                                                                          break eor;
                                                                        case 0x45:
                                                                          operand = this.peek(b1);
                                                                          break eor;
                                                                        case 0x55:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break eor;
                                                                        case 0x4d:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break eor;
                                                                        case 0x5d:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break eor;
                                                                        case 0x59:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break eor;
                                                                        case 0x41:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break eor;
                                                                        case 0x51:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break eor;
                                                                        case 0xaf:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break lax;
                                                                        case 0xbf:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break lax;
                                                                        case 0xa7:
                                                                          operand = this.peek(b1);
                                                                          break lax;
                                                                        case 0xb7:
                                                                          operand = this.peek((b1 + y) & 0xff);
                                                                          break lax;
                                                                        case 0xa3:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break lax;
                                                                        case 0xb3:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break lax;
                                                                        case 0xa9:
                                                                          operand = b1;
                                                                          break lda;
                                                                        case 0xa5:
                                                                          operand = this.peek(b1);
                                                                          break lda;
                                                                        case 0xb5:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break lda;
                                                                        case 0xad:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break lda;
                                                                        case 0xbd:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break lda;
                                                                        case 0xb9:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break lda;
                                                                        case 0xa1:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break lda;
                                                                        case 0xb1:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break lda;
                                                                        case 0xa2:
                                                                          operand = b1;
                                                                          break ldx;
                                                                        case 0xa6:
                                                                          operand = this.peek(b1);
                                                                          break ldx;
                                                                        case 0xb6:
                                                                          operand = this.peek((b1 + y) & 0xff);
                                                                          break ldx;
                                                                        case 0xae:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break ldx;
                                                                        case 0xbe:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break ldx;
                                                                        case 0xa0:
                                                                          operand = b1;
                                                                          break ldy;
                                                                        case 0xa4:
                                                                          operand = this.peek(b1);
                                                                          break ldy;
                                                                        case 0xb4:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break ldy;
                                                                        case 0xac:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break ldy;
                                                                        case 0xbc:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break ldy;
                                                                        case 0xbb:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          a = x = sp = sp & operand;
                                                                          notZ = n = a;
                                                                          break; // LAS
                                                                        case 0xab:
                                                                          operand = b1;
                                                                          break lxa;
                                                                        case 0x09:
                                                                          operand = b1;
                                                                          break ora;
                                                                        case 0x05:
                                                                          operand = this.peek(b1);
                                                                          break ora;
                                                                        case 0x15:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break ora;
                                                                        case 0x0d:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break ora;
                                                                        case 0x1d:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break ora;
                                                                        case 0x19:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break ora;
                                                                        case 0x01:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break ora;
                                                                        case 0x11:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break ora;
                                                                        case 0xe9:
                                                                        case 0xeb:
                                                                          operand = b1;
                                                                          break sbc;
                                                                        case 0xe5:
                                                                          operand = this.peek(b1);
                                                                          break sbc;
                                                                        case 0xf5:
                                                                          operand = this.peek((b1 + x) & 0xff);
                                                                          break sbc;
                                                                        case 0xed:
                                                                          operand = this.fetch(b1 | (b2 << 8));
                                                                          break sbc;
                                                                        case 0xfd:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break sbc;
                                                                        case 0xf9:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), y),
                                                                          );
                                                                          break sbc;
                                                                        case 0xe1:
                                                                          operand = this.fetch(
                                                                            this.pointer((b1 + x) & 0xff),
                                                                          );
                                                                          break sbc;
                                                                        case 0xf1:
                                                                          operand = this.fetch(
                                                                            this.indexedRead(this.pointer(b1), y),
                                                                          );
                                                                          break sbc;
                                                                        case 0xcb:
                                                                          operand = b1;
                                                                          break sbx;
                                                                        // NOPs that read (Stella's undocumented ones): the read is all they do.
                                                                        case 0x80:
                                                                        case 0x82:
                                                                        case 0x89:
                                                                        case 0xc2:
                                                                        case 0xe2:
                                                                          break;
                                                                        case 0x04:
                                                                        case 0x44:
                                                                        case 0x64:
                                                                          this.peek(b1);
                                                                          break;
                                                                        case 0x14:
                                                                        case 0x34:
                                                                        case 0x54:
                                                                        case 0x74:
                                                                        case 0xd4:
                                                                        case 0xf4:
                                                                          this.peek((b1 + x) & 0xff);
                                                                          break;
                                                                        case 0x0c:
                                                                          this.fetch(b1 | (b2 << 8));
                                                                          break;
                                                                        case 0x1c:
                                                                        case 0x3c:
                                                                        case 0x5c:
                                                                        case 0x7c:
                                                                        case 0xdc:
                                                                        case 0xfc:
                                                                          this.fetch(
                                                                            this.indexedRead(b1 | (b2 << 8), x),
                                                                          );
                                                                          break;

                                                                        // Read-modify-writes: `address`, and `operand` read from it (no page-crossing cycle: it is in the base count).
                                                                        case 0x06:
                                                                          operand = this.peek((address = b1));
                                                                          break asl;
                                                                        case 0x16:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break asl;
                                                                        case 0x0e:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break asl;
                                                                        case 0x1e:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break asl;
                                                                        case 0xc6:
                                                                          operand = this.peek((address = b1));
                                                                          break dec;
                                                                        case 0xd6:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break dec;
                                                                        case 0xce:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break dec;
                                                                        case 0xde:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break dec;
                                                                        case 0xe6:
                                                                          operand = this.peek((address = b1));
                                                                          break inc;
                                                                        case 0xf6:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break inc;
                                                                        case 0xee:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break inc;
                                                                        case 0xfe:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break inc;
                                                                        case 0x46:
                                                                          operand = this.peek((address = b1));
                                                                          break lsr;
                                                                        case 0x56:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break lsr;
                                                                        case 0x4e:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break lsr;
                                                                        case 0x5e:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break lsr;
                                                                        case 0x26:
                                                                          operand = this.peek((address = b1));
                                                                          break rol;
                                                                        case 0x36:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break rol;
                                                                        case 0x2e:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break rol;
                                                                        case 0x3e:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break rol;
                                                                        case 0x66:
                                                                          operand = this.peek((address = b1));
                                                                          break ror;
                                                                        case 0x76:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break ror;
                                                                        case 0x6e:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break ror;
                                                                        case 0x7e:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break ror;
                                                                        case 0xcf:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break dcp;
                                                                        case 0xdf:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break dcp;
                                                                        case 0xdb:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break dcp;
                                                                        case 0xc7:
                                                                          operand = this.peek((address = b1));
                                                                          break dcp;
                                                                        case 0xd7:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break dcp;
                                                                        case 0xc3:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break dcp;
                                                                        case 0xd3:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break dcp;
                                                                        case 0xef:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break isb;
                                                                        case 0xff:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break isb;
                                                                        case 0xfb:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break isb;
                                                                        case 0xe7:
                                                                          operand = this.peek((address = b1));
                                                                          break isb;
                                                                        case 0xf7:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break isb;
                                                                        case 0xe3:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break isb;
                                                                        case 0xf3:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break isb;
                                                                        case 0x2f:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break rla;
                                                                        case 0x3f:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break rla;
                                                                        case 0x3b:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break rla;
                                                                        case 0x27:
                                                                          operand = this.peek((address = b1));
                                                                          break rla;
                                                                        case 0x37:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break rla;
                                                                        case 0x23:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break rla;
                                                                        case 0x33:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break rla;
                                                                        case 0x6f:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break rra;
                                                                        case 0x7f:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break rra;
                                                                        case 0x7b:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break rra;
                                                                        case 0x67:
                                                                          operand = this.peek((address = b1));
                                                                          break rra;
                                                                        case 0x77:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break rra;
                                                                        case 0x63:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break rra;
                                                                        case 0x73:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break rra;
                                                                        case 0x0f:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break slo;
                                                                        case 0x1f:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break slo;
                                                                        case 0x1b:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break slo;
                                                                        case 0x07:
                                                                          operand = this.peek((address = b1));
                                                                          break slo;
                                                                        case 0x17:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break slo;
                                                                        case 0x03:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break slo;
                                                                        case 0x13:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break slo;
                                                                        case 0x4f:
                                                                          operand = this.fetch(
                                                                            (address = b1 | (b2 << 8)),
                                                                          );
                                                                          break sre;
                                                                        case 0x5f:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + x) & 0xffff),
                                                                          );
                                                                          break sre;
                                                                        case 0x5b:
                                                                          operand = this.fetch(
                                                                            (address = ((b1 | (b2 << 8)) + y) & 0xffff),
                                                                          );
                                                                          break sre;
                                                                        case 0x47:
                                                                          operand = this.peek((address = b1));
                                                                          break sre;
                                                                        case 0x57:
                                                                          operand = this.peek(
                                                                            (address = (b1 + x) & 0xff),
                                                                          );
                                                                          break sre;
                                                                        case 0x43:
                                                                          operand = this.fetch(
                                                                            (address = this.pointer((b1 + x) & 0xff)),
                                                                          );
                                                                          break sre;
                                                                        case 0x53:
                                                                          operand = this.fetch(
                                                                            (address = (this.pointer(b1) + y) & 0xffff),
                                                                          );
                                                                          break sre;

                                                                        // Writes: `address`, and in `operand` the value stored there.
                                                                        case 0x85:
                                                                          address = b1;
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x95:
                                                                          address = (b1 + x) & 0xff;
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x8d:
                                                                          address = b1 | (b2 << 8);
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x9d:
                                                                          address = ((b1 | (b2 << 8)) + x) & 0xffff;
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x99:
                                                                          address = ((b1 | (b2 << 8)) + y) & 0xffff;
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x81:
                                                                          address = this.pointer((b1 + x) & 0xff);
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x91:
                                                                          address = (this.pointer(b1) + y) & 0xffff;
                                                                          operand = a;
                                                                          break store;
                                                                        case 0x86:
                                                                          address = b1;
                                                                          operand = x;
                                                                          break store;
                                                                        case 0x96:
                                                                          address = (b1 + y) & 0xff;
                                                                          operand = x;
                                                                          break store;
                                                                        case 0x8e:
                                                                          address = b1 | (b2 << 8);
                                                                          operand = x;
                                                                          break store;
                                                                        case 0x84:
                                                                          address = b1;
                                                                          operand = y;
                                                                          break store;
                                                                        case 0x94:
                                                                          address = (b1 + x) & 0xff;
                                                                          operand = y;
                                                                          break store;
                                                                        case 0x8c:
                                                                          address = b1 | (b2 << 8);
                                                                          operand = y;
                                                                          break store;
                                                                        case 0x8f:
                                                                          address = b1 | (b2 << 8);
                                                                          operand = a & x;
                                                                          break store; // SAX
                                                                        case 0x87:
                                                                          address = b1;
                                                                          operand = a & x;
                                                                          break store;
                                                                        case 0x97:
                                                                          address = (b1 + y) & 0xff;
                                                                          operand = a & x;
                                                                          break store;
                                                                        case 0x83:
                                                                          address = this.pointer((b1 + x) & 0xff);
                                                                          operand = a & x;
                                                                          break store;
                                                                        // SHA, SHS, SHX, SHY store a register and-ed with the address's high byte + 1.
                                                                        case 0x9f:
                                                                          address = ((b1 | (b2 << 8)) + y) & 0xffff;
                                                                          operand =
                                                                            a & x & (((address >> 8) + 1) & 0xff);
                                                                          break store;
                                                                        case 0x93:
                                                                          address = (this.pointer(b1) + y) & 0xffff;
                                                                          operand =
                                                                            a & x & (((address >> 8) + 1) & 0xff);
                                                                          break store;
                                                                        case 0x9b:
                                                                          address = ((b1 | (b2 << 8)) + y) & 0xffff;
                                                                          sp = a & x;
                                                                          operand =
                                                                            a & x & (((address >> 8) + 1) & 0xff);
                                                                          break store;
                                                                        case 0x9e:
                                                                          address = ((b1 | (b2 << 8)) + y) & 0xffff;
                                                                          operand = x & (((address >> 8) + 1) & 0xff);
                                                                          break store;
                                                                        case 0x9c:
                                                                          address = ((b1 | (b2 << 8)) + x) & 0xffff;
                                                                          operand = y & (((address >> 8) + 1) & 0xff);
                                                                          break store;

                                                                        // Implied and accumulator.
                                                                        case 0x0a:
                                                                          c = a >> 7;
                                                                          a = (a << 1) & 0xff;
                                                                          notZ = n = a;
                                                                          break; // ASL A
                                                                        case 0x4a:
                                                                          c = a & 1;
                                                                          a >>= 1;
                                                                          notZ = n = a;
                                                                          break; // LSR A
                                                                        case 0x2a:
                                                                          a = (a << 1) | c;
                                                                          c = a >> 8;
                                                                          a &= 0xff;
                                                                          notZ = n = a;
                                                                          break; // ROL A
                                                                        case 0x6a:
                                                                          a |= c << 8;
                                                                          c = a & 1;
                                                                          a >>= 1;
                                                                          notZ = n = a;
                                                                          break; // ROR A
                                                                        case 0x18:
                                                                          c = 0;
                                                                          break; // CLC
                                                                        case 0xd8:
                                                                          d = 0;
                                                                          break; // CLD
                                                                        case 0x58:
                                                                          i = 0;
                                                                          break; // CLI
                                                                        case 0xb8:
                                                                          v = 0;
                                                                          break; // CLV
                                                                        case 0x38:
                                                                          c = 1;
                                                                          break; // SEC
                                                                        case 0xf8:
                                                                          d = 1;
                                                                          break; // SED
                                                                        case 0x78:
                                                                          i = 1;
                                                                          break; // SEI
                                                                        case 0xca:
                                                                          x = (x - 1) & 0xff;
                                                                          notZ = n = x;
                                                                          break; // DEX
                                                                        case 0x88:
                                                                          y = (y - 1) & 0xff;
                                                                          notZ = n = y;
                                                                          break; // DEY
                                                                        case 0xe8:
                                                                          x = (x + 1) & 0xff;
                                                                          notZ = n = x;
                                                                          break; // INX
                                                                        case 0xc8:
                                                                          y = (y + 1) & 0xff;
                                                                          notZ = n = y;
                                                                          break; // INY
                                                                        case 0xaa:
                                                                          x = a;
                                                                          notZ = n = x;
                                                                          break; // TAX
                                                                        case 0xa8:
                                                                          y = a;
                                                                          notZ = n = y;
                                                                          break; // TAY
                                                                        case 0xba:
                                                                          x = sp;
                                                                          notZ = n = x;
                                                                          break; // TSX
                                                                        case 0x8a:
                                                                          a = x;
                                                                          notZ = n = a;
                                                                          break; // TXA
                                                                        case 0x9a:
                                                                          sp = x;
                                                                          break; // TXS
                                                                        case 0x98:
                                                                          a = y;
                                                                          notZ = n = a;
                                                                          break; // TYA
                                                                        case 0x1a:
                                                                        case 0x3a:
                                                                        case 0x5a:
                                                                        case 0x7a:
                                                                        case 0xda:
                                                                        case 0xea:
                                                                        case 0xfa:
                                                                          break; // NOP

                                                                        // Branches, jumps and the stack.
                                                                        case 0x10:
                                                                        case 0x30:
                                                                        case 0x50:
                                                                        case 0x70:
                                                                        case 0x90:
                                                                        case 0xb0:
                                                                        case 0xd0:
                                                                        case 0xf0: {
                                                                          if (!branchTaken(opcode, n, v, notZ, c))
                                                                            break;
                                                                          const next = pc;
                                                                          pc = this.branch(pc, b1);
                                                                          // Back to an absolute load 3 bytes before the branch: maybe a loop polling the RIOT timer.
                                                                          if (pc !== ((next - 5) & 0xffff)) break;
                                                                          const passes = this.waitForTimer(
                                                                            pc,
                                                                            opcode,
                                                                            a,
                                                                            v,
                                                                            c,
                                                                            (count - executed) >> 1,
                                                                            (next ^ pc) & 0xff00 ? 4 : 3,
                                                                          );
                                                                          if (passes === 0) break;
                                                                          executed += 2 * passes;
                                                                          const value = this.timerValue;
                                                                          if (this.timerLoad === 0xad)
                                                                            a = notZ = n = value;
                                                                          else if (this.timerLoad === 0xae)
                                                                            x = notZ = n = value;
                                                                          else if (this.timerLoad === 0xac)
                                                                            y = notZ = n = value;
                                                                          else
                                                                            (notZ = a & value),
                                                                              (n = value),
                                                                              (v = (value >> 6) & 1);
                                                                          break;
                                                                        }
                                                                        case 0x4c:
                                                                          pc = b1 | (b2 << 8);
                                                                          break; // JMP abs
                                                                        case 0x6c: {
                                                                          // JMP ($nnnn) with the 6502's bug: the pointer's high byte comes from the start of the same page.
                                                                          const pointer = b1 | (b2 << 8);
                                                                          const high =
                                                                            ((pointer ^ (pointer + 1)) & 0xff00) !== 0
                                                                              ? pointer & 0xff00
                                                                              : pointer + 1;
                                                                          pc =
                                                                            this.peek(pointer) | (this.peek(high) << 8);
                                                                          break;
                                                                        }
                                                                        case 0x20: {
                                                                          // JSR
                                                                          const low = this.fetch(pc);
                                                                          pc = (pc + 1) & 0xffff;
                                                                          this.peek(0x100 + sp);
                                                                          this.poke(0x100 + sp, pc >> 8);
                                                                          sp = (sp - 1) & 0xff;
                                                                          this.poke(0x100 + sp, pc & 0xff, false);
                                                                          sp = (sp - 1) & 0xff;
                                                                          pc = low | (this.fetch(pc) << 8);
                                                                          break;
                                                                        }
                                                                        case 0x60: // RTS
                                                                          this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          pc = this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          pc |= this.peek(0x100 + sp) << 8;
                                                                          this.fetch(pc);
                                                                          pc = (pc + 1) & 0xffff;
                                                                          break;
                                                                        case 0x40: // RTI
                                                                          this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          this.setPS(this.peek(0x100 + sp));
                                                                          (n = this.n),
                                                                            (v = this.v),
                                                                            (d = this.d),
                                                                            (i = this.i),
                                                                            (notZ = this.notZ),
                                                                            (c = this.c);
                                                                          sp = (sp + 1) & 0xff;
                                                                          pc = this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          pc |= this.peek(0x100 + sp) << 8;
                                                                          break;
                                                                        case 0x00: // BRK
                                                                          this.fetch(pc);
                                                                          pc = (pc + 1) & 0xffff;
                                                                          this.poke(0x100 + sp, pc >> 8);
                                                                          sp = (sp - 1) & 0xff;
                                                                          this.poke(0x100 + sp, pc & 0xff, false);
                                                                          sp = (sp - 1) & 0xff;
                                                                          (this.n = n),
                                                                            (this.v = v),
                                                                            (this.d = d),
                                                                            (this.i = i),
                                                                            (this.notZ = notZ),
                                                                            (this.c = c);
                                                                          this.poke(0x100 + sp, this.getPS(), false);
                                                                          sp = (sp - 1) & 0xff;
                                                                          i = 1;
                                                                          pc = this.peek(0xfffe);
                                                                          pc |= this.peek(0xffff) << 8;
                                                                          break;
                                                                        case 0x48:
                                                                          this.poke(0x100 + sp, a);
                                                                          sp = (sp - 1) & 0xff;
                                                                          break; // PHA
                                                                        case 0x08: // PHP
                                                                          (this.n = n),
                                                                            (this.v = v),
                                                                            (this.d = d),
                                                                            (this.i = i),
                                                                            (this.notZ = notZ),
                                                                            (this.c = c);
                                                                          this.poke(0x100 + sp, this.getPS());
                                                                          sp = (sp - 1) & 0xff;
                                                                          break;
                                                                        case 0x68: // PLA
                                                                          this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          a = this.peek(0x100 + sp);
                                                                          notZ = n = a;
                                                                          break;
                                                                        case 0x28: // PLP
                                                                          this.peek(0x100 + sp);
                                                                          sp = (sp + 1) & 0xff;
                                                                          this.setPS(this.peek(0x100 + sp));
                                                                          (n = this.n),
                                                                            (v = this.v),
                                                                            (d = this.d),
                                                                            (i = this.i),
                                                                            (notZ = this.notZ),
                                                                            (c = this.c);
                                                                          break;

                                                                        // x2 but 82/A2/C2/E2: Stella marks them invalid; the CPU stops for good.
                                                                        default:
                                                                          this.status |= FATAL_ERROR_BIT;
                                                                          break;
                                                                      }
                                                                      continue;
                                                                    } // store
                                                                    this.poke(address, operand);
                                                                    continue;
                                                                  } // sre
                                                                  c = operand & 1;
                                                                  operand >>= 1;
                                                                  this.poke(address, operand);
                                                                  a ^= operand;
                                                                  notZ = n = a;
                                                                  continue;
                                                                } // slo
                                                                c = operand >> 7;
                                                                operand = (operand << 1) & 0xff;
                                                                this.poke(address, operand);
                                                                a |= operand;
                                                                notZ = n = a;
                                                                continue;
                                                              } // sbx
                                                              operand = (x & a) - operand;
                                                              x = operand & 0xff;
                                                              notZ = n = x;
                                                              c = operand >= 0 ? 1 : 0;
                                                              continue;
                                                            } // ora
                                                            a |= operand;
                                                            notZ = n = a;
                                                            continue;
                                                          } // lxa
                                                          a = x = (a | 0xee) & operand;
                                                          notZ = n = a;
                                                          continue;
                                                        } // ldy
                                                        y = operand;
                                                        notZ = n = y;
                                                        continue;
                                                      } // ldx
                                                      x = operand;
                                                      notZ = n = x;
                                                      continue;
                                                    } // lda
                                                    a = operand;
                                                    notZ = n = a;
                                                    continue;
                                                  } // lax
                                                  a = x = operand;
                                                  notZ = n = a;
                                                  continue;
                                                } // eor
                                                a ^= operand;
                                                notZ = n = a;
                                                continue;
                                              } // cpy
                                              notZ = n = (y - operand) & 0xff;
                                              c = y >= operand ? 1 : 0;
                                              continue;
                                            } // cpx
                                            notZ = n = (x - operand) & 0xff;
                                            c = x >= operand ? 1 : 0;
                                            continue;
                                          } // bit
                                          notZ = a & operand;
                                          n = operand;
                                          v = (operand >> 6) & 1;
                                          continue;
                                        } // asr
                                        a &= operand;
                                        c = a & 1;
                                        a >>= 1;
                                        notZ = n = a;
                                        continue;
                                      } // arr
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
                                        if ((value & 0x0f) + (value & 0x01) > 0x05)
                                          a = (a & 0xf0) | ((a + 0x06) & 0x0f);
                                        if ((value & 0xf0) + (value & 0x10) > 0x50) {
                                          a = (a + 0x60) & 0xff;
                                          c = 1;
                                        } else {
                                          c = 0;
                                        }
                                      }
                                      continue;
                                    } // ane
                                    a = (a | 0xee) & x & operand;
                                    notZ = n = a;
                                    continue;
                                  } // anc
                                  a &= operand;
                                  notZ = n = a;
                                  c = a >> 7;
                                  continue;
                                } // and
                                a &= operand;
                                notZ = n = a;
                                continue;
                              } // asl
                              c = operand >> 7;
                              operand = (operand << 1) & 0xff;
                              this.poke(address, operand);
                              notZ = n = operand;
                              continue;
                            } // lsr
                            c = operand & 1;
                            operand >>= 1;
                            this.poke(address, operand);
                            notZ = n = operand;
                            continue;
                          } // rol
                          operand = (operand << 1) | c;
                          c = operand >> 8;
                          operand &= 0xff;
                          this.poke(address, operand);
                          notZ = n = operand;
                          continue;
                        } // ror
                        operand |= c << 8;
                        c = operand & 1;
                        operand >>= 1;
                        this.poke(address, operand);
                        notZ = n = operand;
                        continue;
                      } // inc
                      operand = (operand + 1) & 0xff;
                      this.poke(address, operand);
                      notZ = n = operand;
                      continue;
                    } // dec
                    operand = (operand - 1) & 0xff;
                    this.poke(address, operand);
                    notZ = n = operand;
                    continue;
                  } // rla
                  operand = (operand << 1) | c;
                  c = operand >> 8;
                  operand &= 0xff;
                  this.poke(address, operand);
                  a &= operand;
                  notZ = n = a;
                  continue;
                } // isb: INC, then SBC
                operand = (operand + 1) & 0xff;
                this.poke(address, operand);
              } // sbc
              if (!d) {
                const inverted = ~operand & 0xff;
                const difference = ((a << 24) >> 24) + ((inverted << 24) >> 24) + c;
                v = difference > 127 || difference < -128 ? 1 : 0;
                const sum = a + inverted + c;
                a = sum & 0xff;
                c = sum > 0xff ? 1 : 0;
              } else {
                const oldA = a;
                let difference = BCD[a] - BCD[operand] - (c ? 0 : 1);
                if (difference < 0) difference += 100;
                a = BCD[256 + difference];
                c = oldA >= operand + (c ? 0 : 1) ? 1 : 0;
                v = (oldA ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
              }
              notZ = n = a;
              continue;
            } // dcp: DEC, then CMP
            operand = (operand - 1) & 0xff;
            this.poke(address, operand);
          } // cmp
          notZ = n = (a - operand) & 0xff;
          c = a >= operand ? 1 : 0;
          continue;
        } // rra: ROR, then ADC
        operand |= c << 8;
        c = operand & 1;
        operand >>= 1;
        this.poke(address, operand);
      } // adc
      if (!d) {
        const signed = ((a << 24) >> 24) + ((operand << 24) >> 24) + c;
        v = signed > 127 || signed < -128 ? 1 : 0;
        const sum = a + operand + c;
        a = sum & 0xff;
        c = sum > 0xff ? 1 : 0;
      } else {
        const oldA = a;
        const sum = BCD[a] + BCD[operand] + c;
        c = sum > 99 ? 1 : 0;
        a = BCD[256 + (sum & 0xff)];
        v = (oldA ^ a) & 0x80 && (a ^ operand) & 0x80 ? 1 : 0;
      }
      notZ = n = a;
    }
    (this.a = a), (this.x = x), (this.y = y), (this.sp = sp), (this.pc = pc);
    (this.n = n), (this.v = v), (this.d = d), (this.i = i), (this.notZ = notZ), (this.c = c);
    this.bus.dataBus = this.busValue;
    return (this.status & FATAL_ERROR_BIT) === 0;
  }

  /** The address held at zero-page `pointer` (Stella does not wrap pointer + 1: ($FF,X) reads $0100 for its high byte). */
  private pointer(pointer: number): number {
    return this.peek(pointer) | (this.peek(pointer + 1) << 8);
  }

  /** `base` + `index` for an indexed read, which pays a cycle when the index crosses a page (Stella adds it first). */
  private indexedRead(base: number, index: number): number {
    const address = base + index;
    if (((base ^ address) & 0xff00) !== 0) this.clock.cycles++;
    return address & 0xffff;
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
  private waitForTimer(
    loop: number,
    branch: number,
    a: number,
    v: number,
    c: number,
    maxPasses: number,
    branchCycles: number,
  ): number {
    const key = loop & this.romKey;
    if (this.bus.peekTimerQuietly === undefined || key < this.romLow || key + 3 > this.romHigh) return 0;
    const rom = this.rom!;
    const offset = key & 0xfff;
    const load = rom[offset];
    const address = rom[offset + 1] | (rom[offset + 2] << 8);
    // The RIOT's timer registers ($284-$287 and their mirrors: A12 clear, A9, A7 and A2 set) under an absolute load.
    if ((load !== 0xad && load !== 0xae && load !== 0xac && load !== 0x2c) || (address & 0x1284) !== 0x284) return 0;
    const clock = this.clock;
    const bit = load === 0x2c;
    let passes = 0;
    for (let cycles = clock.cycles; passes < maxPasses; passes++, cycles += 4 + branchCycles) {
      const value = this.bus.peekTimerQuietly(address, cycles + 4);
      if (value < 0) break;
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
