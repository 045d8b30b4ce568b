import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { looksSecret, MAX_FACT_CHARS, MAX_FACTS, MAX_FACTS_BYTES, MemoryBook } from '../electron/memory/memory-book';
import { estimateTokens, MEMORY_HEADING, memorySection, withMemory } from '../electron/memory/memory-prompt';
import { tokenize as contentTerms } from '../electron/memory/bm25';
import { parseWhen, toSecondPerson } from '../electron/memory/memory-words';

const DAY = '2026-12-07T09:00:00.000Z';

describe('MemoryBook', () => {
  it('keeps facts in order, the same fact once (moved to the end with its new date)', () => {
    const b = new MemoryBook();
    b.remember('my sister is called Anna', DAY);
    b.remember("I'm vegetarian.", DAY);
    const again = b.remember('My sister is called anna', '2026-12-08T09:00:00.000Z');
    assert.ok('kept' in again && again.again);
    assert.deepEqual(
      b.facts.map((f) => [f.text, f.said.slice(0, 10)]),
      [
        ["I'm vegetarian", '2026-12-07'],
        ['My sister is called anna', '2026-12-08'],
      ],
    );
  });

  it('refuses empty, too long and secret-looking facts, and keeps nothing of them', () => {
    const b = new MemoryBook();
    assert.deepEqual(b.remember('  ', DAY), { refused: 'empty' });
    assert.deepEqual(b.remember('x'.repeat(MAX_FACT_CHARS + 1), DAY), { refused: 'too-long' });
    for (const secret of ['my api key is sk-proj-abcdefghijklmnop1234', 'the password is hunter2', 'token ghp_0123456789abcdefghijABCDEFGHIJ', 'AKIAABCDEFGHIJKLMNOP is the key', 'use Zx9a8B7c6D5e4F3g2H1i0JkLmN']) {
      assert.deepEqual(b.remember(secret, DAY), { refused: 'secret' }, secret);
    }
    assert.equal(b.facts.length, 0);
    assert.ok(!looksSecret('my sister is called Anna and her birthday is on May 3rd'));
  });

  it(`keeps at most ${MAX_FACTS} facts and ${MAX_FACTS_BYTES} bytes, the oldest giving way (and named)`, () => {
    const b = new MemoryBook();
    for (let i = 0; i < MAX_FACTS; i++) b.remember(`fact number ${i}`, DAY);
    const r = b.remember('one more', DAY);
    assert.ok('kept' in r);
    assert.deepEqual(r.dropped.map((f) => f.text), ['fact number 0']);
    assert.equal(b.facts.length, MAX_FACTS);
    const big = new MemoryBook();
    let dropped = 0;
    for (let i = 0; i < 60; i++) {
      const x = big.remember(`${i} ${'long words '.repeat(40)}`, DAY);
      if ('kept' in x) dropped += x.dropped.length;
    }
    assert.ok(big.facts.reduce((n, f) => n + Buffer.byteLength(f.text) + 1, 0) <= MAX_FACTS_BYTES);
    assert.equal(big.facts.length + dropped, 60);
    assert.match(big.facts.at(-1)!.text, /^59 /);
  });

  it('forgets exactly the facts that hold every content word asked about', () => {
    const b = new MemoryBook();
    b.remember('my sister is called Anna', DAY);
    b.remember("my sister's birthday is on May 3rd", DAY);
    b.remember("I'm vegetarian", DAY);
    b.remember('my brother is called Tom', DAY);
    assert.deepEqual(b.forget('that').map((f) => f.text), []);
    assert.deepEqual(b.forget('my sisters').map((f) => f.text), ['my sister is called Anna', "my sister's birthday is on May 3rd"]);
    assert.deepEqual(b.facts.map((f) => f.text), ["I'm vegetarian", 'my brother is called Tom']);
    assert.equal(b.clear().length, 2);
    assert.equal(b.facts.length, 0);
  });

  it('round-trips through its file text, one fact a line, and refuses bad or newer files', () => {
    const b = new MemoryBook();
    b.remember('my sister is called Anna', DAY);
    b.remember('she likes "tea"', DAY);
    const text = b.toFileText();
    assert.equal(text.split('\n').filter((l) => l.includes('"text"')).length, 2);
    assert.deepEqual(MemoryBook.fromJSON(JSON.parse(text)).facts.map((f) => f.text), ['my sister is called Anna', 'she likes "tea"']);
    assert.throws(() => MemoryBook.fromJSON({ version: 2, facts: [] }), /newer version/);
    assert.throws(() => MemoryBook.fromJSON([]), /not a JSON object/);
    assert.throws(() => MemoryBook.fromJSON({ version: 1, facts: [{ text: 'x' }] }), /fact 1/);
    assert.throws(() => MemoryBook.fromJSON({ version: 1, facts: [{ text: 'x', said: 'never' }] }), /not a date/);
  });
});

describe('the memory in the system prompt', () => {
  const facts = (n: number) => {
    const b = new MemoryBook();
    for (let i = 0; i < n; i++) b.remember(`fact ${i}: the user likes the colour number ${i} and ${'words '.repeat(i % 7)}`, DAY);
    return b.facts;
  };

  it('holds the newest facts that fit in maxTokens, dated, after the prompt', () => {
    for (const max of [0, 30, 100, 400, 4000]) {
      const s = memorySection(facts(200), max);
      assert.ok(s.tokens <= max, `${s.tokens} <= ${max}`);
      assert.equal(s.tokens, estimateTokens(s.text));
      if (s.facts > 0) assert.match(s.text, /fact 199: .* \(2026-12-07\)$/);
    }
    assert.equal(memorySection(facts(200), 0).text, '');
    assert.equal(withMemory('Be brief.', memorySection([], 400)), 'Be brief.');
    assert.ok(withMemory('Be brief.', memorySection(facts(2), 400)).startsWith(`Be brief.\n\n${MEMORY_HEADING}\n- fact 0`));
  });

  it('stays within the budget when the tokenizer merges across lines', () => {
    // A counter that charges the joined text more than its lines: the whole is checked at the end.
    const count = (t: string) => Math.ceil(t.length / 3) + (t.split('\n').length - 1) * 3;
    const s = memorySection(facts(50), 300, count);
    assert.ok(s.facts > 0 && count(s.text) <= 300);
  });
});

describe('memory words', () => {
  it('content terms leave common words out and take endings off', () => {
    assert.deepEqual(contentTerms("What I said about my sister's trips"), ['sister', 'trip']);
  });
  it('says a fact back in the second person', () => {
    assert.equal(toSecondPerson("I'm vegetarian and my sister is at 7 am"), "you're vegetarian and your sister is at 7 am");
    assert.equal(toSecondPerson('I am sure I was right'), 'you are sure you were right');
  });
  it('finds the day a question points to, on the local calendar', () => {
    const now = new Date(2026, 11, 7, 15, 0);
    const y = parseWhen('the trip yesterday', now)!;
    assert.equal(y.rest, 'the trip');
    assert.equal(y.fromMs, new Date(2026, 11, 6).getTime());
    assert.equal(y.toMs, new Date(2026, 11, 7).getTime());
    assert.equal(parseWhen('the trip', now), null);
  });
});
