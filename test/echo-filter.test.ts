/**
 * The adaptive echo filter's double-talk flag (echo-filter.ts), on a synthetic path: once the filter
 * cancels well, a block with far more error than it leaves counts as the user talking (the
 * background then learns slowly) only when the microphone holds more than the answer's echo could.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoFilter } from '../electron/pipeline/listen/echo-filter';

const B = 256;

/** Deterministic noise with a slowly wandering envelope (a stand-in for the answer and the user). */
function signal(n: number, seed: number): Float64Array {
  const x = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x[i] = 0.3 * (s / 2147483648 - 0.5) * (0.6 + 0.4 * Math.sin(i / 900 + seed));
  }
  return x;
}

const energy = (x: ArrayLike<number>) => Array.from(x).reduce((a, v) => a + v * v, 0);

/** A filter converged on mic = 0.5 × ref delayed 40 samples; returns it and the reference used. */
function converged() {
  const filter = new EchoFilter({ block: B, partitions: 8 });
  const ref = signal(B * 400, 1);
  const out = new Float64Array(B);
  const echoOf = (b: number) => Float64Array.from({ length: B }, (_, i) => (b * B + i >= 40 ? 0.5 * ref[b * B + i - 40]! : 0));
  for (let b = 0; b < 300; b++) filter.process(echoOf(b), ref.subarray(b * B, (b + 1) * B), out);
  return { filter, ref, out, echoOf };
}

describe('echo filter: what counts as the user talking over the answer', () => {
  it('a loud voice over the echo is the user talking, whatever the bound', () => {
    const { filter, ref, out, echoOf } = converged();
    assert.ok(filter.residualShare < 0.1, `converged: residual share ${filter.residualShare}`);
    const voice = signal(B, 7);
    const mic = echoOf(300).map((v, i) => v + 2 * voice[i]!);
    filter.process(mic, ref.subarray(300 * B, 301 * B), out, false, energy(echoOf(300)) * 2);
    assert.equal(filter.nearEnd, true);
  });

  it('error no louder than the echo could be is a sound the filter has not learnt, not the user', () => {
    const { filter, ref, out, echoOf } = converged();
    // The path grows a reflection the filter never saw: far more error than it leaves, but the
    // microphone stays under the most echo the answer could bring.
    const mic = echoOf(300).map((v, i) => v + 0.3 * ref[300 * B + i - 90]!);
    const bound = energy(mic) * 2;
    filter.process(mic, ref.subarray(300 * B, 301 * B), out, false, bound);
    assert.equal(filter.nearEnd, false);
    // With no bound known, the same block is taken for the user (as before any echo was measured).
    const again = converged();
    again.filter.process(mic, again.ref.subarray(300 * B, 301 * B), again.out);
    assert.equal(again.filter.nearEnd, true);
  });
});
