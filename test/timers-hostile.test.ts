/**
 * Timers against hostile input (issue 24): a hand-written timers.json with 10,000 overdue timers,
 * more timers than the app keeps, a 101st "set a timer", absurd durations and times, and temp files
 * left by a save cut short. Each test fails on the code before the fix.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { alarmNotice } from '../electron/commands/respond';
import { numberToWords, spellClockTime, spellDuration } from '../electron/commands/numbers';
import { answerLocally, type CommandHost } from '../electron/pipeline/skills/local-commands';
import { MAX_ACTIVE, TimerBook, type Timer } from '../electron/timers/timer-book';
import { TimerKeeper } from '../electron/timers/timer-keeper';
import { TIMERS_FILE, TimerStore } from '../electron/timers/timer-store';

const MIN = 60_000;

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'timers-hostile-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A timers.json as a person or a script might write it: `n` timers due `firstDueMs`, one ms apart. */
async function writeTimers(dir: string, n: number, firstDueMs: number): Promise<void> {
  const timers: Timer[] = Array.from({ length: n }, (_, i) => ({
    id: `t${i + 1}`, kind: 'timer', name: `timer ${i}`, durationMs: MIN, setAtMs: firstDueMs + i - MIN, dueAtMs: firstDueMs + i,
    firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null,
  }));
  await writeFile(join(dir, TIMERS_FILE), JSON.stringify({ version: 1, nextId: n + 1, timers }));
}

function keeperIn(dir: string): { keeper: TimerKeeper; notices: string[] } {
  const notices: string[] = [];
  const keeper = new TimerKeeper(dir, { running: () => null, changed: () => undefined, notice: (m) => notices.push(m) });
  return { keeper, notices };
}

const unfinished = (book: TimerBook) => book.all().filter((t) => t.cancelledAtMs === null && (t.firedAtMs === null || t.stoppedAtMs === null));
const temps = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.tmp'));

/** Counts the store's writes while `fn` runs. */
async function countingWrites(fn: () => Promise<void>): Promise<number> {
  const original = TimerStore.prototype.save;
  let writes = 0;
  TimerStore.prototype.save = function (book) {
    writes++;
    return original.call(this, book);
  };
  try {
    await fn();
  } finally {
    TimerStore.prototype.save = original;
  }
  return writes;
}

test('10,000 timers that fell due while the app was closed: one notice, one ring left, the file rewritten once and valid, no temp file', async (t) => {
  const dir = await tempDir(t);
  const now = Date.now();
  await writeTimers(dir, 10_000, now - 60 * MIN);
  const { keeper, notices } = keeperIn(dir);
  const writes = await countingWrites(async () => {
    await keeper.load();
    keeper.close();
    await keeper.flush();
  });
  assert.deepEqual(notices, ['10,000 timers finished while the app was closed: timer 0, timer 1 and 9,998 more.']);
  // Only the one due last is left to ring (the pipeline rings it as soon as it runs); the rest are rung, silently.
  const left = unfinished(keeper.book);
  assert.deepEqual(left.map((x) => x.name), ['timer 9999']);
  assert.equal(keeper.book.due(Date.now()).length, 1, 'one ring, not 10,000');
  assert.equal(writes, 1, 'rewritten once');
  assert.deepEqual(await temps(dir), []);
  const reloaded = await new TimerStore(dir).load();
  assert.equal(reloaded.notice, null, 'the rewritten file loads');
  assert.ok(reloaded.book.all().length <= MAX_ACTIVE, `${reloaded.book.all().length} entries kept`);
  assert.ok(reloaded.book.all().some((x) => x.name === 'timer 9999' && x.firedAtMs === null));
  assert.deepEqual((await readdir(dir)).filter((f) => f.includes('corrupt')), []);
});

test('a file with more pending timers than the app keeps: the soonest 100 are kept, one notice says how many went, and nothing is moved aside', async (t) => {
  const dir = await tempDir(t);
  const now = Date.now();
  await writeTimers(dir, 250, now + 10 * MIN);
  const { keeper, notices } = keeperIn(dir);
  await keeper.load();
  keeper.close();
  await keeper.flush();
  assert.equal(notices.length, 1, notices.join('\n'));
  assert.match(notices[0]!, /more than 100 timers and alarms; the 100 due soonest were kept and 150 others were dropped/);
  const kept = keeper.book.active(now).map((x) => x.name);
  assert.deepEqual(kept, Array.from({ length: 100 }, (_, i) => `timer ${i}`));
  const reloaded = await new TimerStore(dir).load();
  assert.equal(reloaded.notice, null);
  assert.deepEqual(reloaded.book.active(now).map((x) => x.name), kept, 'the kept ones are on disk');
  assert.deepEqual((await readdir(dir)).sort(), [TIMERS_FILE]);
});

test('10,000 saves in a burst make a bounded number of writes, and stop leaves no temp file', async (t) => {
  const dir = await tempDir(t);
  const { keeper } = keeperIn(dir);
  await keeper.load();
  const writes = await countingWrites(async () => {
    for (let i = 0; i < 10_000; i++) {
      if (i % 100 === 0) keeper.book.startTimer(MIN + i, `t${i}`, Date.now());
      keeper.save();
      // Some changes land while a write is running.
      if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
    }
    // A save in flight when the app stops: stop waits for it.
    keeper.save();
    keeper.close();
    await keeper.flush();
  });
  // One write per pause in the burst (11), plus the one at stop, at most.
  assert.ok(writes <= 12, `${writes} writes`);
  assert.deepEqual(await temps(dir), []);
  assert.equal((await new TimerStore(dir).load()).book.active(Date.now()).length, 100, 'the last change is on disk');
});

test('a temp file left by a process that died mid-save is removed at the next load; a live process\'s is not', async (t) => {
  const dir = await tempDir(t);
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const stale = `.${TIMERS_FILE}.${dead}.0b3f.tmp`;
  const live = `.${TIMERS_FILE}.${process.ppid}.9c1d.tmp`;
  await writeFile(join(dir, stale), '{"version": 1, "nex');
  await writeFile(join(dir, live), '{}');
  await new TimerStore(dir).load();
  assert.deepEqual(await temps(dir), [live]);
});

/** A host for the local commands, on a book of its own. */
function host(book: TimerBook): CommandHost {
  return {
    timers: book,
    memory: null,
    conversation: { reset: () => undefined, appendDone: () => undefined, forgetExchanges: () => undefined },
    refreshPrompt: () => undefined,
    searchHistory: null,
    historyKeepsText: () => true,
    epochAt: (ms) => ms,
    lastAnswer: () => null,
    timersChanged: () => undefined,
    settlePause: () => undefined,
  };
}

test('the 101st timer or alarm is refused, in words; the book keeps 100', () => {
  const book = new TimerBook();
  const now = Date.now();
  for (let i = 1; i <= MAX_ACTIVE; i++) assert.match(answerLocally(`set a timer for ${i} minutes`, now, host(book))?.say ?? '', /^Timer set for/);
  assert.equal(answerLocally('set a timer for 5 minutes', now, host(book))?.say, 'You have one hundred timers and alarms already; cancel some first.');
  assert.equal(answerLocally('set an alarm for seven o\'clock', now, host(book))?.say, 'You have one hundred timers and alarms already; cancel some first.');
  assert.equal(book.active(now).length, MAX_ACTIVE);
  assert.throws(() => book.startTimer(MIN, null, now), RangeError, 'the book itself holds the bound');
  // A ringing timer still counts; once it stops, there is room again.
  book.due(now + MIN);
  assert.equal(answerLocally('set a timer for 5 minutes', now + MIN, host(book))?.say, 'You have one hundred timers and alarms already; cancel some first.');
  book.stop(now + MIN);
  assert.equal(answerLocally('set a timer for 5 minutes', now + MIN, host(book))?.say, 'Timer set for five minutes.');
});

test('a spoken duration too long for any date is refused in words and never saved (the next start would refuse the file)', () => {
  const book = new TimerBook();
  const now = Date.now();
  assert.equal(answerLocally('set a timer for 99999999999999999999 hours', now, host(book))?.say, 'A timer can run for at most three hundred sixty five days.');
  assert.equal(answerLocally('set a timer for 5 minutes', now, host(book))?.say, 'Timer set for five minutes.');
  assert.equal(answerLocally('add 99999999999 hours to the timer', now, host(book))?.say, 'A timer can run for at most three hundred sixty five days.');
  assert.deepEqual(TimerBook.fromJSON(JSON.parse(JSON.stringify(book))).toJSON(), book.toJSON());
});

test('absurd times never reach speech: refused by the book and the file, and a time is never said as NaN', async (t) => {
  const now = Date.now();
  const book = new TimerBook();
  for (const bad of [-1e308, 1e308, 8.64e15 + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => book.setAlarm(bad, now), RangeError, String(bad));
    assert.throws(() => book.startTimer(MIN, null, bad), RangeError, String(bad));
  }
  assert.deepEqual(book.all(), []);

  // As hand-written: the whole file is kept aside and the app starts with none, so nothing rings.
  const dir = await tempDir(t);
  const alarm = { id: 't1', kind: 'alarm', name: null, durationMs: null, setAtMs: now, dueAtMs: -1e308, firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null };
  await writeFile(join(dir, TIMERS_FILE), JSON.stringify({ version: 1, nextId: 2, timers: [alarm] }));
  const { keeper, notices } = keeperIn(dir);
  await keeper.load();
  keeper.close();
  await keeper.flush();
  assert.deepEqual(keeper.book.all(), []);
  assert.match(notices.join('\n'), /dueAtMs must be a time in ms/);

  // Whatever time reaches the words: an alarm's notice never says NaN, and the spellers refuse rather than say it.
  const times = [-1e308, 1e308, -8.64e15 - 1, Number.NaN, 0, -1, 8.64e15, 1.5e12];
  for (const ms of times) {
    const d = new Date(ms);
    const said = alarmNotice(d.getHours(), d.getMinutes());
    assert.doesNotMatch(said, /NaN|Infinity|undefined/, `${ms}: ${said}`);
  }
  assert.equal(alarmNotice(Number.NaN, Number.NaN), 'Your alarm is ringing.');
  assert.equal(alarmNotice(7, 0), "It's seven o'clock: your alarm.");
  for (const [h, m] of [[Number.NaN, 0], [0, Number.NaN], [24, 0], [7, 60], [7.5, 0], [-1, 0]]) assert.throws(() => spellClockTime(h!, m!), RangeError, `${h}:${m}`);
  assert.throws(() => numberToWords(Number.NaN), RangeError);
  assert.throws(() => spellDuration(Number.NaN), RangeError);
});

test('the collapsed notice names two and counts the rest, alarms included', async (t) => {
  const dir = await tempDir(t);
  const now = Date.now();
  const book = new TimerBook();
  book.startTimer(MIN, 'pasta', now - 10 * MIN);
  book.startTimer(2 * MIN, 'tea', now - 10 * MIN);
  book.setAlarm(now - MIN, now - 20 * MIN);
  book.startTimer(60 * MIN, 'bread', now);
  await new TimerStore(dir).save(book);
  const { keeper, notices } = keeperIn(dir);
  await keeper.load();
  keeper.close();
  await keeper.flush();
  assert.deepEqual(notices, ['3 timers and alarms finished while the app was closed: pasta, tea and 1 more.']);
  assert.deepEqual(keeper.book.due(Date.now()).map((x) => x.kind), ['alarm'], 'the one due last rings');
  assert.deepEqual(keeper.book.active(Date.now()).map((x) => x.name), ['bread']);
});

test('a full book (100 still to come) loses none of them to a timer that fell due while closed: that one is said, not rung', async (t) => {
  const dir = await tempDir(t);
  const now = Date.now();
  const timers: Timer[] = [
    { id: 'late', kind: 'timer', name: 'tea', durationMs: MIN, setAtMs: now - 2 * MIN, dueAtMs: now - MIN, firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null },
    ...Array.from({ length: MAX_ACTIVE }, (_, i): Timer => ({ id: `t${i}`, kind: 'timer', name: null, durationMs: 60 * MIN, setAtMs: now, dueAtMs: now + 60 * MIN + i, firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null })),
  ];
  await writeFile(join(dir, TIMERS_FILE), JSON.stringify({ version: 1, nextId: 1, timers }));
  const { keeper, notices } = keeperIn(dir);
  await keeper.load();
  const book = keeper.book;
  assert.equal(book.all().filter((x) => x.firedAtMs === null && x.dueAtMs > now).length, MAX_ACTIVE, 'every timer still to come is kept');
  assert.equal(book.due(Date.now()).length, 0, 'the late one does not ring');
  assert.deepEqual(notices, ['1 timer finished while the app was closed: tea.']);
  await keeper.flush();
});
