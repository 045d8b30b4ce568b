/** The Memory panel's pure model (renderer/model/memory.ts): dates, order, labels, the questions and the server sentence. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';
import { clearQuestion, deleteLabel, formatFactDate, newestFirst, serverSentence, shortFact } from '../renderer/model/memory';

const fact = (id: string, text: string) => ({ id, text, said: '2026-12-07T12:00:00.000Z' });

describe('the Memory panel model', () => {
  it('dates a fact on the local calendar, the same in any locale', () => {
    assert.equal(formatFactDate(new Date(2026, 11, 7, 23, 59).toISOString()), '7 Dec 2026');
    assert.equal(formatFactDate(new Date(2026, 8, 1, 0, 1).toISOString()), '1 Sep 2026');
    assert.equal(formatFactDate('not a date'), '');
  });

  it('lists the newest first without changing the book', () => {
    const facts = [fact('f1', 'a'), fact('f2', 'b'), fact('f3', 'c')];
    assert.deepEqual(newestFirst(facts).map((f) => f.id), ['f3', 'f2', 'f1']);
    assert.deepEqual(facts.map((f) => f.id), ['f1', 'f2', 'f3']);
  });

  it("names the fact in its Delete button, a long one cut at a word", () => {
    assert.equal(deleteLabel('I am vegetarian'), 'Delete “I am vegetarian”');
    const long = `my sister ${'really '.repeat(80)}likes tea`;
    const short = shortFact(long);
    assert.ok(short.length <= 61 && short.endsWith('…') && !short.includes('reall…'), short);
    assert.equal(shortFact('x'.repeat(100)), `${'x'.repeat(60)}…`);
  });

  it('asks before Clear all: how many facts go, or what happens to a file that could not be used', () => {
    assert.equal(clearQuestion({ facts: [fact('f1', 'a')], problem: null }), 'Forget the one fact? This cannot be undone.');
    assert.equal(clearQuestion({ facts: [fact('f1', 'a'), fact('f2', 'b')], problem: null }), 'Forget all 2 facts? This cannot be undone.');
    assert.match(clearQuestion({ facts: [], problem: 'Your memory file … is not valid JSON.' }), /kept aside, not deleted/);
  });

  it('says the facts go to the server only when the language model runs on one', () => {
    assert.equal(serverSentence(DEFAULT_SETTINGS.llm), null);
    assert.equal(serverSentence(undefined), null);
    const llm = { ...DEFAULT_SETTINGS.llm, provider: 'openai-compatible' as const, server: { ...DEFAULT_SETTINGS.llm.server, baseUrl: 'http://gpu-box:11434/v1' } };
    assert.equal(serverSentence(llm), 'The language model runs on a server at http://gpu-box:11434/v1: while memory is on, these facts are sent to it as part of the prompt.');
  });
});
