import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BargeInPolicy, type BargeInConfig } from '../electron/pipeline/respond/barge-in';

const cfg: BargeInConfig = { enabled: true, minSpeechMs: 400, falseInterruptionMs: 1500 };
const policy = (over: Partial<BargeInConfig> = {}) => {
  const live = { ...cfg, ...over };
  return { p: new BargeInPolicy(() => live), live };
};

describe('barge-in policy (pure, scripted timelines)', () => {
  it('speech over the answer pauses at once, then interrupts once confirmed', () => {
    const { p } = policy();
    assert.deepEqual(p.onCandidate(1000, 'speaking'), [{ type: 'pause', atMs: 1000 }]);
    assert.equal(p.holding, true);
    assert.deepEqual(p.tick(1300), []);
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), [{ type: 'interrupt', atMs: 1400, pausedAtMs: 1000 }]);
    assert.equal(p.holding, false);
  });

  it('a cough over the answer resumes playback when it is dropped', () => {
    const { p } = policy();
    p.onCandidate(1000, 'speaking');
    assert.deepEqual(p.onDiscarded(1450), [{ type: 'resume', atMs: 1450 }]);
    assert.deepEqual(p.onDiscarded(1500), [], 'nothing held any more');
  });

  it('a pause nothing confirms within falseInterruptionMs resumes; later confirmation still interrupts', () => {
    const { p } = policy({ falseInterruptionMs: 500 });
    p.onCandidate(1000, 'speaking');
    assert.deepEqual(p.tick(1499), []);
    assert.deepEqual(p.tick(1500), [{ type: 'resume', atMs: 1500 }]);
    assert.deepEqual(p.onSpeechStart(1600, 'speaking'), [{ type: 'interrupt', atMs: 1600, pausedAtMs: 1600 }]);
  });

  it('speech before any answer was heard continues the turn', () => {
    const { p } = policy();
    assert.deepEqual(p.onCandidate(1000, 'pending'), [{ type: 'pause', atMs: 1000 }]);
    assert.deepEqual(p.onSpeechStart(1250, 'pending'), [{ type: 'continue-turn', atMs: 1250 }]);
    // Held from before the answer became audible: still a continuation.
    p.onCandidate(2000, 'pending');
    assert.deepEqual(p.onSpeechStart(2250, 'speaking'), [{ type: 'continue-turn', atMs: 2250 }]);
  });

  it('with nothing to say, speech is just a new turn', () => {
    const { p } = policy();
    assert.deepEqual(p.onCandidate(1000, 'idle'), []);
    assert.deepEqual(p.onSpeechStart(1250, 'idle'), []);
  });

  it('needs more speech to interrupt than to start a turn, read live from the settings', () => {
    const { p, live } = policy();
    assert.equal(p.minSpeechMs('speaking', 250), 400);
    assert.equal(p.minSpeechMs('pending', 250), 250);
    assert.equal(p.minSpeechMs('idle', 250), 250);
    live.minSpeechMs = 700;
    assert.equal(p.minSpeechMs('speaking', 250), 700);
  });

  it('with barge-in off, speech over the answer is ignored, but a continuation still works', () => {
    const { p } = policy({ enabled: false });
    assert.equal(p.listens('speaking'), false);
    assert.deepEqual(p.onCandidate(1000, 'speaking'), []);
    assert.equal(p.listens('pending'), true);
    assert.deepEqual(p.onCandidate(1000, 'pending'), [{ type: 'pause', atMs: 1000 }]);
  });

  it('says when a held answer resumes, for a timer to wake then', () => {
    const { p, live } = policy({ falseInterruptionMs: 500 });
    assert.equal(p.resumeAtMs, null);
    p.onCandidate(1000, 'speaking');
    assert.equal(p.resumeAtMs, 1500);
    live.falseInterruptionMs = 800;
    assert.equal(p.resumeAtMs, 1800, 'read live from the settings');
    assert.deepEqual(p.tick(1799), []);
    assert.deepEqual(p.tick(1800), [{ type: 'resume', atMs: 1800 }]);
    assert.equal(p.resumeAtMs, null);
  });

  it('reset forgets a hold: nothing resumes', () => {
    const { p } = policy();
    p.onCandidate(1000, 'speaking');
    p.reset();
    assert.equal(p.holding, false);
    assert.equal(p.resumeAtMs, null);
    assert.deepEqual(p.tick(5000), []);
    assert.deepEqual(p.onDiscarded(5000), []);
  });

  it('the push-to-talk key interrupts at once, without confirmation', () => {
    const { p } = policy();
    assert.deepEqual(p.onKeyPress(500, 'speaking'), [{ type: 'interrupt', atMs: 500, pausedAtMs: 500 }]);
    assert.deepEqual(p.onKeyPress(600, 'pending'), [{ type: 'continue-turn', atMs: 600 }]);
    assert.deepEqual(p.onKeyPress(700, 'idle'), []);
  });

  it('a short "stop" heard in the held speech interrupts at once, from where playback paused; nothing resumes after', () => {
    const { p } = policy();
    p.onCandidate(1000, 'speaking');
    assert.deepEqual(p.onShortCommand('stop', 1250, 'speaking'), [{ type: 'interrupt', atMs: 1250, pausedAtMs: 1000 }]);
    assert.equal(p.holding, false);
    assert.deepEqual(p.onDiscarded(1400), [], 'the short word is then dropped as a turn, and the answer stays stopped');
    assert.deepEqual(p.tick(5000), []);
  });

  it('a short word when nothing is being said does nothing', () => {
    const { p } = policy();
    assert.deepEqual(p.onShortCommand('stop', 1000, 'idle'), []);
    assert.deepEqual(p.onShortCommand('cancel', 1000, 'pending'), []);
  });

  it('"pause" holds playback with no timeout; the next turn resumes it or cancels it', () => {
    const { p } = policy({ falseInterruptionMs: 500 });
    p.onCandidate(1000, 'speaking');
    assert.deepEqual(p.onShortCommand('pause', 1200, 'speaking'), [], 'already held');
    assert.equal(p.pausedByUser, true);
    assert.equal(p.resumeAtMs, null);
    assert.deepEqual(p.onDiscarded(1400), []);
    assert.deepEqual(p.tick(9000), [], 'no false-interruption resume');
    // The next turn: its speech neither pauses again nor interrupts; its words decide.
    assert.deepEqual(p.onCandidate(10_000, 'speaking'), []);
    assert.deepEqual(p.onSpeechStart(10_300, 'speaking'), []);
    assert.deepEqual(p.onTurnAfterPause(true, 11_000), [{ type: 'resume', atMs: 11_000 }]);
    assert.equal(p.holding, false);
    // Paused again, then something else is asked: the paused answer is cancelled where it paused.
    assert.deepEqual(p.onShortCommand('pause', 12_000, 'speaking'), [{ type: 'pause', atMs: 12_000 }]);
    assert.deepEqual(p.onTurnAfterPause(false, 14_000), [{ type: 'interrupt', atMs: 14_000, pausedAtMs: 12_000 }]);
    assert.deepEqual(p.onTurnAfterPause(true, 15_000), [], 'nothing paused any more');
  });
});
