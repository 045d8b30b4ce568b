/**
 * Keyword search over the conversation history: BM25 ranks the turn about the trip first, a date
 * range filters, turns logged without their words are counted and never searched, damaged, cut and
 * huge lines are skipped, and a large history is read within its bounds on bytes, turns and memory.
 * No timing is asserted (the machine may be busy); only the bounds are.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { peakRssGrowth, writeHistory } from '../electron/cli/bench-history';
import { listLogFiles, logFileName } from '../electron/history/log-files';
import { formatLogLine } from '../electron/history/log-format';
import { Bm25Index, stem, tokenize } from '../electron/memory/bm25';
import { parseTurnFields, scanTurnFields, searchHistory, SEARCH_BOUNDS } from '../electron/memory/history-search';
import { sampleReport } from './history-fixtures';
import { tempDir } from './helpers';

const root = tempDir('lva-history-search-');
after(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const folder = () => {
  const dir = path.join(root, `h${folders++}`);
  mkdirSync(dir);
  return dir;
};

const SESSION = '2025-03-01T08-00-00Z-abcd';
const DAY = 86_400_000;
const T0 = Date.parse('2025-03-01T09:00:00Z');

function line(atMs: number, userText: string, assistantText = 'okay', texts = true, session = SESSION): string {
  const report = sampleReport({ userText, assistantText, heardText: assistantText });
  return formatLogLine(report, { session, at: new Date(atMs).toISOString(), app: '0.1.0', settingsHash: 'a1b2c3d4e5f6', models: { llm: 'tiny@12345678' }, texts });
}

function writeSession(dir: string, lines: string[], session = SESSION, part = 1): string {
  const file = path.join(dir, logFileName(session, part));
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

const users = (r: { hits: { userText: string }[] }) => r.hits.map((h) => h.userText);

describe('bm25: terms and ranking', () => {
  it('drops the words of asking and of time, and stems plurals, -ing and -ed', () => {
    assert.deepEqual(tokenize('What did I say about the trip yesterday?'), ['trip']);
    assert.deepEqual(tokenize("We talked about Anna's trips, hiking and the hiked hills"), ['anna', 'trip', 'hik', 'hik', 'hill']);
    assert.deepEqual(['planned', 'running', 'boxes', 'cities', 'city', 'glass', 'bus'].map(stem), ['plan', 'run', 'box', 'citi', 'citi', 'glass', 'bus']);
    assert.deepEqual(tokenize(''), []);
  });

  it('scores only documents that share a term, the rarer term weighing more', () => {
    const ix = new Bm25Index();
    ix.add('the weather in Paris');
    ix.add('a trip to Lisbon in May');
    ix.add('the weather in Lisbon');
    ix.add('set a timer');
    const hits = ix.search('trip to Lisbon', 10);
    assert.deepEqual(hits.map((h) => h.id), [1, 2]);
    assert.ok(hits.every((h) => h.score > 0));
    assert.deepEqual(ix.search('xylophone', 10), []);
    assert.deepEqual(ix.search('weather', 1).length, 1);
  });
});

describe('searchHistory', () => {
  it('ranks the turn about the trip first, in rank order, with where and when it was said', async () => {
    const dir = folder();
    writeSession(dir, [
      line(T0, 'what is the weather like today', 'sunny and warm'),
      line(T0 + 60_000, "I'm planning a trip to Lisbon with Anna in May", 'That sounds lovely, Lisbon in May is mild.'),
      line(T0 + 120_000, 'set a timer for ten minutes', 'timer set'),
      line(T0 + 180_000, 'tell me about Lisbon', 'Lisbon is the capital of Portugal.'),
    ]);
    const r = await searchHistory(dir, { words: 'what did I say about the trip to Lisbon' });
    assert.deepEqual(users(r), ["I'm planning a trip to Lisbon with Anna in May", 'tell me about Lisbon']);
    assert.ok(r.hits[0]!.score > r.hits[1]!.score && r.hits[1]!.score > 0);
    assert.equal(r.hits[0]!.at, new Date(T0 + 60_000).toISOString());
    assert.equal(r.hits[0]!.session, SESSION);
    assert.equal(r.turnsRead, 4);
    assert.equal(r.truncated, false);
    // Plural and stem: "trips" finds "trip".
    assert.equal((await searchHistory(dir, { words: 'trips' })).hits[0]?.userText, "I'm planning a trip to Lisbon with Anna in May");
  });

  it('equal scores: the newer turn first, across files', async () => {
    const dir = folder();
    writeSession(dir, [line(T0, 'call the dentist')], '2025-03-01T08-00-00Z-aaaa');
    writeSession(dir, [line(T0 + DAY, 'call the dentist'), line(T0 + 2 * DAY, 'call the dentist')], '2025-03-02T08-00-00Z-bbbb');
    const r = await searchHistory(dir, { words: 'dentist' });
    assert.deepEqual(r.hits.map((h) => Date.parse(h.at)), [T0 + 2 * DAY, T0 + DAY, T0]);
  });

  it('a date range filters before ranking; without terms it gives the latest turns in the range, newest first', async () => {
    const dir = folder();
    writeSession(dir, Array.from({ length: 10 }, (_, d) => line(T0 + d * DAY, `day ${d}: we spoke about the garden`, 'noted')));
    const yesterday = { fromMs: T0 + 8 * DAY - 1, toMs: T0 + 9 * DAY - 1 };
    const onlyRange = await searchHistory(dir, { words: 'what did we talk about yesterday', ...yesterday });
    assert.deepEqual(users(onlyRange), ['day 8: we spoke about the garden']);
    assert.equal(onlyRange.hits[0]!.score, 0);
    const week = await searchHistory(dir, { words: 'garden', fromMs: T0 + 3 * DAY, toMs: T0 + 5 * DAY });
    assert.deepEqual(users(week), ['day 5: we spoke about the garden', 'day 4: we spoke about the garden', 'day 3: we spoke about the garden']);
    assert.equal(week.turnsRead, 3);
    const latest = await searchHistory(dir, { words: 'what did we talk about' });
    assert.equal(latest.hits[0]!.userText, 'day 9: we spoke about the garden');
    assert.equal(latest.hits.length, 5);
  });

  it('turns logged with text logging off are counted, never searched nor returned', async () => {
    const dir = folder();
    // A hand-edited line that says texts: false but still holds words: they stay unsearched.
    const edited = line(T0 + 2000, 'x', 'y', false).replace('"userText":""', '"userText":"the secret trip"');
    writeSession(dir, [line(T0, 'a trip to Rome'), line(T0 + 1000, 'a trip to Oslo', 'ok', false), edited]);
    const r = await searchHistory(dir, { words: 'trip' });
    assert.deepEqual(users(r), ['a trip to Rome']);
    assert.equal(r.textlessTurns, 2);
    assert.equal(r.turnsRead, 3);
    assert.deepEqual(users(await searchHistory(dir, { words: 'what did I say' })), ['a trip to Rome']);
  });

  it('skips damaged, cut and huge lines, reads the rest, and never throws', async () => {
    const dir = folder();
    const good = line(T0, 'the trip to Kyoto', 'Kyoto in autumn');
    const spaced = JSON.stringify(JSON.parse(line(T0 + 1000, 'trip with spaces in the JSON')), null, 1).replace(/\n/g, ' ');
    const file = writeSession(dir, [
      good,
      'not json at all, trip trip trip',
      '{"at":"2025-03-01T09:00:00Z","session":"x","texts":true,"report":{"userText":"trip',
      line(T0 + 2000, 'another trip').replace('"userText":"another trip"', '"userText":5'),
      line(T0 + 3000, 'a trip at no time').replace(/"at":"[^"]+"/, '"at":"never"'),
      `{"x\\"userText":"the fake trip","y":1,${line(T0 + 4000, 'the real trip with a fake key before it').slice(1)}`,
      line(T0 + 5000, 'a "quoted" trip\nover two lines ✈'),
      line(T0 + 6000, `a huge trip ${'z'.repeat(SEARCH_BOUNDS.maxLineChars)}`),
      '',
      '\r',
      spaced,
    ]);
    // The last line cut off while written: its words are there, but not the end of the line.
    appendFileSync(file, line(T0 + 7000, 'the cut trip').slice(0, -40));
    const r = await searchHistory(dir, { words: 'trip' });
    assert.deepEqual(users(r).sort(), ['a "quoted" trip\nover two lines ✈', 'the real trip with a fake key before it', 'the trip to Kyoto', 'trip with spaces in the JSON']);
    assert.equal(r.turnsRead, 4);
    assert.equal(r.truncated, false);
    // A whole last line without its newline (a hand-edited file) is still read.
    writeFileSync(file, line(T0, 'the trip to Nara'));
    assert.deepEqual(users(await searchHistory(dir, { words: 'trip' })), ['the trip to Nara']);
  });

  it('the byte scan reads the same fields as JSON.parse, and refuses what JSON.parse refuses', () => {
    for (const l of [line(T0, 'plain'), line(T0, 'tab\there "q" \\ \u2028 é ✈ 𝄞'), line(T0, '', '', false)]) {
      assert.deepEqual(scanTurnFields(Buffer.from(l)), parseTurnFields(l));
    }
    for (const bad of ['{}', '{"at":"2025-01-01T00:00:00Z"}', line(T0, 'x').replace('"texts":true', '"texts":1'), line(T0, 'x').replace('"userText":"x"', '"userText":"x\\u12"')]) {
      assert.equal(scanTurnFields(Buffer.from(bad)), null, bad.slice(0, 80));
    }
  });

  it('a missing folder gives no hits; odd arguments count as absent', async () => {
    const r = await searchHistory(path.join(root, 'no-such-folder'), { words: 'trip' });
    assert.deepEqual({ ...r, tookMs: 0 }, { hits: [], turnsRead: 0, textlessTurns: 0, bytesRead: 0, truncated: false, tookMs: 0 });
    // Arguments as a model's tool call may send them.
    const odd = { words: 42, fromMs: 'monday', toMs: null, limit: 'all' } as unknown as Parameters<typeof searchHistory>[1];
    const dir = folder();
    writeSession(dir, [line(T0, 'hello')]);
    assert.deepEqual(users(await searchHistory(dir, odd)), ['hello']);
  });

  it('gives at most 5 hits whatever the limit, and cuts each text to 300 characters', async () => {
    const dir = folder();
    writeSession(dir, Array.from({ length: 12 }, (_, i) => line(T0 + i * 1000, `trip number ${i} ${'and more words '.repeat(40)}`, 'é'.repeat(500))));
    assert.equal((await searchHistory(dir, { words: 'trip', limit: 50 })).hits.length, 5);
    assert.equal((await searchHistory(dir, { words: 'trip' })).hits.length, 5);
    const two = await searchHistory(dir, { words: 'trip', limit: 2 });
    assert.equal(two.hits.length, 2);
    for (const h of two.hits) {
      assert.equal(h.userText.length, SEARCH_BOUNDS.maxTextChars);
      assert.equal(h.assistantText.length, SEARCH_BOUNDS.maxTextChars);
      assert.ok(h.userText.endsWith('…'));
    }
  });

  it('the turn, byte and time bounds stop the reading, keep the newest turns and say so', async () => {
    const dir = folder();
    writeSession(dir, Array.from({ length: 50 }, (_, i) => line(T0 + i * 1000, `trip ${i}`)));
    const turns = await searchHistory(dir, { words: 'trip' }, { maxTurns: 10 });
    assert.equal(turns.turnsRead, 10);
    assert.equal(turns.truncated, true);
    assert.ok(turns.hits.every((h) => Date.parse(h.at) >= T0 + 40_000), 'the newest 10 turns');
    const bytes = await searchHistory(dir, { words: 'trip' }, { maxBytes: 5000 });
    assert.ok(bytes.bytesRead <= 5000 && bytes.truncated && bytes.turnsRead < 50);
    assert.equal(bytes.hits[0]!.userText, 'trip 49');
    const time = await searchHistory(dir, { words: 'trip' }, { timeLimitMs: -1 });
    assert.equal(time.truncated, true);
  });
});

describe('searchHistory over generated histories', () => {
  const plant = { userText: "I'm thinking about a trip to Lisbon with my sister", assistantText: 'Lisbon is lovely in spring.' };
  const report = (userText: string, assistantText: string, index: number) => sampleReport({ index, userText, assistantText, heardText: assistantText });

  it('10,000 turns in 5 MB parts: at most 5 hits, the planted turn first', async () => {
    const dir = folder();
    const h = await writeHistory(dir, { turns: 10_000, report, plant: { index: 4321, ...plant }, textlessEvery: 10 });
    assert.ok((await listLogFiles(dir)).some((f) => f.part > 1), 'sessions continued in 5 MB parts');
    const r = await searchHistory(dir, { words: 'what did I say about the trip to Lisbon' });
    assert.ok(r.hits.length <= 5 && r.hits.length > 0);
    assert.equal(r.hits[0]!.at, new Date(h.plantedMs!).toISOString());
    assert.equal(r.turnsRead, 10_000);
    assert.equal(r.textlessTurns, 1000);
    const common = await searchHistory(dir, { words: 'weather in Paris tomorrow' });
    assert.equal(common.hits.length, 5);
  });

  it('about 50 MB: read within the byte and turn bounds, RSS growth under 50 MB', async () => {
    const dir = folder();
    const h = await writeHistory(dir, { bytes: 50 * 1024 * 1024, report, plant: { index: 30_000, ...plant } });
    assert.ok(h.bytes >= 50 * 1024 * 1024 && h.files >= 10);
    // The defaults (the turn bound stops it), fewer bytes, and every turn (the whole history read).
    for (const bounds of [{}, { maxBytes: 20 * 1024 * 1024 }, { maxTurns: 1e6, timeLimitMs: 600_000 }]) {
      const { value: r, growthBytes } = await peakRssGrowth(() => searchHistory(dir, { words: 'the trip to Lisbon' }, bounds));
      const b = { ...SEARCH_BOUNDS, ...bounds };
      assert.ok(r.bytesRead <= b.maxBytes, `${r.bytesRead} bytes read`);
      assert.ok(r.turnsRead <= b.maxTurns, `${r.turnsRead} turns`);
      assert.ok(growthBytes < 50 * 1024 * 1024, `RSS grew ${Math.round(growthBytes / 1024 / 1024)} MB`);
      assert.ok(r.hits.length <= 5);
      if (bounds.maxTurns) assert.equal(r.bytesRead, h.bytes);
    }
  });
});
