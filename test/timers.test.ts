import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chime } from '../electron/audio/chime';
import {
  ALARM_RING_MS,
  KEEP_FINISHED_MS,
  MAX_FINISHED,
  TIMER_RING_MS,
  TimerBook,
  nextOccurrence,
} from '../electron/timers/timer-book';
import { TimerStore } from '../electron/timers/timer-store';

const MIN = 60_000;
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'timers-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('timers start, count down, and fall due once', () => {
  const book = new TimerBook();
  const plain = book.startTimer(10 * MIN, null, T0);
  const pasta = book.startTimer(20 * MIN, '  Pasta ', T0 + 1000);
  assert.equal(pasta.name, 'Pasta', 'names are trimmed');
  assert.notEqual(plain.id, pasta.id);
  assert.equal(plain.kind, 'timer');
  assert.equal(plain.durationMs, 10 * MIN);
  assert.equal(plain.dueAtMs, T0 + 10 * MIN);

  assert.deepEqual(book.active(T0 + 2000).map((t) => t.id), [plain.id, pasta.id], 'soonest first');
  assert.equal(book.remaining(plain, T0 + 4 * MIN), 6 * MIN);
  assert.equal(book.nextDueMs(), T0 + 10 * MIN);

  assert.deepEqual(book.due(T0 + 10 * MIN - 1), []);
  const fired = book.due(T0 + 10 * MIN);
  assert.deepEqual(fired.map((t) => t.id), [plain.id]);
  assert.equal(fired[0]!.firedAtMs, T0 + 10 * MIN);
  assert.deepEqual(book.due(T0 + 10 * MIN + 500), [], 'fires only once');
  assert.equal(book.remaining(fired[0]!, T0 + 10 * MIN), 0);
  assert.deepEqual(book.active(T0 + 10 * MIN).map((t) => t.id), [pasta.id]);
  assert.equal(book.nextDueMs(), pasta.dueAtMs);

  // Two overdue at once (say, after a restart): both fire, soonest first, stamped with the firing time.
  const late = book.startTimer(MIN, 'tea', T0 + 10 * MIN);
  const both = book.due(T0 + 40 * MIN);
  assert.deepEqual(both.map((t) => t.id), [late.id, pasta.id]);
  assert.ok(both.every((t) => t.firedAtMs === T0 + 40 * MIN));
  assert.equal(book.nextDueMs(), null);
});

test('bad arguments throw', () => {
  const book = new TimerBook();
  assert.throws(() => book.startTimer(0, null, T0), RangeError);
  assert.throws(() => book.startTimer(-5, null, T0), RangeError);
  assert.throws(() => book.startTimer(Number.NaN, null, T0), RangeError);
  assert.throws(() => book.startTimer(MIN, null, Number.POSITIVE_INFINITY), RangeError);
  assert.throws(() => book.setAlarm(Number.NaN, T0), RangeError);
  assert.throws(() => book.addTime(0, T0), RangeError);
});

test('cancel: by name (any case), the soonest when unnamed, all, by kind', () => {
  const book = new TimerBook();
  const ten = book.startTimer(10 * MIN, null, T0);
  const five = book.startTimer(5 * MIN, null, T0);
  const pasta = book.startTimer(20 * MIN, 'Pasta', T0);
  const eggs = book.startTimer(7 * MIN, 'eggs', T0);
  const alarm = book.setAlarm(T0 + 60 * MIN, T0);

  assert.deepEqual(book.cancel(T0 + 1, { name: 'pizza' }), [], 'no such name: nothing cancelled');
  const byName = book.cancel(T0 + 1, { name: 'PASTA' });
  assert.deepEqual(byName.map((t) => t.id), [pasta.id]);
  assert.equal(byName[0]!.cancelledAtMs, T0 + 1);

  // No name: the one due soonest (of the kind asked for).
  assert.deepEqual(book.cancel(T0 + 2, { kind: 'timer' }).map((t) => t.id), [five.id]);
  assert.deepEqual(book.cancel(T0 + 3, { kind: 'alarm' }).map((t) => t.id), [alarm.id]);
  assert.deepEqual(book.active(T0 + 4).map((t) => t.id), [eggs.id, ten.id]);

  book.startTimer(3 * MIN, null, T0 + 4);
  assert.equal(book.cancel(T0 + 5, { all: true }).length, 3);
  assert.deepEqual(book.active(T0 + 5), []);
  assert.equal(book.nextDueMs(), null);
  assert.deepEqual(book.due(T0 + 100 * MIN), [], 'cancelled entries never fire');
  assert.deepEqual(book.cancel(T0 + 6, {}), [], 'nothing left to cancel');

  // "cancel all timers" leaves the alarm alone.
  const b2 = new TimerBook();
  b2.startTimer(MIN, null, T0);
  b2.startTimer(2 * MIN, 'x', T0);
  const a2 = b2.setAlarm(T0 + 9 * MIN, T0);
  assert.equal(b2.cancel(T0, { all: true, kind: 'timer' }).length, 2);
  assert.deepEqual(b2.active(T0).map((t) => t.id), [a2.id]);
});

test('addTime: named, soonest, never an alarm, a ringing timer first', () => {
  const book = new TimerBook();
  const a = book.startTimer(10 * MIN, null, T0);
  const pasta = book.startTimer(20 * MIN, 'pasta', T0);
  book.setAlarm(T0 + 5 * MIN, T0);

  const added = book.addTime(5 * MIN, T0 + MIN, null);
  assert.equal(added?.id, a.id, 'unnamed: the timer due soonest, not the earlier alarm');
  assert.equal(added?.dueAtMs, T0 + 15 * MIN);
  assert.equal(added?.durationMs, 15 * MIN);
  assert.equal(book.addTime(MIN, T0 + MIN, 'Pasta')?.dueAtMs, pasta.dueAtMs + MIN);
  assert.equal(book.addTime(MIN, T0 + MIN, 'pizza'), null);

  // As it goes off, "add five minutes" starts it again for five minutes (not the pending pasta timer).
  book.due(T0 + 15 * MIN);
  assert.deepEqual(book.ringing(T0 + 15 * MIN + 1000).filter((t) => t.kind === 'timer').map((t) => t.id), [a.id]);
  const again = book.addTime(5 * MIN, T0 + 15 * MIN + 2000);
  assert.equal(again?.id, a.id);
  assert.equal(again?.dueAtMs, T0 + 20 * MIN + 2000);
  assert.equal(again?.firedAtMs, null);
  assert.deepEqual(book.ringing(T0 + 15 * MIN + 2000).filter((t) => t.kind === 'timer'), []);
  assert.deepEqual(book.due(T0 + 20 * MIN + 2000).map((t) => t.id), [a.id], 'and it fires again');

  assert.equal(new TimerBook().addTime(MIN, T0), null, 'nothing to add to');
});

test('ringing: an alarm rings until stopped or for a minute; a timer rings for its notice', () => {
  const book = new TimerBook();
  const alarm = book.setAlarm(T0 + 10 * MIN, T0);
  const timer = book.startTimer(10 * MIN, 'tea', T0);
  assert.deepEqual(book.ringing(T0 + 10 * MIN), [], 'nothing rings before due() fires it');
  assert.equal(book.due(T0 + 10 * MIN).length, 2);

  const at = T0 + 10 * MIN;
  assert.deepEqual(book.ringing(at + 1000).map((t) => t.id).sort(), [alarm.id, timer.id].sort());
  assert.equal(book.nextWakeMs(at + 1000), at + TIMER_RING_MS, 'wakes when the timer ring ends');
  assert.deepEqual(book.ringing(at + TIMER_RING_MS).map((t) => t.id), [alarm.id], 'the timer rang once');
  assert.equal(book.nextWakeMs(at + TIMER_RING_MS), at + ALARM_RING_MS);
  assert.deepEqual(book.ringing(at + ALARM_RING_MS - 1).map((t) => t.id), [alarm.id]);
  assert.deepEqual(book.ringing(at + ALARM_RING_MS), [], 'an alarm gives up after a minute');
  assert.equal(book.all().find((t) => t.id === alarm.id)?.stoppedAtMs, null, 'ran out, not stopped');
  assert.deepEqual(book.stop(at + ALARM_RING_MS), [], 'nothing to stop');
  assert.equal(book.nextWakeMs(at + ALARM_RING_MS), null);

  // "stop" while ringing.
  const b2 = new TimerBook();
  const a2 = b2.setAlarm(T0 + MIN, T0);
  b2.due(T0 + MIN);
  const stopped = b2.stop(T0 + MIN + 5000);
  assert.deepEqual(stopped.map((t) => t.id), [a2.id]);
  assert.equal(stopped[0]!.stoppedAtMs, T0 + MIN + 5000);
  assert.deepEqual(b2.ringing(T0 + MIN + 5001), []);

  // The caller can end one timer's ring once its notice has been said.
  const b3 = new TimerBook();
  const x = b3.startTimer(MIN, 'x', T0);
  const y = b3.setAlarm(T0 + MIN, T0);
  b3.due(T0 + MIN);
  assert.deepEqual(b3.stop(T0 + MIN + 100, x.id).map((t) => t.id), [x.id]);
  assert.deepEqual(b3.ringing(T0 + MIN + 200).map((t) => t.id), [y.id]);
});

test('prune forgets old finished entries and keeps the list bounded', () => {
  const book = new TimerBook();
  const cancelled = book.startTimer(MIN, 'old', T0);
  book.cancel(T0 + 1, { name: 'old' });
  const fired = book.startTimer(MIN, null, T0);
  book.due(T0 + MIN);
  const pending = book.startTimer(3 * 24 * 60 * MIN, 'long', T0);

  assert.deepEqual(book.prune(T0 + 2 * MIN), [], 'recent ones are kept for reports');
  const removed = book.prune(T0 + MIN + TIMER_RING_MS + KEEP_FINISHED_MS + 1);
  assert.deepEqual(removed.map((t) => t.id).sort(), [cancelled.id, fired.id].sort());
  assert.deepEqual(book.all().map((t) => t.id), [pending.id], 'pending entries are never pruned');

  // A ringing entry is not finished yet.
  const b2 = new TimerBook();
  b2.setAlarm(T0, T0 - 1);
  b2.due(T0);
  assert.equal(b2.prune(T0 + KEEP_FINISHED_MS).length, 0);

  const b3 = new TimerBook();
  for (let i = 0; i < MAX_FINISHED + 10; i++) {
    b3.startTimer(MIN, `n${i}`, T0 + i);
    b3.cancel(T0 + i, { name: `n${i}` });
  }
  assert.equal(b3.prune(T0 + 100).length, 10);
  assert.equal(b3.all().length, MAX_FINISHED);
  assert.equal(b3.all()[0]!.name, 'n10', 'the oldest went first');
});

test('returned entries are copies', () => {
  const book = new TimerBook();
  const t = book.startTimer(MIN, null, T0);
  t.dueAtMs = 0;
  book.active(T0)[0]!.cancelledAtMs = 5;
  assert.equal(book.all()[0]!.dueAtMs, T0 + MIN);
  assert.equal(book.all()[0]!.cancelledAtMs, null);
});

test('JSON round trip keeps every entry and never reuses ids', () => {
  const book = new TimerBook();
  book.startTimer(10 * MIN, 'Pasta', T0);
  book.startTimer(MIN, null, T0);
  book.setAlarm(T0 + 60 * MIN, T0);
  book.due(T0 + MIN);
  book.stop(T0 + MIN + 10);
  book.cancel(T0 + 2 * MIN, { kind: 'alarm' });

  const json = JSON.parse(JSON.stringify(book));
  const back = TimerBook.fromJSON(json);
  assert.deepEqual(back.all(), book.all());
  assert.deepEqual(back.toJSON(), book.toJSON());
  const ids = new Set(book.all().map((t) => t.id));
  assert.ok(!ids.has(back.startTimer(MIN, null, T0).id));
  // A book built from entries alone still skips their ids.
  const fromList = new TimerBook(book.all());
  assert.ok(!ids.has(fromList.setAlarm(T0 + MIN, T0).id));
});

test('property: a book never saves what its own load refuses (random valid states round-trip, nextId near 2^53 included)', () => {
  // A small deterministic generator: the same cases every run.
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  // Names as a recognizer might hear them, up to far longer than the file allows.
  const name = (fallback: string): string | null => {
    const r = rand();
    if (r < 0.4) return null;
    if (r < 0.7) return fallback;
    return Array.from({ length: Math.floor(rand() * 300) }, () => 'ab cdé\tf'[Math.floor(rand() * 9)]).join('');
  };
  for (let run = 0; run < 300; run++) {
    const start = run % 3 === 0 ? Number.MAX_SAFE_INTEGER - Math.floor(rand() * 3) : 1 + Math.floor(rand() * 1e6);
    let book = TimerBook.fromJSON({ version: 1, nextId: start, timers: [] });
    let now = T0;
    for (let step = 0; step < 12; step++) {
      now += Math.floor(rand() * 5 * MIN);
      const r = rand();
      if (r < 0.4) book.startTimer(1 + Math.floor(rand() * 30 * MIN), name('pasta'), now);
      else if (r < 0.6) book.setAlarm(now + 1 + Math.floor(rand() * 24 * 60 * MIN), now, name('wake'));
      else if (r < 0.7) book.cancel(now);
      else if (r < 0.8) book.due(now);
      else if (r < 0.9) book.stop(now);
      else book.prune(now);
      // What would be written to timers.json loads back, the same.
      const saved = JSON.parse(JSON.stringify(book));
      const back = TimerBook.fromJSON(saved);
      assert.deepEqual(back.toJSON(), book.toJSON(), `run ${run} step ${step}`);
      book = back;
    }
  }
});

test('fromJSON rejects bad input with a message that names the problem', () => {
  const good = (): Record<string, unknown> => {
    const b = new TimerBook();
    b.startTimer(MIN, 'pasta', T0);
    b.setAlarm(T0 + MIN, T0);
    return JSON.parse(JSON.stringify(b));
  };
  const withTimer = (i: number, patch: Record<string, unknown>): unknown => {
    const data = good();
    const timers = data.timers as Record<string, unknown>[];
    timers[i] = { ...timers[i], ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete timers[i]![k];
    return data;
  };
  const cases: [unknown, RegExp][] = [
    [null, /expected an object, got null/],
    [[], /expected an object/],
    [{ ...good(), version: 2 }, /version must be 1, got 2/],
    [{ ...good(), nextId: 0 }, /nextId must be a positive integer/],
    [{ ...good(), timers: {} }, /timers must be an array/],
    [{ ...good(), extra: 1 }, /unknown field "extra"/],
    [{ ...good(), timers: [5] }, /timers\[0\] must be an object, got 5/],
    [withTimer(0, { dueAtMs: 'soon' }), /timers\[0\]\.dueAtMs must be a time in ms \(at most 8640000000000000 from 1970\), got "soon"/],
    [withTimer(1, { dueAtMs: -1e308 }), /timers\[1\]\.dueAtMs must be a time in ms/],
    [withTimer(1, { setAtMs: undefined }), /timers\[1\]\.setAtMs is missing/],
    [withTimer(0, { kind: 'stopwatch' }), /timers\[0\]\.kind must be "timer" or "alarm"/],
    [withTimer(0, { durationMs: null }), /timers\[0\]\.durationMs must be a positive number for a timer/],
    [withTimer(1, { durationMs: 5 }), /timers\[1\]\.durationMs must be null for an alarm/],
    [withTimer(0, { name: '  ' }), /timers\[0\]\.name must be null or a non-empty string/],
    [withTimer(0, { firedAtMs: 'x' }), /timers\[0\]\.firedAtMs must be null or a time in ms/],
    [withTimer(0, { firedAtMs: T0, cancelledAtMs: T0 }), /timers\[0\] cannot be both fired and cancelled/],
    [withTimer(0, { stoppedAtMs: T0 }), /timers\[0\]\.stoppedAtMs is set but the entry never fired/],
    [withTimer(1, { id: 't1' }), /timers\[1\]\.id "t1" is used twice/],
    [withTimer(0, { id: '' }), /timers\[0\]\.id must be a non-empty string/],
    [withTimer(0, { colour: 'red' }), /timers\[0\] has an unknown field "colour"/],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => TimerBook.fromJSON(input), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, /^Invalid timer data: /);
      assert.match(e.message, message);
      return true;
    }, `expected ${message} for ${JSON.stringify(input)}`);
  }
});

test('nextOccurrence: today or tomorrow, am/pm, and either reading when unsaid', () => {
  const at = (d: number, h: number, m = 0): Date => new Date(2025, 0, d, h, m, 0, 0);
  const ms = (d: number, h: number, m = 0): number => at(d, h, m).getTime();
  // Across midnight.
  assert.equal(nextOccurrence(7, 0, 'am', at(15, 23, 30)), ms(16, 7));
  assert.equal(nextOccurrence(12, 0, 'am', at(15, 23, 30)), ms(16, 0), '12 am is midnight');
  assert.equal(nextOccurrence(12, 0, 'pm', at(15, 23, 30)), ms(16, 12), '12 pm is noon');
  assert.equal(nextOccurrence(7, 30, 'pm', at(15, 8)), ms(15, 19, 30));
  assert.equal(nextOccurrence(7, 0, 'pm', at(15, 19, 0)), ms(16, 19), 'now exactly: the next one');
  // No am/pm: the sooner of the two readings.
  assert.equal(nextOccurrence(7, 0, null, at(15, 6)), ms(15, 7));
  assert.equal(nextOccurrence(7, 0, null, at(15, 10)), ms(15, 19));
  assert.equal(nextOccurrence(7, 0, null, at(15, 20)), ms(16, 7));
  assert.equal(nextOccurrence(12, 0, null, at(15, 13)), ms(16, 0));
  // 24-hour readings.
  assert.equal(nextOccurrence(19, 15, null, at(15, 20)), ms(16, 19, 15));
  assert.equal(nextOccurrence(0, 0, null, at(15, 20)), ms(16, 0));
  // Month end.
  assert.equal(nextOccurrence(6, 0, 'am', new Date(2025, 0, 31, 22)), new Date(2025, 1, 1, 6).getTime());

  assert.throws(() => nextOccurrence(13, 0, 'pm', at(15, 1)), RangeError);
  assert.throws(() => nextOccurrence(0, 0, 'am', at(15, 1)), RangeError);
  assert.throws(() => nextOccurrence(24, 0, null, at(15, 1)), RangeError);
  assert.throws(() => nextOccurrence(7, 60, null, at(15, 1)), RangeError);
  assert.throws(() => nextOccurrence(7, 0, null, new Date(Number.NaN)), RangeError);
});

test('store: a missing file is an empty book with no notice', async (t) => {
  const dir = await tempDir(t);
  const { book, notice } = await new TimerStore(join(dir, 'not-yet')).load();
  assert.deepEqual(book.all(), []);
  assert.equal(notice, null);
});

test('store: timers survive a restart at their absolute times', async (t) => {
  const dir = await tempDir(t);
  const book = new TimerBook();
  const pasta = book.startTimer(20 * MIN, 'pasta', T0);
  book.setAlarm(T0 + 60 * MIN, T0);
  await new TimerStore(dir).save(book);
  assert.match(await readFile(join(dir, 'timers.json'), 'utf8'), /"dueAtMs": \d+/);

  // "Restart": a fresh store reads the file back.
  const { book: loaded, notice } = await new TimerStore(dir).load();
  assert.equal(notice, null);
  assert.deepEqual(loaded.all(), book.all());
  assert.deepEqual(loaded.due(T0 + 20 * MIN - 1), []);
  assert.deepEqual(loaded.due(T0 + 20 * MIN).map((x) => x.id), [pasta.id]);
  assert.equal(loaded.nextDueMs(), T0 + 60 * MIN);
});

test('store: a corrupt or invalid file is backed up, with a notice and an empty book', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'timers.json');
  for (const [content, reason] of [
    ['{"version": 1, "timers": [', /is not valid JSON/],
    ['{"version": 1, "nextId": 1, "timers": [{"id": 7}]}', /is invalid \(Invalid timer data: timers\[0\]\.kind is missing\)/],
    [`{"version": 1, "nextId": 2, "timers": [{"id": "1", "kind": "timer", "name": "${'n'.repeat(101)}", "durationMs": 1, "setAtMs": 0, "dueAtMs": 1, "firedAtMs": null, "cancelledAtMs": null, "stoppedAtMs": null}]}`, /timers\[0\]\.name must be at most 100 characters, got 101/],
    [`{"version": 1, "nextId": 1, "timers": [], "pad": "${'x'.repeat(9 * 1024 * 1024)}"}`, /is 9216 kB, far more than timers need \(at most 8192 kB\), so it was not read/],
  ] as const) {
    await writeFile(file, content);
    const { book, notice } = await new TimerStore(dir).load();
    assert.deepEqual(book.all(), []);
    assert.ok(notice, 'a notice for the user');
    assert.match(notice, reason);
    const backups = (await readdir(dir)).filter((f) => f.startsWith('timers.json.corrupt-'));
    assert.ok(backups.length >= 1);
    const newest = backups.find((b) => notice.includes(b));
    assert.ok(newest, `notice names the backup: ${notice}`);
    assert.equal(await readFile(join(dir, newest), 'utf8'), content, 'backup holds the broken file');
    // The broken file was replaced, so the next start is clean and backs up nothing more.
    const again = await new TimerStore(dir).load();
    assert.equal(again.notice, null);
  }
  const backups = (await readdir(dir)).filter((f) => f.startsWith('timers.json.corrupt-'));
  assert.equal(backups.length, 4, 'distinct backups, none overwritten');
});

test('store: a folder in the way of the file gives a notice, not a throw', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'timers.json'));
  const { book, notice } = await new TimerStore(dir).load();
  assert.deepEqual(book.all(), []);
  assert.match(notice ?? '', /Could not read your timers/);
  await assert.rejects(new TimerStore(dir).save(book), /Could not save timers to/);
  assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');
});

test('store: concurrent saves run one at a time and the last one wins', async (t) => {
  const dir = await tempDir(t);
  const store = new TimerStore(dir);
  const book = new TimerBook();
  const saves: Promise<void>[] = [];
  for (let i = 1; i <= 20; i++) {
    book.startTimer(i * MIN, `timer ${i}`, T0);
    saves.push(store.save(book)); // each save snapshots the book as it is at the call
  }
  await Promise.all(saves);
  const { book: loaded } = await new TimerStore(dir).load();
  assert.equal(loaded.all().length, 20);
  assert.deepEqual(loaded.all(), book.all());
  assert.deepEqual((await readdir(dir)).sort(), ['timers.json'], 'no temp files left');
});

test('chime: short, peak 0.5, starts and ends at zero, smooth', () => {
  for (const rate of [16000, 24000, 44100, 48000]) {
    const c = chime(rate);
    assert.ok(c.length >= 0.6 * rate && c.length <= 0.9 * rate, `length ${c.length} at ${rate}`);
    let peak = 0;
    let maxStep = 0;
    for (let i = 0; i < c.length; i++) {
      assert.ok(Number.isFinite(c[i]!), `sample ${i} is finite`);
      peak = Math.max(peak, Math.abs(c[i]!));
      if (i > 0) maxStep = Math.max(maxStep, Math.abs(c[i]! - c[i - 1]!));
    }
    assert.ok(Math.abs(peak - 0.5) < 1e-6, `peak ${peak}`);
    assert.equal(c[0], 0);
    assert.equal(c[c.length - 1], 0);
    // First and last millisecond stay quiet: no click at either end.
    const ms = Math.round(rate / 1000);
    for (let i = 0; i < ms; i++) {
      assert.ok(Math.abs(c[i]!) < 0.05, `start ${i}: ${c[i]}`);
      assert.ok(Math.abs(c[c.length - 1 - i]!) < 0.05, `end ${i}: ${c[c.length - 1 - i]}`);
    }
    // No jump larger than the steepest partial (1.32 kHz) at full peak could make.
    assert.ok(maxStep <= 2 * Math.PI * 1320 / rate * 0.5 * 1.5, `max step ${maxStep} at ${rate}`);
  }
  assert.deepEqual(chime(16000), chime(16000), 'deterministic');
  assert.throws(() => chime(0), RangeError);
  assert.throws(() => chime(Number.NaN), RangeError);
});
