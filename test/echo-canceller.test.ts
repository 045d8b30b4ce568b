import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoCanceller } from '../electron/pipeline/listen/echo-canceller';

const RATE = 16000;
const N = 512;

/** A voice-like test signal: a buzzy harmonic tone whose pitch and loudness wander (deterministic). */
function voice(seconds: number, f0: number, seed: number): Float32Array {
  const x = new Float32Array(Math.round(seconds * RATE));
  let phase = 0;
  for (let i = 0; i < x.length; i++) {
    const t = i / RATE;
    const f = f0 * (1 + 0.1 * Math.sin(2 * Math.PI * (0.7 + seed) * t));
    phase += (2 * Math.PI * f) / RATE;
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(h * phase + seed * h) / h;
    x[i] = 0.2 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t + seed));
  }
  return x;
}

const db = (x: Float32Array) => 10 * Math.log10(x.reduce((a, v) => a + v * v, 0) / x.length + 1e-12);

/** Runs the canceller over mic = gain * ref delayed + user; returns the output windows. */
function run(ref: Float32Array, user: Float32Array | null, gain: number, delayMs: number) {
  const ec = new EchoCanceller({ sampleRate: RATE, maxDelayMs: 250, analysisMs: 512 });
  const delay = Math.round((delayMs / 1000) * RATE);
  const out: Float32Array[] = [];
  const mics: Float32Array[] = [];
  for (let k = 0; (k + 1) * N <= ref.length; k++) {
    const mic = new Float32Array(N);
    for (let i = 0; i < N; i++) {
      const j = k * N + i;
      mic[i] = (j >= delay ? gain * ref[j - delay]! : 0) + (user?.[j] ?? 0);
    }
    mics.push(mic);
    out.push(ec.process(mic, ref.subarray(k * N, (k + 1) * N)));
  }
  return { ec, out, mics };
}

describe('echo canceller (the assistant voice removed from the microphone)', () => {
  it('finds the delay and gain and removes the echo within a few windows', () => {
    const ref = voice(2, 140, 1);
    const { ec, out, mics } = run(ref, null, 0.5, 30);
    assert.equal(ec.path?.delaySamples, 480);
    assert.ok(Math.abs(ec.path!.gain - 0.5) < 0.01, `gain ${ec.path!.gain}`);
    for (let k = 4; k < out.length; k++) {
      assert.ok(db(out[k]!) < db(mics[k]!) - 40, `window ${k}: ${db(out[k]!).toFixed(1)} dB left of ${db(mics[k]!).toFixed(1)} dB`);
    }
  });

  it('keeps the user talking over the echo (double talk) intact', () => {
    const ref = voice(3, 140, 1);
    const user = voice(3, 210, 2);
    user.fill(0, 0, RATE); // the user starts after 1 s, once the path is learnt
    const { out } = run(ref, user, 0.5, 30);
    for (let k = Math.ceil(RATE / N) + 1; k < out.length; k++) {
      const u = user.subarray(k * N, (k + 1) * N);
      const err = out[k]!.map((v, i) => v - u[i]!);
      assert.ok(db(err) < db(u) - 30, `window ${k}: residual ${db(err).toFixed(1)} dB vs user ${db(u).toFixed(1)} dB`);
    }
  });

  it('passes the input through untouched when there is no echo, and never adds the reference to it', () => {
    const ref = voice(2, 140, 1);
    const user = voice(2, 210, 2);
    const { out, mics } = run(ref, user, 0, 0);
    for (let k = 0; k < out.length; k++) assert.ok(db(out[k]!) <= db(mics[k]!) + 0.01, `window ${k} got louder`);
  });

  it('does nothing while the speaker is silent', () => {
    const ec = new EchoCanceller({ sampleRate: RATE, maxDelayMs: 250, analysisMs: 512 });
    const mic = voice(0.032, 200, 3);
    assert.equal(ec.process(mic, null), mic);
  });
});
