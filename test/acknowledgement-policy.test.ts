/**
 * Acknowledgements judged on more than spelling (pure): how words sound, words people take the
 * floor with, and, where the words say neither, how the speech sounded (length, level against the
 * user's requests, pitch).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_ACKNOWLEDGEMENTS, parseAcknowledgements, readWords, soundKey } from '../electron/pipeline/respond/acknowledgement';
import { ACK_MAX_MS, evidenceOf, judgeSpeech, LOUD_DB, NOT_FALLING_ST, SHOUT_DB, type Traits } from '../electron/pipeline/respond/acknowledgement-policy';

const phrases = parseAcknowledgements(DEFAULT_ACKNOWLEDGEMENTS);
const read = (text: string) => readWords(text, phrases);
const nod: Traits = { durationMs: 420, levelDb: -6, pitchSemitones: -3 };

describe('how words sound (soundKey)', () => {
  it('spellings of one sound agree, different sounds do not', () => {
    for (const [a, b] of [['writ', 'right'], ['wheyt', 'wait'], ['hokay', 'okay'], ['gat', 'got'], ['hsur', 'sure'], ['heold', 'hold']] as const) assert.equal(soundKey(a), soundKey(b), `${a} ~ ${b}`);
    for (const [a, b] of [['wait', 'right'], ['stop', 'sure'], ['hold', 'okay']] as const) assert.notEqual(soundKey(a), soundKey(b), `${a} !~ ${b}`);
  });
});

describe('reading words said over the answer', () => {
  it('listed phrases and hums are acknowledgements; so is a guess that sounds like one', () => {
    for (const t of ['yeah', 'mm hmm', 'i see', 'hokay', 'halright', 'writ', 'hi se']) assert.deepEqual([t, read(t).verdict, read(t).floor], [t, 'acknowledgement', false]);
  });

  it('a word people take the floor with, spelled or sounding so, is an interruption however short', () => {
    for (const t of ['wait', 'no', 'hold on', 'what about paris', 'wheyt', 'nowstop', 'heold of']) assert.deepEqual([t, read(t).verdict, read(t).floor], [t, 'interruption', true]);
  });

  it('a short floor word is matched only as spelled, and none that an acknowledgement sounds like ("got it" is not "could")', () => {
    assert.equal(read('paut tit').floor, false, '"but" is too short to be matched by sound');
    assert.equal(read('gat tit').verdict, 'acknowledgement');
  });

  it('anything else is unclear: how it sounded must decide', () => {
    const r = read('yeev');
    assert.deepEqual(r, { verdict: 'interruption', floor: false, stopWord: false, unclear: true, words: 1, opening: false });
    assert.equal(read('').verdict, 'none');
  });

  it('sounds that open many words ("ho", "a", "how") are no acknowledgement until the speech ends', () => {
    for (const opening of ['ho', 'a', 'how', 'uh ho', 'hor', 'yea']) assert.equal(read(opening).opening, true, opening);
    for (const word of ['mm', 'okay', 'right', 'got it', 'hon yon', 'yeah', 'uh huh', 'yeah yeah', 'oh']) assert.equal(read(word).opening, false, `${word}: a listed one spelled so, or more than opening sounds`);
    assert.equal(judgeSpeech(read('ho'), nod, false), 'none', 'the "ho" of "hold on": wait for more');
    assert.equal(judgeSpeech(read('yeah'), nod, false), 'acknowledgement', 'spelled as listed: at once');
    assert.equal(judgeSpeech(read('uh ho'), nod, true), 'acknowledgement', 'ended: it was one');
    assert.equal(judgeSpeech(read('mm'), nod, false), 'acknowledgement', 'a hum shows at once');
  });
});

describe('judging speech over the answer (words and how it sounded)', () => {
  it('plain words decide: an acknowledgement passes, a floor word stops it', () => {
    assert.equal(judgeSpeech(read('okay'), { ...nod, levelDb: 0 }, true), 'acknowledgement');
    assert.equal(judgeSpeech(read('wait'), nod, false), 'interruption', 'at once, from interim words');
  });

  it('speech too short to be a turn stops it only with a word that alone asks it to stop, spelled so', () => {
    assert.equal(judgeSpeech(read('wait'), nod, true, true), 'interruption');
    assert.equal(judgeSpeech(read('no'), nod, true, true), 'interruption');
    assert.equal(judgeSpeech(read('where ther'), nod, true, false), 'interruption', 'a turn: "where" begins a question');
    assert.equal(judgeSpeech(read('where ther'), nod, true, true), 'acknowledgement', 'too short to be a turn: a fragment, judged on how it sounded');
    assert.equal(judgeSpeech(read('wheyt'), nod, true, true), 'acknowledgement', 'sounding like "wait" is not enough when so short');
  });

  it('a floor word far quieter than the requests is the echo canceller\'s leftovers, not the user', () => {
    assert.equal(judgeSpeech(read('wait'), { ...nod, levelDb: -25 }, true), 'none');
  });

  it('unclear words: short, not loud and falling is an acknowledgement once it has ended; before that it waits', () => {
    assert.equal(judgeSpeech(read('yeev'), nod, false), 'none');
    assert.equal(judgeSpeech(read('yeev'), nod, true), 'acknowledgement');
    assert.equal(judgeSpeech(read('yeev'), { ...nod, levelDb: null, pitchSemitones: null }, true), 'acknowledgement', 'nothing against it');
  });

  it('unclear words: longer than ACK_MAX_MS, louder than LOUD_DB, rising, or many words take the floor', () => {
    assert.equal(judgeSpeech(read('yeev'), { ...nod, durationMs: ACK_MAX_MS + 1 }, false), 'interruption', 'long: known before it ends');
    assert.equal(judgeSpeech(read('yeev'), { ...nod, levelDb: LOUD_DB + 0.5 }, true), 'interruption', 'loud, once ended');
    assert.equal(judgeSpeech(read('yeev'), { ...nod, levelDb: LOUD_DB + 0.5 }, false), 'none', 'the start of a vowel can be loud');
    assert.equal(judgeSpeech(read('yeev'), { ...nod, levelDb: SHOUT_DB + 0.5 }, false), 'interruption', 'much louder: at once');
    assert.equal(judgeSpeech(read('hak chuley'), { ...nod, pitchSemitones: NOT_FALLING_ST + 1 }, true), 'interruption', 'rising, once ended');
    assert.equal(judgeSpeech(read('hak chuley'), { ...nod, pitchSemitones: NOT_FALLING_ST + 1 }, false), 'none', 'a pitch is judged once it has ended');
    assert.equal(judgeSpeech(read('ax ko ze me la'), nod, false), 'interruption', 'four words that are none');
  });

  it('the evidence a report keeps names what the words were', () => {
    assert.deepEqual(evidenceOf(read('yeev'), nod), { durationMs: 420, levelDb: -6, pitchSemitones: -3, words: 'unclear' });
    assert.deepEqual(evidenceOf(read('okay'), null), { durationMs: 0, levelDb: null, pitchSemitones: null, words: 'acknowledgement' });
    assert.equal(evidenceOf(read('wait'), nod).words, 'floor');
  });
});
