/** The dangling-word rule (pure) and how the end-of-turn policy and the endpoint replay honour it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { danglingWord, DANGLING_WORDS, endsDangling, normalisedWords } from '../electron/pipeline/turns/dangling-word';
import { holdFor, TurnEndPolicy, type TurnEndConfig } from '../electron/pipeline/turns/turn-end';
import { replayEndpointing, type VadPoint } from '../renderer/model/endpoint-replay';

const cfg: TurnEndConfig = { silenceMs: 600, turnModel: true, turnCheckMs: 200, turnThreshold: 0.5, maxPauseMs: 1600 };

describe('dangling word (the words)', () => {
  it('words ending in an article, a possessive, a conjunction or a filler dangle', () => {
    for (const text of ['set an alarm for the', 'call my', 'and um', 'play a', 'get an', 'turn on the lights and', 'tea or', 'bigger than', 'tell me about your', 'uh', 'set a timer for erm']) {
      assert.ok(endsDangling(text), text);
    }
    assert.equal(danglingWord('set an alarm for the'), 'the');
    assert.equal(danglingWord('call my'), 'my');
    assert.equal(danglingWord('and um'), 'um');
  });

  it('finished sentences, and words a sentence can end with, do not', () => {
    const finished = [
      'set an alarm for seven',
      'call my mom',
      'what time is it',
      // Prepositions and particles end questions and phrasal verbs: not on the list.
      'what are you up to',
      'what is it for',
      'where are you from',
      'what is the movie about',
      'who is it addressed to',
      'turn it off',
      'come in',
      'hold on',
      'turn the volume up',
      'switch it over',
      // Pronoun and adverb readings.
      'call her',
      'is it his',
      'i think so',
      'not yet',
      'what if',
      "it's",
    ];
    for (const text of finished) assert.equal(danglingWord(text), null, text);
    for (const w of ['in', 'on', 'up', 'over', 'off', 'to', 'for', 'from', 'with', 'about', 'of', 'her', 'his', 'so', 'if', 'that']) {
      assert.ok(!Object.values(DANGLING_WORDS).flat().includes(w), `"${w}" can end a sentence`);
    }
  });

  it('no words: nothing dangles', () => {
    assert.equal(endsDangling(''), false);
    assert.equal(endsDangling('   '), false);
    assert.equal(endsDangling('...'), false);
  });

  it('reads a recognizer that capitalises and punctuates like one that does not', () => {
    assert.deepEqual(normalisedWords('Set an alarm for the...'), ['set', 'an', 'alarm', 'for', 'the']);
    assert.deepEqual(normalisedWords('  SET AN ALARM  FOR THE '), ['set', 'an', 'alarm', 'for', 'the']);
    for (const text of ['Set an alarm for the...', 'SET AN ALARM FOR THE', 'Call my,', 'And, um…', 'Set a timer for—uh', '"the"']) assert.ok(endsDangling(text), text);
    // An apostrophe inside a word stays ("it's" is not "its"); a typographic one reads as plain.
    assert.deepEqual(normalisedWords('It’s in its'), ["it's", 'in', 'its']);
    assert.equal(danglingWord('what is its'), 'its');
    assert.equal(danglingWord('I know it’s'), null);
  });
});

describe('dangling word (the end-of-turn policy)', () => {
  it('holdFor: the words hold the pause when they dangle; no words, nothing holds', () => {
    assert.equal(holdFor('set an alarm for the'), 'dangling-word');
    assert.equal(holdFor('set an alarm for seven'), null);
    assert.equal(holdFor(null), null);
  });

  it('a finished-sounding verdict on dangling words is a hold: silence runs to the ceiling', () => {
    const p = new TurnEndPolicy(() => true);
    p.onPause(1000);
    const id = p.due(1200, cfg)!;
    assert.equal(p.verdict(id, 0.99, cfg, 'dangling-word'), 'wait');
    assert.equal(p.silenceMs(cfg), 1600);
    p.onPause(3000);
    assert.equal(p.verdict(p.due(3200, cfg)!, 0.99, cfg, null), 'end', 'the same verdict on finished words ends the turn');
  });

  it('the endpoint replay honours a recorded hold at any threshold', () => {
    // Speech 0.5-1.5 s, then silence to 4 s; one check 200 ms into the pause.
    const trace: VadPoint[] = [];
    for (let t = 32; t <= 4000; t += 32) trace.push({ t, p: t > 500 && t <= 1500 ? 0.9 : 0.05 });
    const s = { ...cfg, vadThreshold: 0.5, minSpeechMs: 200, maxTurnMs: 30000 };
    const at = { atMs: 1728, probability: 0.93 };
    const ended = replayEndpointing(trace, s, { loaded: true, checks: [at] });
    assert.equal(ended.turns[0]!.reason, 'turn-model');
    for (const turnThreshold of [0.5, 0.1]) {
      const held = replayEndpointing(trace, { ...s, turnThreshold }, { loaded: true, checks: [{ ...at, heldBy: 'dangling-word' }] });
      assert.equal(held.turns[0]!.reason, 'silence');
      const waited = held.turns[0]!.endMs - held.turns[0]!.speechEndMs;
      assert.ok(waited >= 1600 - 32 && waited <= 1600 + 32, `${waited}`);
    }
  });
});
