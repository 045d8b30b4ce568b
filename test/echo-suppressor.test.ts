import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoSuppressor, type FilterStage } from '../electron/pipeline/listen/echo-suppressor';

const BANDS = 5;
const N = 256;

/** One block through a fresh suppressor: every band holds the same tone, the filter cancelling nothing of it. */
function block(learnt: number, stage: FilterStage = 'settled'): number {
  const s = new EchoSuppressor(BANDS);
  const residual = Array.from({ length: BANDS }, (_, k) => Float64Array.from({ length: N }, (_, i) => 0.05 * Math.sin(0.1 * (k + 1) * i)));
  const pe = Float64Array.from(residual, (x) => x.reduce((a, v) => a + v * v, 0));
  // The echo estimate as loud as the residual, the coarse estimate nothing, and the most echo the
  // reference could bring well under the block (so it is not taken for a failing filter).
  const py = Float64Array.from(pe);
  const coarse = new Float64Array(BANDS);
  const bound = Float64Array.from(pe, (e) => (0.2 * e) / N);
  const out = new Float32Array(N);
  s.process(residual, pe, py, coarse, bound, learnt, stage, out, 0);
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

  it('holds down a block the background had learnt a third of before the filter settled (an answer sound it has not met)', () => {
    assert.ok(block(0.35, 'settling') < 1e-3, `passed ${block(0.35, 'settling')} of the block's power`);
    assert.ok(block(0.35, 'settled') > 0.3, `passed ${block(0.35, 'settled')} of the block's power once settled`);
    assert.ok(block(0.1, 'settling') > 0.3, `passed ${block(0.1, 'settling')} of the block's power (the user)`);
    // With no echo path found (headphones) the background can fit the user's voice by chance.
    assert.ok(block(0.35, 'no-echo') > 0.3, `passed ${block(0.35, 'no-echo')} of the block's power with no echo path`);
  });
});

/**
 * One block through a fresh suppressor: bands hold the answer's residual, as loud as estimated, and
 * band `user` a consonant of the user's, 13 dB over its residual estimate but under all the echo
 * the answer could bring there. Returns the share of the user's band's power that passed.
 */
function consonant(user: number, stage: FilterStage): number {
  const s = new EchoSuppressor(BANDS);
  const residual = Array.from({ length: BANDS }, (_, k) => Float64Array.from({ length: N }, (_, i) => (k === user ? 0.03 : 0.05) * Math.sin(0.1 * (k + 1) * i)));
  const pe = Float64Array.from(residual, (x) => x.reduce((a, v) => a + v * v, 0));
  // No echo estimate from the filter: the residual estimated from the reference alone (coarse).
  const py = new Float64Array(BANDS);
  const coarse = Float64Array.from(pe, (e, k) => (k === user ? e / 20 : e) / (4 * N));
  const bound = Float64Array.from(pe, (e) => (2 * e) / N);
  const out = new Float32Array(N);
  s.process(residual, pe, py, coarse, bound, 0, stage, out, 0);
  const x = residual[user]!;
  // The user's band is a tone the others do not hold: its share of the output is its projection.
  let dot = 0;
  for (let i = 0; i < N; i++) dot += out[i]! * x[i]!;
  return (dot / pe[user]!) ** 2;
}

describe('echo suppressor: a consonant under the echo bound', () => {
  it('passes in a fricative band (above 2 kHz) once the filter has settled', () => {
    assert.ok(consonant(4, 'settled') > 0.8, `passed ${consonant(4, 'settled')} of the "s"`);
  });

  it('is held down while the filter has not settled (an answer sound it has not learnt leaks there)', () => {
    assert.ok(consonant(4, 'settling') < 1e-3, `passed ${consonant(4, 'settling')}`);
  });

  it('is held down below 2 kHz, settled or not (the answer\'s vowels live there)', () => {
    assert.ok(consonant(0, 'settled') < 1e-3, `passed ${consonant(0, 'settled')}`);
  });
});
