// Cartridges and their bank-switching schemes, as Stella 3.x implements them for ALE (src/ale/emucore/Cart*.cxx),
// with Stella's type auto-detection (Cartridge::autodetectType). Addresses are the CPU's full 16-bit ones; the
// console only calls a cartridge for addresses with A12 set (and, for 3F, for writes to $00-$3F).
//
// Supported: 2K, 4K, F8 (and "F8 swapped"), F6, F4, F8SC, F6SC, F4SC, FASC (12K with 256 bytes of RAM), E0, FE, 3F.
// Hotspots switch on reads and writes alike and before the read, so the byte read comes from the new bank.

export interface Cartridge {
  readonly type: string;
  /** Extra RAM on the cartridge (SC/FASC), or null. */
  readonly ram: Uint8Array | null;
  /** 3F carts also watch writes to TIA addresses $00-$3F. */
  readonly watchesTiaWrites: boolean;
  /**
   * Where reads of the cartridge have no side effects, the CPU reads them straight from the current bank (see
   * M6502.mapRom): the cartridge calls `mapRom` at reset and whenever the array it mapped stops being what the CPU
   * would read (E0 rewrites its mapped copy in place instead). Null (the default): never.
   */
  mapper: RomMapper | null;
  reset(): void;
  peek(address: number): number;
  poke(address: number, value: number): void;
}

/** What a cartridge tells the CPU about its current bank (M6502.mapRom). */
export interface RomMapper {
  mapRom(rom: Uint8Array | null, from?: number, to?: number, a13?: boolean | null): void;
}

/** 2K and 4K: no bank switching (a 2K image is mirrored). */
class PlainCartridge implements Cartridge {
  readonly ram = null;
  readonly watchesTiaWrites = false;
  mapper: RomMapper | null = null;
  private readonly mask: number;
  private readonly rom: Uint8Array;
  constructor(
    readonly type: string,
    private readonly image: Uint8Array,
  ) {
    this.mask = image.length - 1;
    this.rom = Uint8Array.from({ length: 4096 }, (_, a) => image[a & this.mask]);
  }
  reset(): void {
    this.mapper?.mapRom(this.rom);
  }
  peek(address: number): number {
    return this.image[address & this.mask];
  }
  poke(): void {}
}

/**
 * Atari's schemes: `banks` 4K banks, selected by touching $xFF8-n.. (F8: $FF8-$FF9, F6: $FF6-$FF9, F4: $FF4-$FFB,
 * FA: $FF8-$FFA); with `ramSize` bytes of RAM whose write port is the first `ramSize` bytes and read port the next.
 */
class HotspotCartridge implements Cartridge {
  readonly ram: Uint8Array | null;
  readonly watchesTiaWrites = false;
  mapper: RomMapper | null = null;
  private bankOffset = 0;
  private readonly bankCount: number;
  /** Each 4K bank as a view of the image. */
  private readonly banks: Uint8Array[];
  /** Reads have no side effects from here (past the RAM ports) up to the first hotspot. */
  private readonly plainFrom: number;
  constructor(
    readonly type: string,
    private readonly image: Uint8Array,
    private readonly firstHotspot: number,
    private readonly resetBank: number,
    ramSize: number,
  ) {
    this.bankCount = image.length >> 12;
    this.ram = ramSize > 0 ? new Uint8Array(ramSize) : null;
    this.banks = Array.from({ length: this.bankCount }, (_, bank) => image.subarray(bank << 12, (bank + 1) << 12));
    this.plainFrom = 2 * ramSize;
  }
  reset(): void {
    this.select(this.resetBank);
  }
  private select(bank: number): void {
    this.bankOffset = bank << 12;
    this.mapper?.mapRom(this.banks[bank], this.plainFrom, 0xff4);
  }
  private hotspot(offset: number): void {
    const bank = offset - this.firstHotspot;
    if (bank >= 0 && bank < this.bankCount) this.select(bank);
  }
  peek(address: number): number {
    const offset = address & 0x0fff;
    const ram = this.ram;
    if (ram !== null && offset < ram.length * 2) {
      // Reading the read port gives the RAM; reading the write port gives the ROM byte under it (Stella 3.x).
      if (offset >= ram.length) return ram[offset - ram.length];
      return this.image[this.bankOffset + offset];
    }
    if (offset >= 0xff4) this.hotspot(offset);
    return this.image[this.bankOffset + offset];
  }
  poke(address: number, value: number): void {
    const offset = address & 0x0fff;
    const ram = this.ram;
    if (ram !== null && offset < ram.length) {
      ram[offset] = value;
      return;
    }
    if (offset >= 0xff4) this.hotspot(offset);
  }
}

/**
 * Parker Brothers' E0: four 1K slices, the first three selected by $FE0-$FF7, the last fixed to slice 7. The CPU
 * sees them as one 4K window below the hotspots, kept as a copy that each switch updates in place.
 */
class E0Cartridge implements Cartridge {
  readonly type = "E0";
  readonly ram = null;
  readonly watchesTiaWrites = false;
  mapper: RomMapper | null = null;
  /** The image offset of the slice in each of the four 1K slots (-1: none yet). */
  private readonly slices = new Int32Array(4).fill(-1);
  /** The 4K as read: slot k holds slice `slices[k]`. */
  private readonly window = new Uint8Array(4096);
  constructor(private readonly image: Uint8Array) {}
  reset(): void {
    for (let slot = 0; slot < 4; slot++) this.select(slot, 4 + slot);
    this.mapper?.mapRom(this.window, 0, 0xfe0);
  }
  private select(slot: number, slice: number): void {
    const from = slice << 10;
    if (this.slices[slot] === from) return;
    this.slices[slot] = from;
    this.window.set(this.image.subarray(from, from + 1024), slot << 10);
  }
  private hotspot(offset: number): void {
    if (offset >= 0xfe0 && offset < 0xff8) this.select((offset - 0xfe0) >> 3, offset & 7);
  }
  peek(address: number): number {
    const offset = address & 0x0fff;
    this.hotspot(offset);
    return this.window[offset];
  }
  poke(address: number): void {
    this.hotspot(address & 0x0fff);
  }
}

/**
 * Activision's FE: the bank follows address line A13 of the CPU (code at $Dxxx runs from the second 4K). The CPU
 * reads directly from the bank of the half it last reached through the bus (each stays valid for its half).
 */
class FECartridge implements Cartridge {
  readonly type = "FE";
  readonly ram = null;
  readonly watchesTiaWrites = false;
  mapper: RomMapper | null = null;
  /** The bank mapped for the CPU: 0 (A13 set), 1 (A13 clear), -1 none. */
  private mapped = -1;
  constructor(private readonly image: Uint8Array) {}
  reset(): void {
    this.mapped = -1;
  }
  peek(address: number): number {
    const bank = address & 0x2000 ? 0 : 1;
    if (bank !== this.mapped && this.mapper !== null) {
      this.mapped = bank;
      this.mapper.mapRom(this.image.subarray(bank << 12, (bank + 1) << 12), 0, 0x1000, bank === 0);
    }
    return this.image[(address & 0x0fff) + (bank << 12)];
  }
  poke(): void {}
}

/** Tigervision's 3F: a write to $00-$3F selects the 2K bank at $1000-$17FF; $1800-$1FFF is the last 2K. */
class ThreeFCartridge implements Cartridge {
  readonly type = "3F";
  readonly ram = null;
  readonly watchesTiaWrites = true;
  mapper: RomMapper | null = null;
  private bankOffset = 0;
  private readonly lastBank: number;
  constructor(private readonly image: Uint8Array) {
    this.lastBank = image.length - 2048;
  }
  reset(): void {
    this.bankOffset = 0;
  }
  peek(address: number): number {
    if (address & 0x0800) return this.image[this.lastBank + (address & 0x07ff)];
    return this.image[this.bankOffset + (address & 0x07ff)];
  }
  poke(address: number, value: number): void {
    if ((address & 0x0fff) <= 0x3f) this.bankOffset = (value % (this.image.length >> 11)) << 11;
  }
}

/** The two 8K images Stella starts from bank 0 instead of 1 (its "F8 swapped" list). */
const F8_SWAPPED_MD5 = new Set(["bc24440b59092559a1ec26055fd1270e", "75ee371ccfc4f43e7d9b8f24e1266b55"]);

export function createCartridge(image: Uint8Array, type: string, md5 = ""): Cartridge {
  if (type === "F8" && F8_SWAPPED_MD5.has(md5)) type = "F8 swapped";
  switch (type) {
    case "2K":
    case "4K":
      if (image.length !== (type === "2K" ? 2048 : 4096) && !(type === "2K" && image.length === 4096)) break;
      return new PlainCartridge(type, type === "2K" ? image.subarray(0, 2048) : image);
    case "F8":
    case "F8 swapped":
      return new HotspotCartridge(type, image, 0xff8, type === "F8" ? 1 : 0, 0);
    case "F8SC":
      return new HotspotCartridge(type, image, 0xff8, 1, 128);
    case "F6":
      return new HotspotCartridge(type, image, 0xff6, 0, 0);
    case "F6SC":
      return new HotspotCartridge(type, image, 0xff6, 0, 128);
    case "F4":
      return new HotspotCartridge(type, image, 0xff4, 0, 0);
    case "F4SC":
      return new HotspotCartridge(type, image, 0xff4, 0, 128);
    case "FASC":
      return new HotspotCartridge(type, image, 0xff8, 2, 256);
    case "E0":
      return new E0Cartridge(image);
    case "FE":
      return new FECartridge(image);
    case "3F":
      return new ThreeFCartridge(image);
  }
  throw new Error(`unsupported cartridge type ${type} (${image.length} bytes)`);
}

/** Counts `signature` in `image` as Stella's Cartridge::searchForBytes does (hits do not overlap). */
function searchForBytes(image: Uint8Array, signature: readonly number[], minHits: number): boolean {
  if (signature.length > image.length) return false;
  let count = 0;
  for (let i = 0; i < image.length - signature.length; i++) {
    let j = 0;
    while (j < signature.length && image[i + j] === signature[j]) j++;
    if (j === signature.length) {
      count++;
      i += signature.length;
    }
    if (count >= minHits) break;
  }
  return count >= minHits;
}

function isProbablySC(image: Uint8Array): boolean {
  for (let bank = 0; bank < image.length >> 12; bank++) {
    const first = image[bank * 4096];
    for (let j = 0; j < 256; j++) if (image[bank * 4096 + j] !== first) return false;
  }
  return true;
}

const isProbably3F = (image: Uint8Array) => searchForBytes(image, [0x85, 0x3f], 2);
const isProbably3E = (image: Uint8Array) => searchForBytes(image, [0x85, 0x3e, 0xa9, 0x00], 1);
const isProbablyE0 = (image: Uint8Array) =>
  [
    [0x8d, 0xe0, 0x1f],
    [0x8d, 0xe0, 0x5f],
    [0x8d, 0xe9, 0xff],
    [0xad, 0xe9, 0xff],
    [0xad, 0xed, 0xff],
    [0xad, 0xf3, 0xbf],
  ].some((s) => searchForBytes(image, s, 1));
const isProbablyUA = (image: Uint8Array) => searchForBytes(image, [0x8d, 0x40, 0x02], 1);
const isProbablyCV = (image: Uint8Array) =>
  searchForBytes(image, [0x9d, 0xff, 0xf3], 1) || searchForBytes(image, [0x99, 0x00, 0xf4], 1);
const isProbablyFE = (image: Uint8Array) =>
  [
    [0x20, 0x00, 0xd0, 0xc6, 0xc5],
    [0x20, 0xc3, 0xf8, 0xa5, 0x82],
    [0xd0, 0xfb, 0x20, 0x73, 0xfe],
    [0x20, 0x00, 0xf0, 0x84, 0xd6],
  ].some((s) => searchForBytes(image, s, 1));
function isProbablyE7(image: Uint8Array): boolean {
  const first = image[0x3800];
  for (let i = 0x3800; i < 0x3a00; i++) if (image[i] !== first) return false;
  let differ = 0;
  for (let i = 0x3800 - 32; i < 0x3800; i++) if (image[i] !== first) differ++;
  for (let i = 0x3a00; i < 0x3a00 + 32; i++) if (image[i] !== first) differ++;
  return differ > 0;
}

/** Stella 3.x's Cartridge::autodetectType (types we cannot run are still named, and rejected by createCartridge). */
export function detectCartridgeType(image: Uint8Array): string {
  const size = image.length;
  const halvesEqual = (half: number) => image.subarray(0, half).every((b, i) => b === image[half + i]);
  if (size !== 0 && size % 8448 === 0) return "AR";
  if (size === 2048 || (size === 4096 && halvesEqual(2048))) return isProbablyCV(image) ? "CV" : "2K";
  if (size === 4096) return isProbablyCV(image) ? "CV" : "4K";
  if (size === 8192) {
    if (isProbablySC(image)) return "F8SC";
    if (halvesEqual(4096)) return "4K";
    if (isProbablyE0(image)) return "E0";
    if (isProbably3E(image)) return "3E";
    if (isProbably3F(image)) return "3F";
    if (isProbablyUA(image)) return "UA";
    if (isProbablyFE(image)) return "FE";
    return "F8";
  }
  if (size === 10495 || size === 10496 || size === 10240) return "DPC";
  if (size === 12288) return "FASC";
  if (size === 16384) {
    if (isProbablySC(image)) return "F6SC";
    if (isProbablyE7(image)) return "E7";
    if (isProbably3E(image)) return "3E";
    if (isProbably3F(image)) return "3F";
    return "F6";
  }
  if (size === 32768) {
    if (isProbablySC(image)) return "F4SC";
    if (isProbably3E(image)) return "3E";
    if (isProbably3F(image)) return "3F";
    return "F4";
  }
  if (isProbably3E(image)) return "3E";
  if (isProbably3F(image)) return "3F";
  return size === 65536 ? "MB" : size === 131072 ? "MC" : `unknown (${size} bytes)`;
}
