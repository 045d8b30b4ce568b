/** One-shot listening: the pure policy on scripted timelines, and its generated listening cues. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chime, listenCue } from '../electron/audio/chime';
import { ONE_SHOT_NO_SPEECH_MS, OneShotPolicy } from '../electron/pipeline/turns/one-shot';

describe('one-shot policy (pure, scripted timelines)', () => {
  it('idle ignores speech; an activation arms it, speech makes the turn, its end closes the microphone', () => {
    const p = new OneShotPolicy();
    assert.equal(p.state, 'idle');
    assert.equal(p.listening, false);
    assert.equal(p.speechStarted(500), null, 'speech while idle is nothing to it');
    assert.deepEqual(p.activate(1000, 'idle'), { action: 'arm', interrupt: false, state: 'armed', from: 'idle', reason: 'activation', atMs: 1000 });
    assert.equal(p.listening, true);
    assert.deepEqual(p.speechStarted(1500), { state: 'turn', from: 'armed', reason: 'speech', atMs: 1500 });
    assert.equal(p.speechStarted(1600), null, 'once');
    assert.equal(p.listening, true);
    assert.deepEqual(p.stop(3000, 'end-of-turn'), { state: 'idle', from: 'turn', reason: 'end-of-turn', atMs: 3000 });
    assert.equal(p.listening, false);
    assert.equal(p.stop(3100, 'end-of-turn'), null, 'already closed');
    assert.equal(p.speechStarted(5000), null, 'a second segment starts nothing');
  });

  it('a second activation during the turn ends it at once; while armed with no speech it disarms', () => {
    const p = new OneShotPolicy();
    p.activate(1000, 'idle');
    p.speechStarted(1400);
    assert.deepEqual(p.activate(2000, 'idle'), { action: 'end-turn', interrupt: false, state: 'idle', from: 'turn', reason: 'activation', atMs: 2000 });
    assert.equal(p.state, 'idle');
    p.activate(4000, 'idle');
    assert.deepEqual(p.activate(4500, 'idle'), { action: 'disarm', interrupt: false, state: 'idle', from: 'armed', reason: 'activation', atMs: 4500 });
    assert.equal(p.listening, false);
    assert.equal(p.activate(6000, 'idle').action, 'arm', 'and the next one arms again');
  });

  it('an activation while the assistant speaks or has an answer on its way interrupts it, whatever else it does', () => {
    const p = new OneShotPolicy();
    assert.deepEqual(p.activate(1000, 'speaking'), { action: 'arm', interrupt: true, state: 'armed', from: 'idle', reason: 'activation', atMs: 1000 });
    assert.equal(p.activate(1200, 'pending').interrupt, true);
    assert.equal(p.activate(1300, 'idle').interrupt, false);
  });

  it('an activation no speech follows closes by itself after ONE_SHOT_NO_SPEECH_MS, not during a candidate', () => {
    const p = new OneShotPolicy();
    assert.equal(p.dueMs, null);
    p.activate(1000, 'idle');
    const due = 1000 + ONE_SHOT_NO_SPEECH_MS;
    assert.equal(p.dueMs, due);
    assert.equal(p.tick(due - 1, false), null);
    assert.equal(p.tick(due, true), null, 'something is being heard: it is let finish');
    assert.deepEqual(p.tick(due + 300, false), { state: 'idle', from: 'armed', reason: 'no-speech', atMs: due + 300 });
    assert.equal(p.dueMs, null);
    assert.equal(p.tick(due + 10_000, false), null);
  });

  it('no timeout once the turn has begun; the input ending closes it; reset forgets it', () => {
    const p = new OneShotPolicy();
    p.activate(0, 'idle');
    p.speechStarted(200);
    assert.equal(p.dueMs, null);
    assert.equal(p.tick(60_000, false), null, 'a long turn is ended by its own rules');
    assert.deepEqual(p.stop(61_000, 'input-ended'), { state: 'idle', from: 'turn', reason: 'input-ended', atMs: 61_000 });
    p.activate(70_000, 'idle');
    assert.deepEqual(p.stop(70_500, 'input-ended'), { state: 'idle', from: 'armed', reason: 'input-ended', atMs: 70_500 }, 'armed, too');
    p.activate(80_000, 'idle');
    p.reset();
    assert.equal(p.state, 'idle');
    assert.equal(p.tick(200_000, false), null);
  });
});

/** The dominant frequency of `x` from its zero crossings (a pure tone's is exact). */
function crossingsHz(x: Float32Array, rate: number): number {
  let n = 0;
  for (let i = 1; i < x.length; i++) if (x[i - 1]! < 0 !== x[i]! < 0) n++;
  return n / 2 / (x.length / rate);
}

describe('listening cues (generated)', () => {
  it('short and quiet: about 120 ms, peak 0.08, zero at both ends, far below the chime', () => {
    for (const rate of [16000, 22050, 24000, 48000]) {
      for (const kind of ['start', 'stop'] as const) {
        const c = listenCue(kind, rate);
        assert.ok(Math.abs(c.length - 0.12 * rate) <= 1, `${kind} at ${rate}: ${c.length} samples`);
        const peak = c.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
        assert.ok(Math.abs(peak - 0.08) < 1e-6, `peak ${peak}`);
        assert.ok(c[0] === 0 && c[c.length - 1] === 0, 'silent at both ends (no click)');
        assert.ok(c.every(Number.isFinite));
      }
    }
    const chimePeak = chime(16000).reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    assert.ok(20 * Math.log10(chimePeak / 0.08) > 12, 'well under the timer chime');
  });

  it('start rises and stop falls (E5 and A5), and the same rate gives the same samples', () => {
    const rate = 48000;
    const half = (x: Float32Array, second: boolean) => (second ? x.subarray(Math.round(0.06 * rate), Math.round(0.1 * rate)) : x.subarray(Math.round(0.01 * rate), Math.round(0.05 * rate)));
    const start = listenCue('start', rate);
    const stop = listenCue('stop', rate);
    assert.ok(Math.abs(crossingsHz(half(start, false), rate) - 659) < 40 && Math.abs(crossingsHz(half(start, true), rate) - 880) < 60);
    assert.ok(Math.abs(crossingsHz(half(stop, false), rate) - 880) < 40 && Math.abs(crossingsHz(half(stop, true), rate) - 659) < 60);
    assert.deepEqual(listenCue('start', 16000), listenCue('start', 16000));
    assert.throws(() => listenCue('stop', 0), RangeError);
  });
});
