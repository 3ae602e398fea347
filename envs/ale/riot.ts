// The 6532 RIOT (RAM, I/O, timer) as Stella 3.x's M6532 emulates it for ALE (src/ale/emucore/M6532.cxx).
//
// The timer is computed from the cycle it was last written, not counted down: reading INTIM `delta` cycles later
// gives `timer - (delta >> shift) - 1` while that is >= 0; after it expires the value keeps falling one per cycle,
// and Stella restarts the count from the first read after the expiry (its "interrupt reset"). The arithmetic is
// Stella's unsigned 32-bit one, with the cycle counter reset at every frame start (`systemCyclesReset`).

/** What the RIOT reads from the console: the two I/O ports as the controllers and switches drive them. */
export interface RiotPorts {
  /** SWCHA as read: left jack in bits 4-7, right jack in bits 0-3, a pressed direction reads 0. */
  swcha: number;
  /** SWCHB as read: the console switches. */
  swchb: number;
}

/** TIM1T, TIM8T, TIM64T, T1024T: the timer interval as a shift of the CPU cycle count. */
const TIMER_SHIFTS = Int32Array.of(0, 3, 6, 10);

export class Riot {
  /** The 128 bytes of RAM at $80-$FF. */
  readonly ram = new Uint8Array(128);
  private timer = 0;
  private intervalShift = 6;
  private cyclesWhenTimerSet = 0;
  private cyclesWhenInterruptReset = 0;
  private timerReadAfterInterrupt = false;
  private ddra = 0;
  private ddrb = 0;

  constructor(
    private readonly clock: { cycles: number },
    private readonly ports: RiotPorts,
  ) {}

  /** M6532::reset with the timer start value `25 + draw % 75` (Stella draws it from the System's generator). */
  reset(draw: number): void {
    this.timer = 25 + (draw % 75);
    this.intervalShift = 6;
    this.cyclesWhenTimerSet = 0;
    this.cyclesWhenInterruptReset = 0;
    this.timerReadAfterInterrupt = false;
    this.ddra = 0;
    this.ddrb = 0;
  }

  /** The system clock went back to 0 from `cycles` (a new frame). */
  systemCyclesReset(cycles: number): void {
    this.cyclesWhenTimerSet = (this.cyclesWhenTimerSet - cycles) | 0;
    this.cyclesWhenInterruptReset = (this.cyclesWhenInterruptReset - cycles) | 0;
  }

  /** A read of the I/O and timer page (address bit 9 set); RAM reads are handled by the bus. */
  peek(address: number): number {
    switch (address & 0x07) {
      case 0x00:
        return this.ports.swcha;
      case 0x01:
        return this.ddra;
      case 0x02:
        return this.ports.swchb;
      case 0x03:
        return this.ddrb;
      case 0x04:
      case 0x06: {
        const cycles = this.clock.cycles;
        const running = this.runningTimer(cycles);
        if (running >= 0) return running;
        const delta = (cycles - 1 - this.cyclesWhenTimerSet) >>> 0;
        let timer = ((this.timer << this.intervalShift) - (delta | 0) - 1) | 0;
        if (timer <= -2 && !this.timerReadAfterInterrupt) {
          this.timerReadAfterInterrupt = true;
          this.cyclesWhenInterruptReset = cycles;
        }
        if (this.timerReadAfterInterrupt) {
          const offset =
            (this.cyclesWhenInterruptReset - (this.cyclesWhenTimerSet + (this.timer << this.intervalShift))) | 0;
          timer = this.timer - (delta >>> this.intervalShift) - offset;
        }
        return timer & 0xff;
      }
      default:
        return this.interruptFlag(this.clock.cycles);
    }
  }

  /**
   * What a timer read (INTIM or TIMINT, `address` & 7 = 4..7) at `cycles` would return, or -1 where that read has
   * side effects (INTIM after the timer expired restarts Stella's count). The CPU uses it to run a loop that polls the
   * timer without emulating each pass (see M6502's `waitForTimer`).
   */
  peekTimerQuietly(address: number, cycles: number): number {
    return address & 0x01 ? this.interruptFlag(cycles) : this.runningTimer(cycles);
  }

  /** INTIM read at `cycles` while the timer runs (its value, 0..255), or -1 once it has expired. */
  private runningTimer(cycles: number): number {
    const delta = (cycles - 1 - this.cyclesWhenTimerSet) >>> 0;
    const timer = this.timer - (delta >>> this.intervalShift) - 1;
    return timer >= 0 ? timer & 0xff : -1;
  }

  /** TIMINT read at `cycles`: bit 7 once the timer expired, until the first INTIM read after it. */
  private interruptFlag(cycles: number): number {
    return this.runningTimer(cycles) >= 0 || this.timerReadAfterInterrupt ? 0 : 0x80;
  }

  poke(address: number, value: number): void {
    const port = address & 0x07;
    if (port === 0x01) {
      this.ddra = value;
    } else if (port === 0x00 || port === 0x02 || port === 0x03) {
      // Joystick/paddle outputs and the switches: nothing the games read back depends on them.
    } else if ((address & 0x14) === 0x14) {
      // TIM1T, TIM8T, TIM64T, T1024T
      this.timer = value;
      this.intervalShift = TIMER_SHIFTS[address & 0x03];
      this.cyclesWhenTimerSet = this.clock.cycles;
      this.timerReadAfterInterrupt = false;
    }
  }
}
