/**
 * The wake phrase (pure): spotting it at the start of the recognizer's words, tolerantly, and the
 * window the phrase said alone opens for the request.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchWakePhrase, WAKE_WINDOW_MS, WakeWindow } from '../electron/pipeline/turns/wake-phrase';

describe('wake phrase (pure)', () => {
  it('finds the phrase at the start, misspelt, split or joined, and gives what follows', () => {
    assert.deepEqual(matchWakePhrase('hey computer, what time is it', 'hey computer'), { matched: true, rest: 'what time is it', heard: 'hey computer' });
    assert.equal(matchWakePhrase('hey computerwat time is it', 'hey computer').rest, 'wat time is it', 'the phrase ends inside a word');
    assert.equal(matchWakePhrase('hay compuder what time is it', 'hey computer').rest, 'what time is it');
    assert.equal(matchWakePhrase('he computa set a timer', 'Hey Computer').rest, 'set a timer');
    assert.equal(matchWakePhrase('hey com puter tell me a joke', 'hey computer').rest, 'tell me a joke');
    assert.equal(matchWakePhrase('heycomputer tell me a joke', 'hey computer').rest, 'tell me a joke');
    assert.deepEqual(matchWakePhrase('hey computer', 'hey computer'), { matched: true, rest: '', heard: 'hey computer' });
  });

  it('is not fooled by other words, or the phrase later on', () => {
    for (const t of ['what time is it', 'the company is closed', 'hey', 'I think we should leave at six', 'tell me, hey computer', ''])
      assert.equal(matchWakePhrase(t, 'hey computer').matched, false, t);
  });

  it('the phrase alone opens a window for the next utterance; one request closes it; it runs out', () => {
    const w = new WakeWindow();
    assert.deepEqual(w.decide('what time is it', 'hey computer', 0, 1500), { action: 'ignore' });
    assert.deepEqual(w.decide('hey computer', 'hey computer', 2000, 3000), { action: 'listen', untilMs: 3000 + WAKE_WINDOW_MS });
    assert.deepEqual(w.decide('set a timer for five seconds', 'hey computer', 4000, 6000), { action: 'answer', text: 'set a timer for five seconds' });
    assert.deepEqual(w.decide('that was not funny', 'hey computer', 9000, 10_000), { action: 'ignore' }, 'the window took one request');
    w.decide('hey computer', 'hey computer', 11_000, 12_000);
    assert.equal(w.expire(12_000 + WAKE_WINDOW_MS), false);
    assert.equal(w.expire(12_001 + WAKE_WINDOW_MS), true);
    assert.deepEqual(w.decide('what time is it', 'hey computer', 18_000, 19_000), { action: 'ignore' }, 'too late');
    assert.deepEqual(w.decide('hey computer what time is it', 'hey computer', 20_000, 21_000), { action: 'answer', text: 'what time is it' });
  });
});
