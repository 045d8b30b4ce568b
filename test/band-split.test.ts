import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BandSplit } from '../electron/audio/band-split';

const RATE = 16000;
const tone = (hz: number, n: number, from = 0) => Float64Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * hz * (from + i)) / RATE));
const energy = (x: ArrayLike<number>) => {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += x[i]! * x[i]!;
  return e;
};

describe('band split (the echo suppressor bands)', () => {
  it('gives bands that add back up to the input exactly, block after block', () => {
    const split = new BandSplit(RATE, [400, 1000, 2000, 4000]);
    const bands = Array.from({ length: split.bands }, () => new Float64Array(256));
    let seed = 7;
    for (let b = 0; b < 20; b++) {
      const x = Float64Array.from({ length: 256 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1);
      split.split(x, bands);
      for (let i = 0; i < 256; i++) {
        const sum = bands.reduce((a, band) => a + band[i]!, 0);
        assert.ok(Math.abs(sum - x[i]!) < 1e-12, `block ${b}, sample ${i}: ${sum} vs ${x[i]}`);
      }
    }
  });

  it('puts a tone mostly in its own band: a 200 Hz tone in the lowest, a 6 kHz tone in the highest', () => {
    for (const [hz, band] of [
      [200, 0],
      [6000, 4],
    ] as const) {
      const split = new BandSplit(RATE, [400, 1000, 2000, 4000]);
      const bands = Array.from({ length: split.bands }, () => new Float64Array(1024));
      split.split(tone(hz, 1024), bands); // settle
      split.split(tone(hz, 1024, 1024), bands);
      const shares = bands.map((b) => energy(b) / energy(tone(hz, 1024, 1024)));
      // The bands overlap near their edges (differences of low-passes), so a band may hold a little more than the tone.
      assert.ok(shares[band]! > 0.8, `${hz} Hz: ${shares[band]!.toFixed(2)} of its energy in band ${band}`);
      assert.equal(Math.max(...shares), shares[band], `${hz} Hz: shares ${shares.map((v) => v.toFixed(2)).join(' ')}`);
    }
  });
});
