// Minimal protobuf encoding: what TensorBoard's event files (logging.ts) and wandb's offline run files
// (wandb_offline.ts) are written with.

// Wire types from the protobuf encoding spec.
export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;

export class ProtoWriter {
  private buf = Buffer.allocUnsafe(64);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.len + n));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }

  varint(v: number): this {
    this.reserve(10);
    if (v < 0) {
      // int64 fields encode negatives as 10-byte two's complement varints.
      let x = BigInt.asUintN(64, BigInt(v));
      while (x >= 0x80n) {
        this.buf[this.len++] = Number(x & 0x7fn) | 0x80;
        x >>= 7n;
      }
      this.buf[this.len++] = Number(x);
      return this;
    }
    // Arithmetic instead of bit ops: steps can exceed 2^31.
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
    return this;
  }

  key(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  double(field: number, v: number): this {
    this.key(field, FIXED64).reserve(8);
    this.len = this.buf.writeDoubleLE(v, this.len);
    return this;
  }

  float(field: number, v: number): this {
    this.key(field, FIXED32).reserve(4);
    this.len = this.buf.writeFloatLE(v, this.len);
    return this;
  }

  // proto3 leaves fields at their default (0) off the wire; Python's serializer does too,
  // so e.g. step 0 produces the same bytes as torch's writer.
  int64(field: number, v: number): this {
    return v === 0 ? this : this.key(field, VARINT).varint(v);
  }

  bytes(field: number, data: Uint8Array): this {
    this.key(field, LEN).varint(data.length).reserve(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, "utf8"));
  }

  message(field: number, sub: ProtoWriter): this {
    return this.bytes(field, sub.finish());
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}
