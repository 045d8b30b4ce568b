/** The echo's coarse delay search by FFT gives what one dot product per lag gives (pure, no engine). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DelaySearch } from '../electron/pipeline/listen/echo-delay-search';

/** The direct computation: NCC of `mic` with `ref[offset - d ..]` at every lag. */
function direct(mic: Float64Array, ref: Float64Array, offset: number, maxLag: number, silent: number) {
  let me = 0;
  for (const m of mic) me += m * m;
  let lag = -1;
  let best = 0;
  for (let d = 0; d <= maxLag; d++) {
    let mr = 0;
    let rr = 0;
    for (let i = 0; i < mic.length; i++) {
      const r = ref[offset + i - d]!;
      mr += mic[i]! * r;
      rr += r * r;
    }
    if (rr <= silent) continue;
    const ncc = mr / Math.sqrt(rr * me);
    if (ncc > best) {
      best = ncc;
      lag = d;
    }
  }
  return { lag, ncc: best, me };
}

/** A deterministic noise-like signal. */
function noise(n: number, seed: number): Float64Array {
  const x = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x[i] = s / 2147483648 - 0.5;
  }
  return x;
}

describe('echo delay search (pure)', () => {
  it('finds the lag of a delayed, quieter copy with a room-like smear, as the direct search does', () => {
    const maxLag = 250;
    const n = 512;
    const search = new DelaySearch(n, maxLag);
    for (const delay of [0, 1, 37, 180, 250]) {
      const ref = noise(n + maxLag + 64, delay + 7);
      const offset = ref.length - n;
      const mic = new Float64Array(n);
      const other = noise(n, 99);
      for (let i = 0; i < n; i++) mic[i] = 0.4 * ref[offset + i - delay]! + 0.2 * (ref[offset + i - delay - 3] ?? 0) + 0.1 * other[i]!;
      const want = direct(mic, ref, offset, maxLag, 1e-7 * n);
      const got = search.best(mic, want.me, ref, offset, maxLag, 1e-7 * n);
      assert.equal(want.lag, delay);
      assert.equal(got.lag, want.lag);
      assert.ok(Math.abs(got.ncc - want.ncc) < 1e-9, `${got.ncc} against ${want.ncc}`);
    }
  });

  it('skips lags whose reference is silent, and finds nothing in a microphone unrelated to it', () => {
    const maxLag = 100;
    const n = 256;
    const search = new DelaySearch(n, maxLag);
    const ref = new Float64Array(n + maxLag);
    const mic = noise(n, 3);
    let me = 0;
    for (const m of mic) me += m * m;
    assert.deepEqual(search.best(mic, me, ref, maxLag, maxLag, 1e-7 * n), { lag: -1, ncc: 0 });
    const unrelated = noise(n + maxLag, 5);
    const want = direct(mic, unrelated, maxLag, maxLag, 1e-7 * n);
    const got = search.best(mic, me, unrelated, maxLag, maxLag, 1e-7 * n);
    assert.equal(got.lag, want.lag);
    assert.ok(got.ncc < 0.3, `chance match ${got.ncc}`);
    assert.throws(() => search.best(mic, me, unrelated, maxLag - 1, maxLag, 0), RangeError);
  });
});
