/** The real FFT against a plain DFT, and back. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RealFft } from '../electron/audio/fft';

/** A deterministic pseudo-random signal (no Math.random: a failure must reproduce). */
function signal(n: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  });
}

describe('real FFT', () => {
  for (const n of [4, 16, 512]) {
    it(`matches a plain DFT at size ${n} and inverts exactly`, () => {
      const fft = new RealFft(n);
      const x = signal(n, n);
      const re = new Float64Array(fft.bins);
      const im = new Float64Array(fft.bins);
      fft.forward(x, re, im);
      for (let k = 0; k < fft.bins; k++) {
        let r = 0;
        let i = 0;
        for (let t = 0; t < n; t++) {
          r += x[t]! * Math.cos((-2 * Math.PI * k * t) / n);
          i += x[t]! * Math.sin((-2 * Math.PI * k * t) / n);
        }
        assert.ok(Math.abs(r - re[k]!) < 1e-9 && Math.abs(i - im[k]!) < 1e-9, `bin ${k}: ${re[k]} ${im[k]} vs ${r} ${i}`);
      }
      const back = new Float64Array(n);
      fft.inverse(re, im, back);
      for (let t = 0; t < n; t++) assert.ok(Math.abs(back[t]! - x[t]!) < 1e-12, `sample ${t}`);
    });
  }

  it('refuses a size that is not a power of two', () => {
    assert.throws(() => new RealFft(500), /power of two/);
    assert.throws(() => new RealFft(2), /power of two/);
  });
});
