/**
 * What a listener hears besides words (pure, synthetic signals): length, level against the user's
 * requests, and the direction of the pitch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pitchOf, SpeechTraits } from '../electron/pipeline/listen/speech-traits';

const RATE = 16000;
const WINDOW = 512;

/** A voiced-like tone (a fundamental and two harmonics) gliding from f0a to f0b Hz, at amplitude `amp`. */
function glide(ms: number, f0a: number, f0b: number, amp: number): Float32Array {
  const n = Math.round((ms / 1000) * RATE);
  const x = new Float32Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const f = f0a + ((f0b - f0a) * i) / n;
    phase += (2 * Math.PI * f) / RATE;
    x[i] = amp * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.25 * Math.sin(3 * phase));
  }
  return x;
}

/** Feeds `x` in windows from input time `atMs`; returns the time after it. */
function feed(t: SpeechTraits, x: Float32Array, atMs: number, request: boolean): number {
  let ms = atMs;
  for (let o = 0; o + WINDOW <= x.length; o += WINDOW) {
    ms += (WINDOW / RATE) * 1000;
    t.push(x.subarray(o, o + WINDOW), ms, -50, request);
  }
  return ms;
}

describe('speech traits', () => {
  it('finds the pitch of a voiced window, not an octave below it', () => {
    for (const f0 of [100, 180, 250]) {
      const got = pitchOf(glide(32, f0, f0, 0.3), RATE)!;
      assert.ok(Math.abs(got - f0) / f0 < 0.05, `${f0} Hz read as ${got}`);
    }
    assert.equal(pitchOf(new Float32Array(WINDOW), RATE), null, 'silence is unvoiced');
  });

  it('measures length, level against the requests, and a falling or rising pitch', () => {
    const t = new SpeechTraits(RATE);
    let ms = feed(t, glide(1200, 140, 140, 0.2), 0, true);
    ms = feed(t, new Float32Array(WINDOW * 10), ms, false);
    const start = ms;
    ms = feed(t, glide(448, 200, 150, 0.05), ms, false);
    const nod = t.since(start);
    assert.ok(Math.abs(nod.durationMs - 448) <= 40, `lasted ${nod.durationMs} ms`);
    assert.ok(nod.levelDb !== null && Math.abs(nod.levelDb - 20 * Math.log10(0.05 / 0.2)) < 1.5, `level ${nod.levelDb} dB, about -12`);
    assert.ok(nod.pitchSemitones !== null && nod.pitchSemitones < -2, `falling: ${nod.pitchSemitones}`);
    ms = feed(t, new Float32Array(WINDOW * 10), ms, false);
    const q = ms;
    feed(t, glide(640, 150, 210, 0.2), ms, false);
    const question = t.since(q);
    assert.ok(question.pitchSemitones !== null && question.pitchSemitones > 2, `rising: ${question.pitchSemitones}`);
    assert.ok(question.levelDb !== null && Math.abs(question.levelDb) < 1.5, 'as loud as the request');
  });

  it('knows no level before a request was heard', () => {
    const t = new SpeechTraits(RATE);
    feed(t, glide(300, 150, 150, 0.1), 0, false);
    assert.equal(t.since(0).levelDb, null);
  });
});
