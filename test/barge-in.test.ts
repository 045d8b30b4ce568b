import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACK_GAP_MAX_MS, BACKCHANNEL_MAX_MS, BargeInPolicy, LOUD_HOLD_MS, LOUD_ONSET_DB, PEEK_AFTER_MS, UNCLEAR_HOLD_MS, type BargeInConfig } from '../electron/pipeline/respond/barge-in';

const cfg: BargeInConfig = { enabled: true, minSpeechMs: 400, falseInterruptionMs: 1500, backchannels: false, onsetHoldMs: 0 };
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

describe('barge-in policy with backchannels (pure, scripted timelines)', () => {
  const ducking = () => policy({ backchannels: true, onsetHoldMs: 0 }).p;

  it('speech over a playing answer lowers it (no gap); a word that is no acknowledgement pauses it there, and confirmed speech stops it where it paused', () => {
    const p = ducking();
    assert.deepEqual(p.onCandidate(1000, 'speaking', 980, 3), [{ type: 'duck', atMs: 1000 }]);
    assert.equal(p.deciding, true);
    assert.deepEqual(p.onWords(1200, 'acknowledgement'), [], 'still deciding');
    assert.deepEqual(p.onWords(1250, 'interruption'), [{ type: 'pause', atMs: 1250, restoreVolume: true }]);
    assert.equal(p.deciding, false);
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), [{ type: 'interrupt', atMs: 1400, pausedAtMs: 1250 }]);
    assert.equal(p.holding, false);
    // A stray word too short to be a turn: the answer plays on from where it paused.
    p.onCandidate(2000, 'speaking', 1980, 3);
    p.onWords(2200, 'interruption');
    assert.deepEqual(p.onDiscarded(2300), [{ type: 'resume', atMs: 2300 }]);
  });

  it('asks for the words decoded now at each of PEEK_AFTER_MS, not waiting for the next interim result', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.equal(p.peekDue(1000 + PEEK_AFTER_MS[0]! - 1), false);
    assert.equal(p.peekDue(1000 + PEEK_AFTER_MS[0]!), true);
    assert.equal(p.peekDue(1000 + PEEK_AFTER_MS[0]! + 1), false, 'once each');
    for (const after of PEEK_AFTER_MS.slice(1)) assert.equal(p.peekDue(1000 + after), true);
    assert.equal(p.peekDue(5000), false, 'then the interim words decide');
    p.onWords(1400, 'interruption');
    assert.equal(p.peekDue(6000), false, 'nothing is being judged once paused');
  });

  it('once the speech is a turn, a word that is no acknowledgement stops the answer at once', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    p.onWords(1200, 'acknowledgement');
    p.onSpeechStart(1400, 'speaking');
    assert.deepEqual(p.onWords(1700, 'interruption'), [{ type: 'interrupt', atMs: 1700, pausedAtMs: 1700, speechStartMs: 980 }], '"okay, tell me more"');
  });

  it('a short acknowledgement is recorded and the answer comes back up; a cough only comes back up; a short word judged an interruption ("wait") stops it', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onDiscarded(1400, { verdict: 'acknowledgement', text: 'yeah' }), [
      { type: 'unduck', atMs: 1400 },
      { type: 'backchannel', atMs: 1400, speechTurn: 3, speechStartMs: 980, text: 'yeah' },
    ]);
    p.onCandidate(2000, 'speaking', 1990, 3);
    assert.deepEqual(p.onDiscarded(2300), [{ type: 'unduck', atMs: 2300 }]);
    p.onCandidate(3000, 'speaking', 2990, 3);
    assert.deepEqual(p.onDiscarded(3300, { verdict: 'interruption', text: 'wait' }), [{ type: 'interrupt', atMs: 3300, pausedAtMs: 3000, speechStartMs: 2990 }], 'too short to be a turn, but taking the floor');
    p.onCandidate(4000, 'speaking', 3990, 3);
    const evidence = { durationMs: 380, levelDb: -7, pitchSemitones: -3, words: 'unclear' as const };
    assert.deepEqual(p.onDiscarded(4300, { verdict: 'acknowledgement', text: 'hokay', evidence }).at(-1), { type: 'backchannel', atMs: 4300, speechTurn: 3, speechStartMs: 3990, text: 'hokay', evidence }, 'its evidence goes with it');
  });

  it('long enough to be a turn is not enough to stop it: the turn\'s words decide, at full volume once it pauses', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), []);
    assert.equal(p.decidingTurn, true);
    assert.deepEqual(p.onWords(1800, 'acknowledgement', true), [{ type: 'unduck', atMs: 1800 }], 'paused after "mm hmm"');
    assert.equal(p.resumeAtMs, null, 'nothing times out while its end of turn is awaited');
    assert.deepEqual(p.onSpeechResumed(1900), [{ type: 'duck', atMs: 1900 }], 'went on talking');
    assert.deepEqual(p.onWords(2000, 'acknowledgement', true), [{ type: 'unduck', atMs: 2000 }]);
    assert.deepEqual(p.onTurnEnded(2600, 'acknowledgement', 'mm hmm'), [{ type: 'backchannel', atMs: 2600, speechTurn: 3, speechStartMs: 980, text: 'mm hmm' }]);
    assert.equal(p.holding, false);
  });

  it('a turn whose final words are no acknowledgement (or none) interrupts', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    p.onSpeechStart(1400, 'speaking');
    assert.deepEqual(p.onTurnEnded(2600, 'interruption', 'tell me more'), [{ type: 'interrupt', atMs: 2600, pausedAtMs: 1000, speechStartMs: 980 }]);
    p.onCandidate(3000, 'speaking', 2980, 4);
    p.onSpeechStart(3400, 'speaking');
    assert.deepEqual(p.onTurnEnded(4000, 'none', ''), [{ type: 'interrupt', atMs: 4000, pausedAtMs: 3000, speechStartMs: 2980 }]);
  });

  it('speech that goes on past BACKCHANNEL_MAX_MS takes the floor, whatever its words', () => {
    const p = ducking();
    p.onCandidate(1000, 'speaking', 980, 3);
    p.onSpeechStart(1400, 'speaking');
    assert.equal(p.resumeAtMs, 980 + BACKCHANNEL_MAX_MS);
    assert.deepEqual(p.tick(980 + BACKCHANNEL_MAX_MS - 1), []);
    assert.deepEqual(p.tick(980 + BACKCHANNEL_MAX_MS), [{ type: 'interrupt', atMs: 980 + BACKCHANNEL_MAX_MS, pausedAtMs: 1000, speechStartMs: 980 }]);
  });

  it('before an answer is heard, and for pushed keys and "stop", nothing changes', () => {
    const p = ducking();
    assert.deepEqual(p.onCandidate(1000, 'pending'), [{ type: 'pause', atMs: 1000 }]);
    assert.deepEqual(p.onSpeechStart(1250, 'pending'), [{ type: 'continue-turn', atMs: 1250 }]);
    p.onCandidate(2000, 'speaking', 1990, 3);
    assert.deepEqual(p.onShortCommand('stop', 2200, 'speaking'), [{ type: 'interrupt', atMs: 2200, pausedAtMs: 2000, speechStartMs: 1990 }], 'the report knows where "stop" began');
    p.onCandidate(3000, 'speaking', 2990, 3);
    assert.deepEqual(p.onKeyPress(3100, 'speaking'), [{ type: 'interrupt', atMs: 3100, pausedAtMs: 3100 }]);
    assert.equal(p.holding, false);
    p.onCandidate(4000, 'speaking', 3990, 3);
    assert.deepEqual(p.onShortCommand('pause', 4200, 'speaking'), [{ type: 'pause', atMs: 4200, restoreVolume: true }], 'a lowered answer is paused, at full volume for later');
    assert.equal(p.pausedByUser, true);
  });
});

describe('barge-in policy with an onset hold (pure, scripted timelines)', () => {
  const holding = () => policy({ backchannels: true, onsetHoldMs: 200 }).p;

  it('the first sound over the answer silences it; a word that is no acknowledgement keeps it silent, and the stop dates from that first sound', () => {
    const p = holding();
    assert.deepEqual(p.onCandidate(1000, 'speaking', 980, 3), [{ type: 'pause', atMs: 1000 }]);
    assert.equal(p.deciding, true);
    assert.equal(p.resumeAtMs, 1200, 'the hold ends by itself');
    assert.deepEqual(p.onWords(1150, 'interruption'), [], 'already silent');
    assert.equal(p.deciding, false);
    assert.equal(p.resumeAtMs, 1000 + 1500, 'from here it is an ordinary held pause');
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), [{ type: 'interrupt', atMs: 1400, pausedAtMs: 1000 }]);
  });

  it('"stop" in the hold stops the answer where the hold began', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onShortCommand('stop', 1160, 'speaking'), [{ type: 'interrupt', atMs: 1160, pausedAtMs: 1000, speechStartMs: 980 }]);
  });

  it('acknowledgement-like words end the hold at once: the answer plays on, lowered, while the speech is judged', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onWords(1150, 'acknowledgement'), [
      { type: 'duck', atMs: 1150 },
      { type: 'resume', atMs: 1150 },
    ]);
    assert.equal(p.deciding, true);
    assert.equal(p.resumeAtMs, 1000 + 1500);
    assert.deepEqual(p.onDiscarded(1400, { verdict: 'acknowledgement', text: 'yeah' }), [
      { type: 'unduck', atMs: 1400 },
      { type: 'backchannel', atMs: 1400, speechTurn: 3, speechStartMs: 980, text: 'yeah' },
    ]);
  });

  it('no words by the end of the hold: silent up to UNCLEAR_HOLD_MS for the last peek, then it plays on lowered, and a later word that is no acknowledgement pauses it there', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onWords(1150, 'none'), []);
    assert.deepEqual(p.tick(1199), []);
    assert.deepEqual(p.tick(1200), [], 'nothing known yet: held longer');
    const until = 1000 + UNCLEAR_HOLD_MS - 40;
    assert.deepEqual(p.tick(until - 1), []);
    assert.deepEqual(p.tick(until), [
      { type: 'duck', atMs: until },
      { type: 'resume', atMs: until },
    ]);
    assert.deepEqual(p.tick(until + 100), [], 'released once');
    assert.deepEqual(p.onWords(until + 120, 'interruption'), [{ type: 'pause', atMs: until + 120, restoreVolume: true }]);
    assert.deepEqual(p.onSpeechStart(until + 200, 'speaking'), [{ type: 'interrupt', atMs: until + 200, pausedAtMs: until + 120 }]);
  });

  it('a floor word that comes in the lengthened hold stops the answer where the hold began', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.tick(1200), []);
    assert.deepEqual(p.onWords(1320, 'interruption'), [], 'still silent: held as stopped');
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), [{ type: 'interrupt', atMs: 1400, pausedAtMs: 1000 }]);
  });

  it('words that read as an acknowledgement are not held longer', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3, 0, -10);
    p.onLevel(1100, 0);
    assert.deepEqual(p.onWords(1150, 'acknowledgement'), [], 'loud: the hold goes on');
    const end = 1000 + LOUD_HOLD_MS - 40;
    assert.deepEqual(p.tick(end), [
      { type: 'duck', atMs: end },
      { type: 'resume', atMs: end },
    ]);
  });

  it('speech dropped inside the hold resumes at full volume (an acknowledgement is recorded); confirmed speech inside it interrupts where it began', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3);
    assert.deepEqual(p.onDiscarded(1100), [{ type: 'resume', atMs: 1100 }], 'a click');
    p.onCandidate(2000, 'speaking', 1980, 3);
    assert.deepEqual(p.onDiscarded(2150, { verdict: 'acknowledgement', text: 'mm' }), [
      { type: 'resume', atMs: 2150 },
      { type: 'backchannel', atMs: 2150, speechTurn: 3, speechStartMs: 1980, text: 'mm' },
    ]);
    p.onCandidate(3000, 'speaking', 2980, 4);
    assert.deepEqual(p.onSpeechStart(3100, 'speaking'), [], 'long enough to be a turn: its words still decide');
    assert.deepEqual(p.onWords(3150, 'interruption'), [{ type: 'interrupt', atMs: 3150, pausedAtMs: 3000, speechStartMs: 2980 }]);
  });

  it('the silence the answer already has around its position shortens the hold, so that the gap an acknowledgement leaves stays within ACK_GAP_MAX_MS; too short a hold only lowers it', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3, 100);
    assert.equal(p.resumeAtMs, 1000 + ACK_GAP_MAX_MS - 40 - 100, 'cut to fit the gap');
    p.reset();
    assert.deepEqual(p.onCandidate(2000, 'speaking', 1980, 3, 180), [{ type: 'duck', atMs: 2000 }], 'the answer is in a pause of its own: lowered');
  });

  it('speech that is loud against the requests keeps the answer silent up to LOUD_HOLD_MS, acknowledgement-like interim words notwithstanding; a quiet one does not', () => {
    const p = holding();
    p.onCandidate(1000, 'speaking', 980, 3, 0, -12);
    assert.equal(p.resumeAtMs, 1200, 'quiet: the usual hold');
    p.onLevel(1100, -10);
    assert.equal(p.resumeAtMs, 1200);
    p.onLevel(1150, LOUD_ONSET_DB + 1);
    assert.equal(p.resumeAtMs, 1000 + LOUD_HOLD_MS - 40, 'grew loud: held longer');
    assert.deepEqual(p.onWords(1180, 'acknowledgement'), [], 'the "ho" of "hold on" does not end it');
    assert.deepEqual(p.onWords(1240, 'interruption'), []);
    assert.deepEqual(p.onSpeechStart(1400, 'speaking'), [{ type: 'interrupt', atMs: 1400, pausedAtMs: 1000 }], 'stopped where it began');
    p.onCandidate(2000, 'speaking', 1980, 4, 0, 0);
    assert.equal(p.resumeAtMs, 2000 + LOUD_HOLD_MS - 40, 'loud from its first sound');
    assert.deepEqual(p.tick(2000 + LOUD_HOLD_MS - 40), [], 'no words yet: held on to UNCLEAR_HOLD_MS');
    assert.deepEqual(p.tick(2000 + UNCLEAR_HOLD_MS - 40), [
      { type: 'duck', atMs: 2360 },
      { type: 'resume', atMs: 2360 },
    ]);
    p.onLevel(2400, 0);
    assert.equal(p.resumeAtMs, 2000 + 1500, 'a hold over is not begun again');
  });

  it('with onsetHoldMs 0 the answer is only lowered, as before', () => {
    const p = policy({ backchannels: true, onsetHoldMs: 0 }).p;
    assert.deepEqual(p.onCandidate(1000, 'speaking', 980, 3), [{ type: 'duck', atMs: 1000 }]);
    assert.equal(p.resumeAtMs, 2500);
  });
});
