/**
 * A seeded generator for the stand-ins' parameters (xoshiro128**): the same seed writes the same
 * bytes on every machine, and every tensor is drawn fresh, so no two layers are identical.
 */
export class SeededRandom {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    // splitmix32 spreads the seed over the four words.
    let x = seed >>> 0;
    const next = () => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next() || 1;
  }

  /** The next 32 random bits. */
  u32(): number {
    const result = Math.imul(((Math.imul(this.s1, 5) << 7) | (Math.imul(this.s1, 5) >>> 25)) >>> 0, 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return result;
  }

  /** Uniform in [0, 1). */
  uniform(): number {
    return this.u32() / 4294967296;
  }

  /** n values from N(0, std²) (Box-Muller, two a draw). */
  normal(n: number, std = 1): Float32Array {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i += 2) {
      const u = (this.u32() + 1) / 4294967297;
      const v = this.uniform();
      const r = std * Math.sqrt(-2 * Math.log(u));
      out[i] = r * Math.cos(2 * Math.PI * v);
      if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
    }
    return out;
  }

  /** n random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    const words = Math.floor(n / 4);
    const view = new DataView(out.buffer);
    for (let i = 0; i < words; i++) view.setUint32(i * 4, this.u32(), true);
    for (let i = words * 4; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** n int8 values, uniform over [-127, 127] (what a symmetric int8 quantizer's range looks like). */
  int8(n: number): Int8Array {
    const out = new Int8Array(n);
    for (let i = 0; i < n; i++) out[i] = (this.u32() % 255) - 127;
    return out;
  }
}
