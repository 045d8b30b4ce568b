/** Cutting text down to what one synthesis call may get (issue 24, hostile inputs: a 20 MB answer). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClauseSplitter } from '../electron/text/clauses';
import { toSpeakable } from '../electron/text/speakable';
import { MAX_SPOKEN_CHARS, maySpeak, speakableWeight, splitForSpeech } from '../electron/text/speech-limits';

function pieces(text: string, max: number): string[] {
  return splitForSpeech(text, max).map((p) => text.slice(p.start, p.end));
}

test('splitForSpeech prefers a sentence end, then a comma, then a space, in the back half of the limit', () => {
  assert.deepEqual(pieces('One two three. Four five, six seven eight nine', 30), ['One two three. Four five,', 'six seven eight nine']);
  assert.deepEqual(pieces('Alpha beta gamma, delta. Epsilon zeta eta theta', 30), ['Alpha beta gamma, delta.', 'Epsilon zeta eta theta']);
  assert.deepEqual(pieces('alpha beta gamma delta epsilon zeta eta', 20), ['alpha beta gamma', 'delta epsilon zeta', 'eta']);
  // A comma too early (before half the limit) is passed over for a later space.
  assert.deepEqual(pieces('Hi, alpha beta gamma delta epsilon', 24), ['Hi, alpha beta gamma', 'delta epsilon']);
  assert.deepEqual(pieces('  short  ', 20), ['short']);
  assert.deepEqual(pieces('   ', 20), []);
});

test('splitForSpeech cuts a word longer than the limit where the limit falls, never inside a surrogate pair', () => {
  assert.deepEqual(pieces('a'.repeat(25), 10), ['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
  const emoji = '😀'.repeat(7); // 14 UTF-16 units
  const cut = pieces(emoji, 5);
  assert.equal(cut.join(''), emoji);
  for (const p of cut) {
    assert.ok(p.length <= 5);
    assert.equal([...p].join(''), p);
    assert.ok(!/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(p), `a piece splits a character: ${JSON.stringify(p)}`);
  }
});

test('splitForSpeech on 20 MB: every piece within the limit, nothing lost, in one pass', (t) => {
  const words = 'word '.repeat(4_000_000);
  const t0 = performance.now();
  const cut = splitForSpeech(words, MAX_SPOKEN_CHARS);
  t.diagnostic(`20 MB of words: ${cut.length} pieces in ${(performance.now() - t0).toFixed(0)} ms`);
  let total = 0;
  let prev = 0;
  for (const p of cut) {
    assert.ok(p.end - p.start <= MAX_SPOKEN_CHARS && p.end > p.start && p.start >= prev);
    total += words.slice(p.start, p.end).replace(/ /g, '').length;
    prev = p.end;
  }
  assert.equal(total, 16_000_000);
});

test('speakableWeight bounds what toSpeakable makes of a text', () => {
  const samples = [
    'Visit www.example.com today',
    'john.smith@example.co.uk',
    '50% at 20°C ± 2, 3*4 & more',
    '#5 ~10 a→b a->b 1–2 x — y',
    '| a | b |',
    '[](x) and [a link](https://example.com/path)',
    '**bold** _it_ `code` *laughs* (sighs) 🎉',
  ];
  for (const s of samples) {
    let bound = 0;
    for (let i = 0; i < s.length; i++) bound += speakableWeight(s.charCodeAt(i));
    assert.ok(toSpeakable(s).length <= bound, `${JSON.stringify(s)}: ${toSpeakable(s).length} > ${bound}`);
  }
});

test('maySpeak is false only where toSpeakable gives nothing', () => {
  for (const s of ['. . .', '!!!', '* * *', ', ; :', '```', '[]', '— –', '| | |', '🎉 ✨', '~~', '#', '   ']) {
    assert.equal(maySpeak(s), false, s);
    assert.equal(toSpeakable(s), '', s);
  }
  for (const s of ['50%', '20°', '±', '&', '->', '→', '[](x)', 'a', '7']) assert.equal(maySpeak(s), true, s);
});

test('the clause splitter never asks for more than MAX_SPOKEN_CHARS, whatever maxChars says', () => {
  const s = new ClauseSplitter({ maxChars: 100_000 });
  const cs = [...s.push('b'.repeat(5_000)), ...s.flush()];
  assert.ok(cs.length >= 5_000 / MAX_SPOKEN_CHARS);
  for (const c of cs) assert.ok(c.text.length <= MAX_SPOKEN_CHARS, `${c.text.length} chars`);
  assert.equal(cs.map((c) => c.text).join(''), 'b'.repeat(5_000));
});
