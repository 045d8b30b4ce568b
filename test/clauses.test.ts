import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClauseSplitter, type Clause, type ClauseSplitterOptions } from '../electron/text/clauses';
import { heardPrefix } from '../electron/text/heard';

function splitWhole(text: string, opts?: ClauseSplitterOptions): Clause[] {
  const s = new ClauseSplitter(opts);
  return [...s.push(text), ...s.flush()];
}

/** Deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

function splitChunked(text: string, seed: number, opts?: ClauseSplitterOptions): Clause[] {
  const rand = rng(seed);
  const s = new ClauseSplitter(opts);
  const out: Clause[] = [];
  for (let i = 0; i < text.length; ) {
    const k = 1 + Math.floor(rand() * 3);
    out.push(...s.push(text.slice(i, i + k)));
    i += k;
  }
  out.push(...s.flush());
  assert.equal(s.rawText, text);
  return out;
}

function texts(cs: Clause[]): string[] {
  return cs.map((c) => c.text);
}

function checkInvariants(raw: string, cs: Clause[]): void {
  let prevEnd = 0;
  cs.forEach((c, i) => {
    assert.equal(c.index, i, 'indices are consecutive from 0');
    assert.ok(c.text.length > 0, 'clause text is non-empty');
    assert.ok(c.sourceStart >= prevEnd, 'clauses do not overlap and are ordered');
    assert.ok(c.sourceEnd > c.sourceStart);
    assert.ok(c.sourceEnd <= raw.length);
    prevEnd = c.sourceEnd;
  });
}

const PARAGRAPH = `**Sure!** Here's a quick overview of the plan, with some details. Dr. Smith measured 3.5 kg, e.g. in the lab, vs. 4.2 kg at home. Well... maybe not. Really?! Yes.

## Steps
1. Install it from https://www.example.com/download.
2. Run \`npm test\` *laughs* and wait 10 minutes.
- A bullet with [a link](https://x.org/a_b) inside 🎉

\`\`\`ts
const x = 1. Hello. World; // SECRET_CODE
if (a, b) { return "Never. Spoken!"; }
\`\`\`

That's all, folks: thanks for listening, and have a great day without any final punctuation`;

test('sentence ends split; abbreviations and decimals do not', () => {
  const cs = splitWhole('Dr. Smith paid 3.5 dollars, e.g. for tea. Mr. Jones, i.e. the other one, left. Done etc. ok.', {
    firstClauseMinChars: 1000, // isolate sentence ends from the early-comma rule
  });
  assert.deepEqual(texts(cs), [
    'Dr. Smith paid 3.5 dollars, e.g. for tea.',
    'Mr. Jones, i.e. the other one, left.',
    'Done etc. ok.',
  ]);
});

test('question, exclamation, ellipsis, closers and CJK', () => {
  assert.deepEqual(texts(splitWhole('Really?! Yes. "Quoted." (Aside.) Next')), [
    'Really?!',
    'Yes.',
    '"Quoted."',
    'Aside.',
    'Next',
  ]);
  assert.deepEqual(texts(splitWhole('Well... I see. And so... it goes.')), ['Well...', 'I see.', 'And so... it goes.']);
  assert.deepEqual(texts(splitWhole('你好。今天天气很好！是吗？')), ['你好。', '今天天气很好！', '是吗？']);
});

test('numbers at line start are list markers, mid-line they can end a sentence', () => {
  assert.deepEqual(texts(splitWhole('1. First step.\n2. Second step')), ['First step.', 'Second step']);
  assert.deepEqual(texts(splitWhole('It was built in 2023. Then it grew.')), ['It was built in 2023.', 'Then it grew.']);
});

test('line breaks, paragraphs and list items are boundaries', () => {
  assert.deepEqual(texts(splitWhole('Intro line\n\n- apples\n- pears\n\nOutro')), ['Intro line', 'apples', 'pears', 'Outro']);
});

test('first clause breaks early at a comma once long enough; later ones need minChars', () => {
  const s = new ClauseSplitter();
  assert.deepEqual(s.push('Okay, so the weather tomorrow'), []);
  // "Okay," was too short; this comma comes after >= 20 chars and is followed by a space.
  const first = s.push(' looks great, ');
  assert.deepEqual(texts(first), ['Okay, so the weather tomorrow looks great,']);
  const rest = [...s.push('with sun all day, light wind, and a high of twenty. '), ...s.flush()];
  assert.deepEqual(texts(rest), ['with sun all day, light wind, and a high of twenty.']);

  const long = splitWhole(
    'First. This second clause is long enough to pass sixty characters here, so it breaks at the comma.',
  );
  assert.deepEqual(texts(long), [
    'First.',
    'This second clause is long enough to pass sixty characters here,',
    'so it breaks at the comma.',
  ]);
  // Commas in numbers and colons in times are not breaks.
  assert.deepEqual(texts(splitWhole('We counted exactly 1,000,000 stars at 10:30 tonight, amazing')), [
    'We counted exactly 1,000,000 stars at 10:30 tonight,',
    'amazing',
  ]);
});

test('custom thresholds are honoured', () => {
  assert.deepEqual(texts(splitWhole('Hi, there, friend', { firstClauseMinChars: 2 })), ['Hi,', 'there, friend']);
});

test('emits as soon as a boundary is certain, not before', () => {
  const s = new ClauseSplitter();
  assert.deepEqual(s.push('Hello there.'), [], 'a final "." may still be "3.5" or "..."');
  assert.deepEqual(texts(s.push(' How')), ['Hello there.']);
  assert.deepEqual(s.push(' are you'), []);
  assert.deepEqual(texts(s.push('?\n')), ['How are you?']);
  assert.deepEqual(s.push('Dr.'), []);
  assert.deepEqual(s.push(' Who'), [], 'abbreviation does not end the clause');
  assert.deepEqual(texts(s.flush()), ['Dr. Who']);
  assert.deepEqual(s.flush(), [], 'flush is idempotent');
  assert.throws(() => s.push('more'));
});

test('flush emits text without final punctuation', () => {
  assert.deepEqual(texts(splitWhole('no punctuation at all')), ['no punctuation at all']);
  const s = new ClauseSplitter();
  assert.deepEqual(s.push('Trailing dot.'), []);
  assert.deepEqual(texts(s.flush()), ['Trailing dot.']);
});

test('code fences split across deltas are never spoken', () => {
  const cs = splitChunked(PARAGRAPH, 7);
  checkInvariants(PARAGRAPH, cs);
  for (const c of cs) {
    assert.doesNotMatch(c.text, /SECRET|Never|const|return|```/);
  }
  assert.ok(texts(cs).includes('Run npm test and wait 10 minutes.'));
  // Fence markers arriving one backtick at a time.
  const s = new ClauseSplitter();
  const out: Clause[] = [];
  for (const d of ['Look', ':\n', '`', '`', '`', 'py', '\npri', 'nt("Hi. ', 'There.")\n', '`', '``', '\nAfter. ', 'End']) {
    out.push(...s.push(d));
  }
  out.push(...s.flush());
  assert.deepEqual(texts(out), ['Look:', 'After.', 'End']);
  // Unterminated fence: nothing of it is spoken.
  assert.deepEqual(texts(splitWhole('Here:\n```\nsecret. code. here')), ['Here:']);
  // Tilde fences and longer closing fences.
  assert.deepEqual(texts(splitWhole('A.\n~~~\nx. y.\n~~~~\nB.')), ['A.', 'B.']);
  // Inline code is spoken, and its punctuation does not split.
  assert.deepEqual(texts(splitWhole('Call `a. b()` now. Then stop.')), ['Call a. b now.', 'Then stop.']);
});

test('codeBlockText speaks a stand-in covering the fence', () => {
  const raw = 'Here it is:\n```js\nlet a = 1;\n```\nDone.';
  const cs = splitWhole(raw, { codeBlockText: 'Here is the code.' });
  assert.deepEqual(texts(cs), ['Here it is:', 'Here is the code.', 'Done.']);
  const code = cs[1]!;
  assert.equal(raw.slice(code.sourceStart, code.sourceEnd), '```js\nlet a = 1;\n```');
  checkInvariants(raw, cs);
});

test('markdown, URLs, emoji and stage directions are cleaned per clause', () => {
  const cs = splitWhole(
    '**Note:** see [the guide](https://example.com/guide). Visit https://www.github.com/a/b. Great! 🎉\n*laughs*\n(sighs) Fine.',
  );
  assert.deepEqual(texts(cs), ['Note: see the guide.', 'Visit github dot com.', 'Great!', 'Fine.']);
});

test('token-by-token streaming gives the same clauses as pushing whole', () => {
  const whole = splitWhole(PARAGRAPH);
  checkInvariants(PARAGRAPH, whole);
  for (let seed = 1; seed <= 40; seed++) {
    assert.deepEqual(splitChunked(PARAGRAPH, seed), whole, `seed ${seed}`);
  }
  // One character at a time, with a stand-in for code.
  const opts = { codeBlockText: 'Code.' };
  const s = new ClauseSplitter(opts);
  const out: Clause[] = [];
  for (const ch of PARAGRAPH) out.push(...s.push(ch));
  out.push(...s.flush());
  assert.deepEqual(out, splitWhole(PARAGRAPH, opts));
});

test('offsets: prefix property and ordering', () => {
  const cs = splitWhole(PARAGRAPH);
  checkInvariants(PARAGRAPH, cs);
  for (const c of cs) {
    const slice = PARAGRAPH.slice(c.sourceStart, c.sourceEnd);
    assert.equal(slice, slice.trim(), 'clause source has no outer whitespace');
    // The raw text up to the clause end contains the clause's raw source as its tail.
    assert.ok(PARAGRAPH.slice(0, c.sourceEnd).endsWith(slice));
  }
  // Everything speakable lies inside some clause: the gaps hold only markup.
  let prev = 0;
  for (const c of cs) {
    const gap = PARAGRAPH.slice(prev, c.sourceStart);
    assert.doesNotMatch(gap.replace(/```[\s\S]*?```/g, ''), /[A-Za-z]{2}/, `gap ${JSON.stringify(gap)}`);
    prev = c.sourceEnd;
  }
  assert.equal(cs[0]!.sourceStart, 0);
  assert.equal(PARAGRAPH.slice(0, cs[0]!.sourceEnd), '**Sure!**');
});

test('overlong clauses are split at word boundaries within maxChars', () => {
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
  const raw = `${words} end.`;
  const cs = splitWhole(raw, { maxChars: 50 });
  assert.ok(cs.length > 5);
  checkInvariants(raw, cs);
  for (const c of cs) {
    assert.ok(c.text.length <= 50, `too long: ${c.text.length}`);
    const after = raw[c.sourceEnd];
    assert.ok(after === undefined || /\s/.test(after), 'cut at a word boundary');
  }
  assert.equal(cs.map((c) => c.text).join(' '), raw);
  for (let seed = 1; seed <= 10; seed++) assert.deepEqual(splitChunked(raw, seed, { maxChars: 50 }), cs);
  // The default limit also applies.
  for (const c of splitWhole(raw)) assert.ok(c.text.length <= 220);
});

test('maxChars does not cut inside a link label', () => {
  const raw = `${'lorem '.repeat(6)}[a very long link label here](https://example.com) tail words follow now`;
  const cs = splitWhole(raw, { maxChars: 40 });
  for (const c of cs) assert.doesNotMatch(c.text, /\]|\(|https/);
  assert.ok(cs.some((c) => c.text.includes('a very long link label here')));
});

test('heardPrefix: full clauses plus a word-aligned fraction, always a raw prefix', () => {
  const cs = splitWhole(PARAGRAPH);
  assert.equal(heardPrefix(PARAGRAPH, cs, 0, 0), '');
  assert.equal(heardPrefix(PARAGRAPH, cs, 1, 0), '**Sure!**');
  assert.equal(heardPrefix(PARAGRAPH, cs, 1, 1), PARAGRAPH.slice(0, cs[1]!.sourceEnd));
  assert.equal(heardPrefix(PARAGRAPH, cs, cs.length, 0.5), PARAGRAPH.slice(0, cs.at(-1)!.sourceEnd));
  assert.equal(heardPrefix(PARAGRAPH, cs, 99, 0), PARAGRAPH.slice(0, cs.at(-1)!.sourceEnd));
  assert.equal(heardPrefix(PARAGRAPH, [], 3, 0.5), '');
  assert.equal(heardPrefix(PARAGRAPH, cs, 1, 0.5), "**Sure!** Here's a quick overview of");
  for (let played = 0; played <= cs.length; played++) {
    for (const f of [0, 0.01, 0.1, 0.33, 0.5, 0.77, 0.99, 1, -1, 2, Number.NaN]) {
      const h = heardPrefix(PARAGRAPH, cs, played, f);
      assert.ok(PARAGRAPH.startsWith(h), 'is a prefix');
      assert.equal(h, h.trimEnd(), 'trailing whitespace trimmed');
      const base = played > 0 ? PARAGRAPH.slice(0, cs[played - 1]!.sourceEnd) : '';
      assert.ok(h.startsWith(base), 'includes all played clauses');
      if (h.length > 0 && h.length < PARAGRAPH.length) {
        const next = PARAGRAPH[h.length]!;
        const endsClause = cs.some((c) => c.sourceEnd === h.length);
        assert.ok(endsClause || /\s/.test(next), `mid-word cut: ${JSON.stringify(h.slice(-10) + '|' + next)}`);
      }
    }
  }
  // Fraction never reaches past the next clause.
  const h = heardPrefix(PARAGRAPH, cs, 2, 0.9);
  assert.ok(h.length <= cs[2]!.sourceEnd);
  // A fraction too small to cover one word adds nothing.
  assert.equal(heardPrefix('Hello wonderful world.', splitWhole('Hello wonderful world.'), 0, 0.1), '');
});

// Issue 24 (hostile inputs): one 20 MB answer chunk with no punctuation made the voice try to
// allocate 47 GB. Clauses stay within maxChars whatever the answer, and splitting stays linear.

/** Pushes `text` in `step`-character deltas, yielding now and then (so a test's timeout can fire); checks as it goes. */
async function splitStreamed(text: string, step: number, opts?: ClauseSplitterOptions, onClause?: (c: Clause, received: number) => void): Promise<Clause[]> {
  const s = new ClauseSplitter(opts);
  const out: Clause[] = [];
  for (let i = 0, n = 0; i < text.length; i += step, n++) {
    for (const c of s.push(text.slice(i, i + step))) {
      onClause?.(c, Math.min(text.length, i + step));
      out.push(c);
    }
    if (n % 4096 === 4095) await new Promise((r) => setImmediate(r));
  }
  out.push(...s.flush());
  return out;
}

function checkBounded(raw: string, cs: Clause[], max = 220): void {
  checkInvariants(raw, cs);
  for (const c of cs) assert.ok(c.text.length <= max, `a clause of ${c.text.length} chars`);
}

test('a 20 MB chunk with no space or punctuation comes out as clauses within maxChars, none lost', (t) => {
  const raw = 'a'.repeat(20_000_000);
  const t0 = performance.now();
  const s = new ClauseSplitter();
  const cs = [...s.push(raw), ...s.flush()];
  t.diagnostic(`20 MB in one delta: ${cs.length} clauses in ${(performance.now() - t0).toFixed(0)} ms`);
  checkBounded(raw, cs);
  assert.equal(cs.length, Math.ceil(20_000_000 / 220));
  assert.equal(cs.map((c) => c.text).join(''), raw);
});

test('1 MB in 1- and 64-character deltas: each clause as soon as it is due, the same clauses as in one delta', { timeout: 120_000 }, async (t) => {
  for (const raw of ['a'.repeat(1_000_000), 'word '.repeat(200_000)]) {
    const whole = splitWhole(raw);
    checkBounded(raw, whole);
    for (const step of [1, 64]) {
      const t0 = performance.now();
      let latest = 0;
      const cs = await splitStreamed(raw, step, {}, (c, received) => {
        // A clause comes out within a clause's length (plus a delta) of its end arriving.
        assert.ok(received - c.sourceEnd <= 221 + step, `clause ending at ${c.sourceEnd} came out at ${received}`);
        latest = received;
      });
      t.diagnostic(`${JSON.stringify(raw.slice(0, 5))}… 1 MB in ${step}-char deltas: ${cs.length} clauses in ${(performance.now() - t0).toFixed(0)} ms`);
      assert.ok(latest > raw.length - 1000, 'clauses came out while the text streamed in');
      assert.deepEqual(cs, whole);
    }
  }
});

test('hostile runs in 1-character deltas (punctuation, backticks, spaces, brackets, a long code line) end and stay bounded', { timeout: 120_000 }, async (t) => {
  const cases: Record<string, string> = {
    exclamations: '!'.repeat(200_000),
    dots: '. '.repeat(100_000),
    backticks: '`'.repeat(200_000),
    spaces: ' '.repeat(200_000),
    brackets: '[a '.repeat(70_000),
    'code line': `Here:\n\`\`\`\n${'x'.repeat(200_000)}\n\`\`\`\nDone.`,
    'unclosed fence': `\`\`\`${'y'.repeat(200_000)}`,
    expanding: '50% '.repeat(50_000),
  };
  for (const [name, raw] of Object.entries(cases)) {
    const t0 = performance.now();
    const cs = await splitStreamed(raw, 1);
    t.diagnostic(`${name}: ${raw.length} chars, ${cs.length} clauses in ${(performance.now() - t0).toFixed(0)} ms`);
    checkBounded(raw, cs);
    assert.deepEqual(cs, splitWhole(raw), name);
  }
  assert.deepEqual(texts(await splitStreamed(cases['code line']!, 1)), ['Here:', 'Done.']);
});

test('random markdown soup: the same clauses however it is cut into deltas, each within maxChars', () => {
  const parts = ['Hello', 'weather', 'a'.repeat(300), '!'.repeat(80), '`'.repeat(70), ' '.repeat(80), '\n```\n', 'e.g.', '3.5',
    '**bold**', '[a link](https://example.com/x)', 'https://www.github.com/a/b', '`code`', '1,000', '—', '50%', '20°C', 'U.S.',
    '...', '!', '?', ',', '.', '\n', '- ', '1. ', '> ', '(sighs)', '🎉', '漢字', '。', '，', '&', '#5', '→', '[[', ']]'];
  for (let seed = 1; seed <= 150; seed++) {
    const rand = rng(seed);
    let raw = '';
    for (let k = 0, n = 5 + Math.floor(rand() * 150); k < n; k++) raw += parts[Math.floor(rand() * parts.length)]! + (rand() < 0.7 ? ' ' : '');
    const opts = { maxChars: 32 + Math.floor(rand() * 200) };
    const whole = splitWhole(raw, opts);
    checkBounded(raw, whole, opts.maxChars);
    assert.deepEqual(splitChunked(raw, seed, opts), whole, `seed ${seed}`);
  }
});

describe('the first chunk by words (tts.firstChunkWords)', () => {
  const split = (text: string, words: number) => {
    const s = new ClauseSplitter({ firstClauseWords: words });
    const out = [...text].flatMap((ch) => s.push(ch).map((c) => c.text));
    return [...out, ...s.flush().map((c) => c.text)];
  };
  test('the first clause ends after that many words, the rest by punctuation as before', () => {
    assert.deepEqual(split("It's mostly sunny today with a light breeze from the west. Tomorrow looks the same.", 4), [
      "It's mostly sunny today",
      'with a light breeze from the west.',
      'Tomorrow looks the same.',
    ]);
  });
  test('a sentence shorter than that many words is still one clause', () => {
    assert.deepEqual(split('Sure. Here it is.', 4), ['Sure.', 'Here it is.']);
  });
  test('0 keeps the whole first clause', () => {
    assert.deepEqual(split("It's mostly sunny today with a light breeze from the west.", 0), ["It's mostly sunny today with a light breeze from the west."]);
  });
});
