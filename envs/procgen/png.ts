// A PNG decoder for procgen's images: zlib (node's native inflate) plus the five scanline filters, to straight RGBA
// bytes with raw sample values (no gamma or colour-profile conversion, as Qt loads them). It reads what the 329 game
// images use (8-bit RGB and RGBA, 1/2/4/8-bit palette with or without tRNS) and 8-bit grey with or without alpha;
// 16-bit samples and interlaced files are refused. A JS decoder (pngjs) spent about 30 s on these images; the
// unfiltering here is a tight loop over typed arrays and inflate runs in native code.

import { inflateSync } from "node:zlib";

import type { ProcgenImage } from "./render.ts";

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/** Decodes a PNG file's bytes; `name` only labels errors. */
export function decodePng(buf: Uint8Array, name = "PNG"): ProcgenImage {
  const fail = (why: string): never => {
    throw new Error(`${name}: ${why}`);
  };
  if (buf.length < 8 || SIGNATURE.some((b, i) => buf[i] !== b)) fail("not a PNG file");
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let width = 0;
  let height = 0;
  let depth = 0;
  let colorType = -1;
  let palette: Uint8Array | null = null;
  let trns: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  for (let o = 8; o + 8 <= buf.length; ) {
    const len = dv.getUint32(o);
    const type = String.fromCharCode(buf[o + 4], buf[o + 5], buf[o + 6], buf[o + 7]);
    const data = buf.subarray(o + 8, o + 8 + len);
    if (type === "IHDR") {
      width = dv.getUint32(o + 8);
      height = dv.getUint32(o + 12);
      depth = buf[o + 16];
      colorType = buf[o + 17];
      if (buf[o + 20] !== 0) fail("interlaced PNGs are not supported");
    } else if (type === "PLTE") palette = data;
    else if (type === "tRNS") trns = data;
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    o += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType];
  if (channels === undefined) fail(`colour type ${colorType} is not supported`);
  if (depth !== 8 && !(colorType === 3 && (depth === 1 || depth === 2 || depth === 4))) fail(`${depth}-bit samples are not supported`);
  if (colorType === 3 && palette === null) fail("palette image without PLTE");
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = Math.max(1, (channels! * depth) >> 3);
  const stride = (width * channels! * depth + 7) >> 3;
  if (raw.length < (stride + 1) * height) fail("image data too short");
  const lines = new Uint8Array(stride * height);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = lines.subarray(y * stride, (y + 1) * stride);
    // The first pixel of a row has no left neighbour (a = c = 0); the loops after it need no test.
    const n0 = Math.min(bpp, stride);
    switch (filter) {
      case 0:
        cur.set(src);
        break;
      case 1:
        for (let i = 0; i < n0; i++) cur[i] = src[i];
        for (let i = bpp; i < stride; i++) cur[i] = src[i] + cur[i - bpp];
        break;
      case 2:
        for (let i = 0; i < stride; i++) cur[i] = src[i] + prev[i];
        break;
      case 3:
        for (let i = 0; i < n0; i++) cur[i] = src[i] + (prev[i] >> 1);
        for (let i = bpp; i < stride; i++) cur[i] = src[i] + ((cur[i - bpp] + prev[i]) >> 1);
        break;
      case 4:
        for (let i = 0; i < n0; i++) cur[i] = src[i] + prev[i];
        for (let i = bpp; i < stride; i++) {
          const a = cur[i - bpp];
          const b = prev[i];
          const c = prev[i - bpp];
          const pa = b > c ? b - c : c - b;
          const pb = a > c ? a - c : c - a;
          const pc = a + b > 2 * c ? a + b - 2 * c : 2 * c - a - b;
          cur[i] = src[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
        }
        break;
      default:
        fail(`bad scanline filter ${filter}`);
    }
    prev = cur;
  }
  const rgba = new Uint8Array(width * height * 4);
  if (colorType === 6) {
    rgba.set(lines);
  } else if (colorType === 2) {
    for (let i = 0, o = 0; i < lines.length; i += 3, o += 4) {
      rgba[o] = lines[i];
      rgba[o + 1] = lines[i + 1];
      rgba[o + 2] = lines[i + 2];
      rgba[o + 3] = 255;
    }
  } else if (colorType === 0 || colorType === 4) {
    for (let i = 0, o = 0; o < rgba.length; i += channels!, o += 4) {
      rgba[o] = rgba[o + 1] = rgba[o + 2] = lines[i];
      rgba[o + 3] = colorType === 4 ? lines[i + 1] : 255;
    }
  } else {
    const pal = palette!;
    const perByte = 8 / depth;
    const mask = (1 << depth) - 1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const idx = depth === 8 ? lines[y * stride + x] : (lines[y * stride + ((x / perByte) | 0)] >> ((perByte - 1 - (x % perByte)) * depth)) & mask;
        const o = (y * width + x) * 4;
        // An index past the palette stays transparent black (none of procgen's images has one).
        if (idx * 3 + 2 < pal.length) {
          rgba[o] = pal[idx * 3];
          rgba[o + 1] = pal[idx * 3 + 1];
          rgba[o + 2] = pal[idx * 3 + 2];
          rgba[o + 3] = trns !== null && idx < trns.length ? trns[idx] : 255;
        }
      }
    }
  }
  return { width, height, rgba };
}
