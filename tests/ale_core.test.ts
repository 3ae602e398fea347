// Unit tests of the Stella-model 2600 core's parts on tiny hand-made programs and images: the 6502's results and
// cycle counts (Stella's low CPU: the whole base count is charged when the opcode is fetched, page crossings and
// taken branches add theirs), the RIOT timer, and the bank-switching schemes. Whole-console behaviour against real
// ALE is in ale_fidelity.test.ts.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { createCartridge, detectCartridgeType } from "../envs/ale/cart.ts";
import { Atari2600 } from "../envs/ale/console.ts";
import { Action, PADDLE_DELTA, PADDLE_MAX, PADDLE_MIN } from "../envs/ale/controls.ts";
import { M6502 } from "../envs/ale/m6502.ts";
import { SCREEN_BYTE_TO_RGB, ScreenRgbCache, screenToRgb } from "../envs/ale/palette.ts";
import { Riot } from "../envs/ale/riot.ts";

/** A CPU on 64K of flat RAM with `program` at $F000 and the reset vector pointing there. */
function machine(program: number[], setup: (memory: Uint8Array) => void = () => {}) {
  const memory = new Uint8Array(0x10000);
  memory.set(program, 0xf000);
  memory[0xfffc] = 0x00;
  memory[0xfffd] = 0xf0;
  setup(memory);
  const writes: [number, number, number][] = [];
  const clock = { cycles: 0 };
  const bus = {
    peek: (address: number) => memory[address],
    poke: (address: number, value: number) => {
      writes.push([address, value, clock.cycles]);
      memory[address] = value;
    },
  };
  const cpu = new M6502(bus, clock);
  cpu.reset();
  clock.cycles = 0;
  return { cpu, memory, clock, writes };
}

describe("6502 (Stella low CPU model)", () => {
  test("LDA #imm then STA zp: 2 + 3 cycles, and the store is seen at the end of its instruction", () => {
    const { cpu, clock, writes } = machine([0xa9, 0x42, 0x85, 0x80]);
    cpu.execute(2);
    assert.equal(cpu.a, 0x42);
    assert.equal(clock.cycles, 5);
    assert.deepEqual(writes, [[0x80, 0x42, 5]]);
  });

  test("LDA abs,X costs one more cycle only when the index crosses a page", () => {
    const sameP = machine([0xa2, 0x01, 0xbd, 0x10, 0x20]); // LDX #1; LDA $2010,X
    sameP.cpu.execute(2);
    assert.equal(sameP.clock.cycles, 2 + 4);
    const cross = machine([0xa2, 0xff, 0xbd, 0x10, 0x20]); // LDX #$FF; LDA $2010,X -> $210F
    cross.cpu.execute(2);
    assert.equal(cross.clock.cycles, 2 + 5);
  });

  test("STA abs,X never pays the page-crossing cycle (its base count already includes it)", () => {
    const { cpu, clock } = machine([0xa2, 0xff, 0x9d, 0x10, 0x20]);
    cpu.execute(2);
    assert.equal(clock.cycles, 2 + 5);
  });

  test("a taken branch adds 1 cycle, 2 when it lands on another page; not taken adds none", () => {
    const notTaken = machine([0xa9, 0x01, 0xf0, 0x10]); // LDA #1; BEQ +16
    notTaken.cpu.execute(2);
    assert.equal(notTaken.clock.cycles, 4);
    const taken = machine([0xa9, 0x00, 0xf0, 0x10]); // LDA #0; BEQ +16 (same page)
    taken.cpu.execute(2);
    assert.equal(taken.clock.cycles, 5);
    assert.equal(taken.cpu.pc, 0xf004 + 0x10);
    const backwards = machine([0xa9, 0x00, 0xf0, 0x80]); // BEQ -128: $F004 - 128 = $EF84, previous page
    backwards.cpu.execute(2);
    assert.equal(backwards.clock.cycles, 6);
    assert.equal(backwards.cpu.pc, 0xef84);
  });

  test("JSR and RTS round trip: 6 + 6 cycles, return address pushed minus one", () => {
    const { cpu, clock, memory } = machine([0x20, 0x10, 0xf0], (m) => (m[0xf010] = 0x60));
    cpu.execute(1);
    assert.equal(cpu.pc, 0xf010);
    assert.equal(cpu.sp, 0xfd);
    assert.equal(memory[0x1ff], 0xf0);
    assert.equal(memory[0x1fe], 0x02);
    cpu.execute(1);
    assert.equal(cpu.pc, 0xf003);
    assert.equal(clock.cycles, 12);
  });

  test("ADC in decimal mode adds BCD digits and sets carry past 99", () => {
    const { cpu } = machine([0xf8, 0x18, 0xa9, 0x19, 0x69, 0x28, 0x69, 0x60]); // SED; CLC; LDA #$19; ADC #$28; ADC #$60
    cpu.execute(4);
    assert.equal(cpu.a, 0x47);
    assert.equal(cpu.c, 0);
    cpu.execute(1);
    assert.equal(cpu.a, 0x07);
    assert.equal(cpu.c, 1);
  });

  test("SBC in binary mode borrows and sets overflow on signed wrap", () => {
    const { cpu } = machine([0x38, 0xa9, 0x80, 0xe9, 0x01]); // SEC; LDA #$80; SBC #1 -> $7F, V set, C set
    cpu.execute(3);
    assert.equal(cpu.a, 0x7f);
    assert.equal(cpu.v, 1);
    assert.equal(cpu.c, 1);
  });

  test("undocumented LAX loads A and X; DCP decrements memory then compares", () => {
    const { cpu, memory } = machine([0xa7, 0x80, 0xc7, 0x81], (m) => {
      m[0x80] = 0x33;
      m[0x81] = 0x34;
    });
    cpu.execute(1);
    assert.deepEqual([cpu.a, cpu.x], [0x33, 0x33]);
    cpu.execute(1);
    assert.equal(memory[0x81], 0x33);
    assert.equal(cpu.notZ, 0, "A equals the decremented value: Z set");
    assert.equal(cpu.c, 1);
  });

  test("JMP ($xxFF) takes the high byte from the start of the same page (the 6502 bug)", () => {
    const { cpu } = machine([0x6c, 0xff, 0x20], (m) => {
      m[0x20ff] = 0x34;
      m[0x2000] = 0x12;
      m[0x2100] = 0x99;
    });
    cpu.execute(1);
    assert.equal(cpu.pc, 0x1234);
  });

  test("an opcode Stella treats as invalid stops the CPU for good", () => {
    const { cpu } = machine([0xea, 0x02, 0xea]);
    assert.equal(cpu.execute(10), false);
    assert.equal(cpu.pc, 0xf002);
    assert.equal(cpu.execute(10), false);
    assert.equal(cpu.pc, 0xf002, "nothing runs once dead");
  });

  test("stop() ends execute after the current instruction", () => {
    const clock = { cycles: 0 };
    const bus = {
      cpu: null as M6502 | null,
      peek(address: number): number {
        if (address === 0xf001) this.cpu?.stop(); // during the second NOP's fetch
        return 0xea;
      },
      poke(): void {},
    };
    const cpu = new M6502(bus, clock);
    bus.cpu = cpu;
    cpu.pc = 0xf000;
    cpu.execute(100);
    assert.equal(cpu.pc, 0xf002);
    assert.equal(clock.cycles, 4);
  });
});

describe("RIOT timer", () => {
  test("INTIM counts down one per interval after a write, then TIMINT flags the expiry", () => {
    const clock = { cycles: 0 };
    const riot = new Riot(clock, { swcha: 0xff, swchb: 0xff });
    riot.reset(0);
    clock.cycles = 100;
    riot.poke(0x296, 3); // TIM64T = 3
    // Stella reads the timer as of the cycle before the reading instruction ends: 3 - 1 - floor(delta / 64).
    clock.cycles = 100 + 1;
    assert.equal(riot.peek(0x284), 2);
    clock.cycles = 100 + 1 + 64;
    assert.equal(riot.peek(0x284), 1);
    assert.equal(riot.peek(0x285), 0, "not expired");
    clock.cycles = 100 + 1 + 3 * 64;
    assert.equal(riot.peek(0x285), 0x80, "expired");
  });
});

describe("loops polling the RIOT timer", () => {
  /**
   * A CPU and RIOT on a flat 64K with `program` at $F000, after setting the timer (`interval`: 0 TIM1T, 1 TIM8T,
   * 2 TIM64T) to `timer`; `quiet`: the bus offers quiet timer reads (the CPU skips whole passes of a polling loop),
   * else every pass is emulated.
   */
  function polling(program: number[], timer: number, quiet: boolean, onBusRead: () => void = () => {}, interval = 1) {
    const memory = new Uint8Array(0x10000);
    memory.set([0xa9, timer, 0x8d, 0x94 + interval, 0x02, ...program], 0xf000); // LDA #timer; STA TIMxT
    memory[0xfffc] = 0x00;
    memory[0xfffd] = 0xf0;
    const clock = { cycles: 0 };
    const riot = new Riot(clock, { swcha: 0xff, swchb: 0xff });
    riot.reset(0);
    const isRiot = (address: number) => (address & 0x1280) === 0x280;
    const bus = {
      peek: (address: number) => (isRiot(address) ? (onBusRead(), riot.peek(address)) : memory[address]),
      poke: (address: number, value: number) =>
        isRiot(address) ? riot.poke(address, value) : (memory[address] = value),
      ...(quiet
        ? { peekTimerQuietly: (address: number, cycles: number) => riot.peekTimerQuietly(address, cycles) }
        : {}),
    };
    const cpu = new M6502(bus, clock);
    cpu.mapRom(memory.subarray(0xf000)); // the loop must be in the mapped bank, as cartridge code is
    cpu.reset();
    return { cpu, clock };
  }

  const loops: [string, number[]][] = [
    ["LDA INTIM; BNE", [0xad, 0x84, 0x02, 0xd0, 0xfb, 0xa2, 0x07]],
    ["LDX INTIM; BNE", [0xae, 0x84, 0x02, 0xd0, 0xfb, 0xa2, 0x07]],
    ["LDY INTIM; BPL (runs past the expiry)", [0xac, 0x84, 0x02, 0x10, 0xfb, 0xa2, 0x07]],
    ["BIT TIMINT; BPL", [0x2c, 0x85, 0x02, 0x10, 0xfb, 0xa2, 0x07]],
  ];
  for (const [name, program] of loops) {
    test(`${name}: registers, flags and clock after any instruction count are as when each pass is emulated`, () => {
      const state = ({ cpu, clock }: ReturnType<typeof polling>) => [
        cpu.pc,
        cpu.a,
        cpu.x,
        cpu.y,
        cpu.getPS(),
        clock.cycles,
      ];
      for (const interval of [0, 1, 2]) {
        for (let timer = 1; timer < 24; timer++) {
          for (const budget of [3, 4, 5, 8, 9, 40, 41, 300]) {
            const skipped = polling(program, timer, true, undefined, interval);
            const emulated = polling(program, timer, false, undefined, interval);
            skipped.cpu.execute(budget);
            emulated.cpu.execute(budget);
            assert.deepEqual(
              state(skipped),
              state(emulated),
              `interval ${interval}, timer ${timer}, ${budget} instructions`,
            );
          }
        }
      }
    });
  }

  test("a polling loop reads the timer through the bus only for its last passes", () => {
    // LDA INTIM; BNE back; LDX #7; JMP to itself
    const program = [0xad, 0x84, 0x02, 0xd0, 0xfb, 0xa2, 0x07, 0x4c, 0x0c, 0xf0];
    const reads = { skipped: 0, emulated: 0 };
    for (const quiet of [true, false]) {
      const { cpu } = polling(program, 20, quiet, () => (quiet ? reads.skipped++ : reads.emulated++));
      cpu.execute(200);
      assert.deepEqual([cpu.a, cpu.x], [0, 7]);
    }
    assert.ok(reads.emulated >= 19, `${reads.emulated} reads emulated pass by pass`);
    assert.ok(reads.skipped <= 2, `${reads.skipped} reads with the passes skipped`);
  });
});

describe("cartridges", () => {
  /** An image of `banks` 4K banks whose every byte is its bank number. */
  const banked = (banks: number) => {
    const image = new Uint8Array(banks * 4096);
    for (let b = 0; b < banks; b++) image.fill(b, b * 4096, (b + 1) * 4096);
    image[0] = 1; // not a Superchip image (its first 256 bytes differ)
    return image;
  };

  test("F8 starts in bank 1 and switches on a read of $1FF8 / $1FF9, returning the new bank's byte", () => {
    const cart = createCartridge(banked(2), "F8");
    cart.reset();
    assert.equal(cart.peek(0x1800), 1);
    assert.equal(cart.peek(0x1ff8), 0);
    assert.equal(cart.peek(0x1800), 0);
    cart.poke(0x1ff9, 0);
    assert.equal(cart.peek(0x1800), 1);
  });

  test("F6 hotspots $1FF6-$1FF9 select banks 0-3", () => {
    const cart = createCartridge(banked(4), "F6");
    cart.reset();
    cart.peek(0x1ff8);
    assert.equal(cart.peek(0x1100), 2);
  });

  test("F8SC: RAM written at $1000-$107F reads back at $1080-$10FF", () => {
    const cart = createCartridge(banked(2), "F8SC");
    cart.reset();
    cart.poke(0x1005, 0xab);
    assert.equal(cart.peek(0x1085), 0xab);
  });

  test("E0: the last 1K slice is fixed to slice 7, the first three switch by hotspot", () => {
    const image = new Uint8Array(8192);
    for (let s = 0; s < 8; s++) image.fill(s, s * 1024, (s + 1) * 1024);
    const cart = createCartridge(image, "E0");
    cart.reset();
    assert.deepEqual(
      [0x1000, 0x1400, 0x1800, 0x1c00].map((a) => cart.peek(a)),
      [4, 5, 6, 7],
    );
    cart.peek(0x1fe2); // slice 2 into segment 0
    assert.equal(cart.peek(0x1000), 2);
  });

  test("FE: the bank follows address line A13 ($Dxxx reads the second 4K)", () => {
    const cart = createCartridge(banked(2), "FE");
    assert.equal(cart.peek(0xf100), 0);
    assert.equal(cart.peek(0xd100), 1);
  });

  test("type detection follows Stella: size, Superchip RAM area, and signatures", () => {
    assert.equal(detectCartridgeType(new Uint8Array(2048)), "2K");
    assert.equal(detectCartridgeType(banked(2)), "F8");
    assert.equal(detectCartridgeType(new Uint8Array(8192)), "F8SC", "uniform first 256 bytes of each bank");
    const e0 = banked(2);
    e0.set([0x8d, 0xe0, 0x1f], 100); // STA $1FE0
    assert.equal(detectCartridgeType(e0), "E0");
    assert.equal(detectCartridgeType(banked(4)), "F6");
  });
});

describe("the CPU's direct reads (mapped bank, RIOT RAM)", () => {
  /** A CPU on a cartridge (A12 set) and flat memory below it, with RIOT RAM mapped for direct access at $80-$FF. */
  function wired(image: Uint8Array, type: string, tia: (address: number, dataBus: number) => number = () => 0) {
    const low = new Uint8Array(0x1000);
    const clock = { cycles: 0 };
    const cart = createCartridge(image, type);
    const bus = {
      dataBus: 0,
      peek(address: number): number {
        const value =
          address & 0x1000 ? cart.peek(address) : address & 0x1280 ? low[address & 0xfff] : tia(address, this.dataBus);
        this.dataBus = value;
        return value;
      },
      poke(address: number, value: number): void {
        if (address & 0x1000) cart.poke(address, value);
        else low[address & 0xfff] = value;
        this.dataBus = value;
      },
    };
    const cpu = new M6502(bus, clock);
    const ram = new Uint8Array(128);
    cpu.mapRam(ram);
    cart.mapper = cpu;
    cart.reset();
    return { cpu, ram };
  }

  test("F8: the instruction after a hotspot read comes from the new bank", () => {
    const image = new Uint8Array(8192).fill(0xea);
    image.set([0xad, 0xf8, 0x1f], 0x1000); // bank 1 (the start bank), $1000: LDA $1FF8 (switch to bank 0)
    image.set([0xa9, 0x42], 0x0003); // bank 0, $1003: LDA #$42
    image.set([0xa9, 0x11], 0x1003); // bank 1, $1003: LDA #$11
    const { cpu } = wired(image, "F8");
    cpu.pc = 0x1000;
    cpu.execute(2);
    assert.equal(cpu.a, 0x42);
  });

  test("F8: instruction bytes fetched at hotspots switch the bank before they are read", () => {
    const image = new Uint8Array(8192).fill(0xea);
    image.set([0xad, 0x00, 0x10], 0x1ff1); // bank 1 (the start bank), $1FF1: LDA $1000 (ends just below the hotspots)
    image[0x0ff8] = 0xa2; // bank 0, $1FF8: LDX # (...and the opcode comes from bank 0)
    image[0x1ff9] = 0x33; // bank 1, $1FF9: its operand (fetching $1FF9 switches back to bank 1 first)
    image[0x0ff9] = 0x44;
    image[0x1000] = 0x77;
    const { cpu } = wired(image, "F8");
    cpu.pc = 0x1ff1;
    cpu.execute(1);
    assert.equal(cpu.a, 0x77);
    cpu.pc = 0x1ff8;
    cpu.execute(1);
    assert.deepEqual([cpu.x, cpu.pc], [0x33, 0x1ffa]);
  });

  test("E0: reads from a slot follow its slice switches", () => {
    const image = new Uint8Array(8192);
    for (let s = 0; s < 7; s++) image.fill(s, s * 1024, (s + 1) * 1024);
    // In the fixed slot (slice 7, $1C00): LDA $1000; LDX $1FE2 (slot 0 <- slice 2); LDY $1000
    image.set([0xad, 0x00, 0x10, 0xae, 0xe2, 0x1f, 0xac, 0x00, 0x10], 7 * 1024);
    const { cpu } = wired(image, "E0");
    cpu.pc = 0x1c00;
    cpu.execute(3);
    assert.deepEqual([cpu.a, cpu.y], [4, 2]);
  });

  test("FE: code and data at $Dxxx come from the second 4K, at $Fxxx from the first, whichever ran last", () => {
    const image = new Uint8Array(8192);
    image.fill(0xaa, 0x200, 0x300);
    image.fill(0xbb, 0x1200, 0x1300);
    image.set([0x20, 0x00, 0xd1, 0xad, 0x00, 0xd2], 0x000); // $F000: JSR $D100; LDA $D200
    image.set([0xae, 0x00, 0xf2, 0xac, 0x00, 0xd2, 0x60], 0x1100); // $D100: LDX $F200; LDY $D200; RTS
    const { cpu } = wired(image, "FE");
    cpu.pc = 0xf000;
    cpu.sp = 0xff;
    cpu.execute(5);
    assert.deepEqual([cpu.x, cpu.y, cpu.a, cpu.pc], [0xaa, 0xbb, 0xbb, 0xf006]);
  });

  test("a TIA read's undriven bits hold the byte read just before it, even from RAM read directly", () => {
    const image = new Uint8Array(4096).fill(0xea);
    image.set([0xa0, 0x00, 0xb1, 0x80], 0); // LDY #0; LDA ($80),Y
    // A TIA-like register: bit 7 driven, bits 0-5 the data bus.
    const { cpu, ram } = wired(image, "4K", (_, dataBus) => 0x80 | (dataBus & 0x3f));
    ram.set([0x02, 0x0c]); // the pointer at $80: $0C02 (a TIA mirror), its high byte read last
    cpu.pc = 0x1000;
    cpu.execute(2);
    assert.equal(cpu.a, 0x8c);
  });
});

describe("screen to RGB", () => {
  test("a console's RGB cache converts each screen as screenToRgb does, whichever rows changed", () => {
    const cache = new ScreenRgbCache(160 * 6);
    const screen = Uint8Array.from({ length: 160 * 6 }, (_, i) => (i * 13) & 0xfe);
    const other = new Uint8Array(screen.length); // the console alternates two frame buffers
    for (let frame = 0; frame < 4; frame++) {
      const shown = frame % 2 ? other : screen;
      if (frame === 1) other.set(screen);
      shown[(frame + 1) * 160 + 5 * frame] ^= 0x3e; // one pixel of one row changes each frame
      const cached = new Uint8Array(shown.length * 3).fill(0xcd);
      const direct = new Uint8Array(shown.length * 3);
      cache.convert(shown, cached);
      screenToRgb(shown, direct);
      assert.deepEqual(cached, direct, `frame ${frame}`);
    }
  });

  test("the word-at-a-time path and the byte path give every pixel its palette colour", () => {
    const screen = new Uint8Array(160 * 4);
    for (let i = 0; i < screen.length; i++) screen[i] = (i * 37) & 0xff;
    const aligned = new Uint8Array(screen.length * 3);
    const unaligned = new Uint8Array(screen.length * 3 + 1).subarray(1); // byteOffset 1 takes the byte path
    screenToRgb(screen, aligned);
    screenToRgb(screen, unaligned);
    for (let i = 0; i < screen.length; i++) {
      const rgb = SCREEN_BYTE_TO_RGB[screen[i]];
      const expected = [rgb >>> 16, (rgb >>> 8) & 0xff, rgb & 0xff];
      assert.deepEqual([...aligned.subarray(3 * i, 3 * i + 3)], expected, `pixel ${i}`);
      assert.deepEqual([...unaligned.subarray(3 * i, 3 * i + 3)], expected, `pixel ${i} (unaligned)`);
    }
  });

  test("rows equal to the row above (copied rather than converted) get their palette colours too", () => {
    // Rows 0-2 equal, 3 differs in one pixel, 4 equals 3, 5 differs, 6-7 equal 5; the output starts dirty.
    const row = Uint8Array.from({ length: 160 }, (_, i) => (i * 11) & 0xfe);
    const screen = new Uint8Array(160 * 8);
    for (let r = 0; r < 8; r++) screen.set(row, r * 160);
    screen[3 * 160 + 77] ^= 0x20;
    screen[4 * 160 + 77] ^= 0x20;
    for (let r = 5; r < 8; r++) screen.fill(0x44, r * 160, r * 160 + 40);
    const rgb = new Uint8Array(screen.length * 3).fill(0xab);
    screenToRgb(screen, rgb);
    for (let i = 0; i < screen.length; i++) {
      const c = SCREEN_BYTE_TO_RGB[screen[i]];
      assert.deepEqual([...rgb.subarray(3 * i, 3 * i + 3)], [c >>> 16, (c >>> 8) & 0xff, c & 0xff], `pixel ${i}`);
    }
  });
});

describe("console inputs", () => {
  /** A 2K cartridge that only needs a reset vector: these tests never run a frame. */
  const blankRom = () => {
    const rom = new Uint8Array(2048).fill(0xea);
    rom[0x7fc] = 0x00;
    rom[0x7fd] = 0xf0;
    return rom;
  };

  test("applyInputs drives four paddles: A/B on the left jack, C/D on the right, buttons on pins 4 and 3", () => {
    const core = new Atari2600(blankRom(), { leftController: "paddles", rightController: "paddles" });
    core.resetPaddles(4);
    const centre = Math.trunc((PADDLE_MIN + PADDLE_MAX) / 2);
    core.applyInputs([Action.RIGHT, Action.LEFTFIRE, Action.NOOP, Action.FIRE]);
    assert.deepEqual([...core.paddleResistance], [centre - PADDLE_DELTA, centre + PADDLE_DELTA, centre, centre]);
    // SWCHA: left jack pin 4/3 = bits 7/6, right jack bits 3/2; a pressed button reads 0 (B and D pressed).
    assert.equal(core.swcha, 0xff & ~0x40 & ~0x04);
  });

  test("two joysticks: player A on the left port (SWCHA high nibble), B on the right; fire on INPT4/INPT5", () => {
    const core = new Atari2600(blankRom());
    core.applyAction(Action.UPFIRE, Action.DOWNLEFT);
    assert.equal(core.swcha, 0xff & ~0x10 & ~0x02 & ~0x04);
    assert.deepEqual([...core.fireReleased], [0, 1]);
  });
});
