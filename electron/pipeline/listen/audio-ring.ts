/** A ring of the most recent input samples, addressed by absolute sample index. */
export class AudioRing {
  private readonly buf: Float32Array;
  private written = 0;
  constructor(size: number) {
    this.buf = new Float32Array(size);
  }
  push(x: Float32Array): void {
    for (let i = 0; i < x.length; i++) this.buf[(this.written + i) % this.buf.length] = x[i]!;
    this.written += x.length;
  }
  /** Samples [from, written), clamped to what is still held. */
  since(from: number): Float32Array {
    const start = Math.max(from, this.written - this.buf.length, 0);
    const out = new Float32Array(this.written - start);
    for (let i = 0; i < out.length; i++) out[i] = this.buf[(start + i) % this.buf.length]!;
    return out;
  }
}
