import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoSuppressor } from '../electron/pipeline/listen/echo-suppressor';

const BANDS = 5;
const N = 256;

/** One block through a fresh suppressor: every band holds the same tone, the filter cancelling nothing of it. */
function block(learnt: number): number {
  const s = new EchoSuppressor(BANDS);
  const residual = Array.from({ length: BANDS }, (_, k) => Float64Array.from({ length: N }, (_, i) => 0.05 * Math.sin(0.1 * (k + 1) * i)));
  const pe = Float64Array.from(residual, (x) => x.reduce((a, v) => a + v * v, 0));
  // The echo estimate as loud as the residual, the coarse estimate nothing, and the most echo the
  // reference could bring well under the block (so it is not taken for a failing filter).
  const py = Float64Array.from(pe);
  const coarse = new Float64Array(BANDS);
  const bound = Float64Array.from(pe, (e) => (0.2 * e) / N);
  const out = new Float32Array(N);
  s.process(residual, pe, py, coarse, bound, learnt, out, 0);
  return out.reduce((a, v) => a + v * v, 0) / pe.reduce((a, v) => a + v, 0);
}

describe('echo suppressor', () => {
  it('holds down a block the background filter had mostly learnt to cancel (a sound the answer just began to make)', () => {
    assert.ok(block(0.6) < 1e-3, `passed ${block(0.6)} of the block's power`);
  });

  it('passes the same block when the background filter cancels no better (the user talking)', () => {
    assert.ok(block(0) > 0.3, `passed ${block(0)} of the block's power`);
    assert.ok(block(0.3) > 0.3, `passed ${block(0.3)} of the block's power`);
  });
});
