/**
 * Telling an acknowledgement from an interruption by the recognizer's words alone (pure): real
 * recognizers' spellings, the shared stand-in's odd ones ("em meam hrme" for "mm hmm"), interim
 * words that stop mid-word, and the setting's own list.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_ACKNOWLEDGEMENTS, judgeWords, parseAcknowledgements } from '../electron/pipeline/respond/acknowledgement';

const list = parseAcknowledgements(DEFAULT_ACKNOWLEDGEMENTS);
const judge = (text: string) => judgeWords(text, list);

describe('acknowledgement words (pure)', () => {
  it('acknowledgements as real recognizers write them pass, alone or a few together', () => {
    for (const t of ['mm-hmm', 'Mhm.', 'uh huh', 'yeah', 'Yes!', 'right', 'okay', 'OK', 'I see', 'sure', 'got it', 'all right', 'uh-huh, yeah, okay', 'hmm'])
      assert.equal(judge(t), 'acknowledgement', t);
  });

  it("the stand-in recognizer's hums and cut words pass; so does one letter off a longer word", () => {
    for (const t of ['em', 'em meam', 'em meam hrm', 'em meam hrme', 'em mem home', 'mm more', 'ye', 'ok', 'r', 'okey', 'yeh', 'rigt']) assert.equal(judge(t), 'acknowledgement', t);
  });

  it('a word that is no acknowledgement is an interruption, from its first letters', () => {
    for (const t of ['whe', 'whehte tell me', 'wha', 'st', 'sto', 'stop', 'no', 'wait', 'what time is it', 'yeah but', 'okay tell me more', 'night', 'i want'])
      assert.equal(judge(t), 'interruption', t);
  });

  it('real words spelled with humming sounds are words, not hums, unless plain hums outnumber them ("em mem home" through the browser)', () => {
    for (const t of ['more', 'her', 'home', 'me', 'home more', 'him her mm']) assert.equal(judge(t), 'interruption', t);
  });

  it('more than four acknowledgement-like words is someone talking', () => {
    assert.equal(judge('yeah yeah okay right'), 'acknowledgement');
    assert.equal(judge('yeah yeah okay right sure'), 'interruption');
  });

  it('no words is neither', () => {
    assert.equal(judge(''), 'none');
    assert.equal(judge(' ... '), 'none');
  });

  it('the list is the setting: phrases separated by commas, case and punctuation ignored', () => {
    const own = parseAcknowledgements(' Genau , na klar,,');
    assert.deepEqual(own, [['genau'], ['na', 'klar']]);
    assert.equal(judgeWords('genau', own), 'acknowledgement');
    assert.equal(judgeWords('Na klar.', own), 'acknowledgement');
    assert.equal(judgeWords('yeah', own), 'interruption', 'only the listed phrases (and hums)');
    assert.equal(judgeWords('mm', own), 'acknowledgement');
  });
});
