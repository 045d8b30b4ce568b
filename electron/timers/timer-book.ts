/**
 * Timers and alarms as plain data: what is set, what falls due, what rings.
 *
 * Pure: no I/O and no clock of its own. Every method that depends on time
 * takes `nowMs` (absolute epoch ms), so the pipeline can map its own clock
 * onto epoch time and the tests can run on scripted times.
 *
 * Life of an entry: pending (set, not yet fired) -> fired by `due()` ->
 * ringing until stopped or its ring time has passed -> finished. A pending
 * entry can instead be cancelled. Finished entries stay for reports until
 * `prune()` forgets them.
 *
 * Decisions:
 * - `cancel` with no name and no `all` cancels ONE entry: the pending one due
 *   soonest (of `kind`, when given). It is the one the user is most likely
 *   thinking of; callers that want to ask "which one?" can check `active()`.
 *   A name cancels the soonest pending entry with that name.
 * - A ringing alarm rings for up to ALARM_RING_MS (one minute) unless
 *   stopped. A timer rings once: its chime and its notice, for up to
 *   TIMER_RING_MS, so that "stop" said over the chime or the notice still
 *   applies to it. The caller may end it sooner with `stop(nowMs, id)` once
 *   the notice has been spoken. A ring that simply runs out keeps
 *   `stoppedAtMs` null (nobody stopped it).
 * - `cancel` only touches pending entries; a ringing one is ended by `stop`.
 * - `addTime` with a timer ringing goes to that timer (it starts again);
 *   otherwise to the named or soonest pending timer.
 * - At most MAX_ACTIVE entries are pending or ringing: `startTimer` and
 *   `setAlarm` throw beyond it (callers check `full()` first and say so), and
 *   `keepSoonest` trims a book loaded from a file that holds more.
 * - Every time is one a Date can hold (MAX_DATE_MS): the book never holds a
 *   time it cannot say, nor saves one its own load would refuse.
 */

import { FORMAT_VERSION, isTime, MAX_DATE_MS, MAX_NAME_CHARS, parseTimerFile, type Timer, type TimerKind } from './timer-format';

// The entry's shape lives with the file format; the book's users import it from here.
export type { Timer, TimerKind } from './timer-format';

export interface CancelWhich {
  /** Exactly this entry (the window's cancel button). */
  id?: string;
  name?: string | null;
  all?: boolean;
  kind?: TimerKind;
}

/** How long a fired alarm rings unless stopped. */
export const ALARM_RING_MS = 60_000;
/** How long a fired timer counts as ringing: its chime plus its spoken notice. */
export const TIMER_RING_MS = 15_000;
/** Finished entries older than this are forgotten by `prune`. */
export const KEEP_FINISHED_MS = 24 * 60 * 60 * 1000;
/** At most this many finished entries are kept by `prune`, newest first. */
export const MAX_FINISHED = 50;

/** At most this many entries pending or ringing at once: a set beyond it is refused, a file beyond it trimmed at load. */
export const MAX_ACTIVE = 100;
/** The longest timer (and the most `addTime` adds at once): far beyond any kitchen, far within what a Date holds. */
export const MAX_TIMER_MS = 365 * 24 * 60 * 60 * 1000;

/** When a fired entry stops ringing by itself (epoch ms); null if it has not fired. */
export function ringEndMs(t: Timer): number | null {
  if (t.firedAtMs === null) return null;
  return t.firedAtMs + (t.kind === 'alarm' ? ALARM_RING_MS : TIMER_RING_MS);
}

/** Case, surrounding and repeated spaces do not matter in names. */
function sameName(a: string | null, b: string): boolean {
  return a !== null && normalizeName(a) === normalizeName(b);
}

function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** An empty or blank name means "no name"; a longer one than the file allows is cut, so every book can be saved and loaded again. */
function cleanName(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  const trimmed = name.trim().replace(/\s+/g, ' ').slice(0, MAX_NAME_CHARS).trim();
  return trimmed === '' ? null : trimmed;
}

function checkTime(label: string, value: number): void {
  if (!isTime(value)) throw new RangeError(`${label} must be a time in ms (at most ${MAX_DATE_MS} from 1970), got ${value}`);
}

function checkDuration(value: number): void {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) throw new RangeError(`durationMs must be a positive number of ms up to ${MAX_TIMER_MS}, got ${value}`);
}

const bySoonest = (a: Timer, b: Timer): number => a.dueAtMs - b.dueAtMs || a.setAtMs - b.setAtMs;

export class TimerBook {
  private readonly timers: Timer[];
  private nextId = 1;

  constructor(timers: Timer[] = []) {
    // Copies, so the caller's objects and the book's never alias.
    this.timers = timers.map((t) => ({ ...t }));
  }

  startTimer(durationMs: number, name: string | null, nowMs: number): Timer {
    checkDuration(durationMs);
    checkTime('nowMs', nowMs);
    checkTime('dueAtMs', nowMs + durationMs);
    return this.add('timer', cleanName(name), durationMs, nowMs, nowMs + durationMs);
  }

  /** A due time not after `nowMs` falls due at the next `due()`. */
  setAlarm(dueAtMs: number, nowMs: number, name: string | null = null): Timer {
    checkTime('dueAtMs', dueAtMs);
    checkTime('nowMs', nowMs);
    return this.add('alarm', cleanName(name), null, nowMs, dueAtMs);
  }

  /** Cancels pending entries: all of them (of `kind`), or one (see the file comment). Returns what was cancelled. */
  cancel(nowMs: number, which: CancelWhich = {}): Timer[] {
    checkTime('nowMs', nowMs);
    const name = cleanName(which.name);
    let targets = this.pending(nowMs).filter((t) => (which.id === undefined || t.id === which.id) && (which.kind === undefined || t.kind === which.kind) && (name === null || sameName(t.name, name)));
    if (!which.all) targets = targets.slice(0, 1);
    for (const t of targets) t.cancelledAtMs = nowMs;
    return targets.map((t) => ({ ...t }));
  }

  /**
   * Adds time to a timer (never an alarm), the named one if a name is given.
   * A timer ringing now comes first: it is the one the user is answering
   * ("add five minutes" as it goes off), and it starts again for
   * `durationMs`. Otherwise the pending timer due soonest gets `durationMs`
   * more. Null when there is nothing to add to.
   */
  addTime(durationMs: number, nowMs: number, name?: string | null): Timer | null {
    checkDuration(durationMs);
    checkTime('nowMs', nowMs);
    const wanted = cleanName(name);
    const matches = (t: Timer): boolean => t.kind === 'timer' && (wanted === null || sameName(t.name, wanted));
    const ringing = this.ringingNow(nowMs).find(matches);
    if (ringing) {
      checkTime('dueAtMs', nowMs + durationMs);
      ringing.dueAtMs = nowMs + durationMs;
      ringing.durationMs = (ringing.durationMs ?? 0) + durationMs;
      ringing.firedAtMs = null;
      ringing.stoppedAtMs = null;
      return { ...ringing };
    }
    const pending = this.pending(nowMs).find(matches);
    if (!pending) return null;
    checkTime('dueAtMs', pending.dueAtMs + durationMs);
    pending.dueAtMs += durationMs;
    pending.durationMs = (pending.durationMs ?? 0) + durationMs;
    return { ...pending };
  }

  /**
   * Pending entries still counting down at `nowMs`, soonest first. One whose
   * due time has passed but that `due()` has not fired yet is in neither this
   * list nor `ringing`: call `due()` first on each tick.
   */
  active(nowMs: number): Timer[] {
    return this.pending(nowMs).map((t) => ({ ...t }));
  }

  /** MAX_ACTIVE entries are pending or ringing at `nowMs`: no other may be set. */
  full(nowMs: number): boolean {
    return this.unfinished(nowMs).length >= MAX_ACTIVE;
  }

  /**
   * After a start: entries that fell due while nothing ran (the app was closed) would each ring,
   * one after another. All but the one due last are marked rung and stopped at `nowMs`, silently;
   * that one rings as usual, unless MAX_ACTIVE entries are still to come: a timer that is still
   * counting down is not dropped to make room for one that only rings late. Returns every such
   * entry, soonest first, for one notice about them all.
   */
  collapseOverdue(nowMs: number): Timer[] {
    checkTime('nowMs', nowMs);
    const overdue = this.timers.filter((t) => t.firedAtMs === null && t.cancelledAtMs === null && t.dueAtMs <= nowMs).sort(bySoonest);
    const ringsLast = this.pending(nowMs).length < MAX_ACTIVE;
    for (const t of ringsLast ? overdue.slice(0, -1) : overdue) {
      t.firedAtMs = nowMs;
      t.stoppedAtMs = nowMs;
    }
    return overdue.map((t) => ({ ...t }));
  }

  /** Forgets the entries pending or ringing beyond the `max` due soonest (a file that holds too many). Returns what was forgotten. */
  keepSoonest(nowMs: number, max = MAX_ACTIVE): Timer[] {
    checkTime('nowMs', nowMs);
    const drop = new Set(this.unfinished(nowMs).sort(bySoonest).slice(max));
    return this.removeWhere((t) => drop.has(t));
  }

  /** Time left until `t` falls due; 0 once due, fired or cancelled. */
  remaining(t: Timer, nowMs: number): number {
    if (t.firedAtMs !== null || t.cancelledAtMs !== null) return 0;
    return Math.max(0, t.dueAtMs - nowMs);
  }

  /** Fires what has fallen due by `nowMs` (each entry once), soonest first. */
  due(nowMs: number): Timer[] {
    checkTime('nowMs', nowMs);
    const fired = this.timers.filter((t) => t.firedAtMs === null && t.cancelledAtMs === null && t.dueAtMs <= nowMs).sort(bySoonest);
    // The time it actually rang, which after a restart can be later than dueAtMs.
    for (const t of fired) t.firedAtMs = nowMs;
    return fired.map((t) => ({ ...t }));
  }

  /** Fired entries still ringing at `nowMs`, in the order they fired. */
  ringing(nowMs: number): Timer[] {
    return this.ringingNow(nowMs).map((t) => ({ ...t }));
  }

  /** Stops what rings now (or only entry `id`). Returns what was stopped. */
  stop(nowMs: number, id?: string): Timer[] {
    checkTime('nowMs', nowMs);
    const stopped = this.ringingNow(nowMs).filter((t) => id === undefined || t.id === id);
    for (const t of stopped) t.stoppedAtMs = nowMs;
    return stopped.map((t) => ({ ...t }));
  }

  /** Earliest due time of any pending entry, or null. */
  nextDueMs(): number | null {
    let next: number | null = null;
    for (const t of this.timers) {
      if (t.firedAtMs === null && t.cancelledAtMs === null && (next === null || t.dueAtMs < next)) next = t.dueAtMs;
    }
    return next;
  }

  /** Like `nextDueMs`, but also when a ring running now ends by itself (to stop a repeating chime on time). */
  nextWakeMs(nowMs: number): number | null {
    const times = this.ringingNow(nowMs).map((t) => ringEndMs(t)!);
    const due = this.nextDueMs();
    if (due !== null) times.push(due);
    return times.length > 0 ? Math.min(...times) : null;
  }

  /** Every entry the book holds, in the order they were set. */
  all(): Timer[] {
    return this.timers.map((t) => ({ ...t }));
  }

  /**
   * Forgets finished entries (cancelled, or fired and no longer ringing) that
   * finished over KEEP_FINISHED_MS ago, and all but the newest MAX_FINISHED.
   * Returns what was forgotten.
   */
  prune(nowMs: number): Timer[] {
    checkTime('nowMs', nowMs);
    const finishedAt = (t: Timer): number | null => {
      if (t.cancelledAtMs !== null) return t.cancelledAtMs;
      if (t.firedAtMs === null) return null;
      const end = Math.min(t.stoppedAtMs ?? Infinity, ringEndMs(t)!);
      return end <= nowMs ? end : null;
    };
    const finished = this.timers
      .map((t) => ({ t, at: finishedAt(t) }))
      .filter((x): x is { t: Timer; at: number } => x.at !== null)
      .sort((a, b) => b.at - a.at);
    const drop = new Set(finished.filter((x, i) => i >= MAX_FINISHED || x.at < nowMs - KEEP_FINISHED_MS).map((x) => x.t));
    return this.removeWhere((t) => drop.has(t));
  }

  toJSON(): { version: number; nextId: number; timers: Timer[] } {
    return { version: FORMAT_VERSION, nextId: this.nextId, timers: this.all() };
  }

  /** Strict: anything malformed throws an Error that names the field and what is wrong with it (see timer-format.ts). */
  static fromJSON(data: unknown): TimerBook {
    const { nextId, timers } = parseTimerFile(data);
    const book = new TimerBook(timers);
    book.nextId = nextId;
    return book;
  }

  private add(kind: TimerKind, name: string | null, durationMs: number | null, nowMs: number, dueAtMs: number): Timer {
    if (this.full(nowMs)) throw new RangeError(`At most ${MAX_ACTIVE} timers and alarms can be set at once`);
    const t: Timer = { id: this.newId(), kind, name, durationMs, setAtMs: nowMs, dueAtMs, firedAtMs: null, cancelledAtMs: null, stoppedAtMs: null };
    this.timers.push(t);
    return { ...t };
  }

  /**
   * Never reuses an id still in the book (entries may have been loaded with any ids). The counter
   * starts over at 1 rather than pass the largest safe integer: a book is never saved that its own
   * load would refuse.
   */
  private newId(): string {
    const used = new Set(this.timers.map((t) => t.id));
    let id: string;
    do {
      id = `t${this.nextId}`;
      this.nextId = this.nextId >= Number.MAX_SAFE_INTEGER ? 1 : this.nextId + 1;
    } while (used.has(id));
    return id;
  }

  /** The book's own entries (not copies) still counting down at `nowMs`, soonest first. */
  private pending(nowMs: number): Timer[] {
    return this.timers.filter((t) => t.firedAtMs === null && t.cancelledAtMs === null && t.dueAtMs > nowMs).sort(bySoonest);
  }

  /** Pending (due or not) or ringing at `nowMs`: what counts towards MAX_ACTIVE. */
  private unfinished(nowMs: number): Timer[] {
    return this.timers.filter((t) => t.cancelledAtMs === null && (t.firedAtMs === null || (t.stoppedAtMs === null && nowMs < ringEndMs(t)!)));
  }

  /** Removes in one pass (a hand-made file may hold thousands: splicing each would be quadratic); returns copies of what went. */
  private removeWhere(drop: (t: Timer) => boolean): Timer[] {
    const removed: Timer[] = [];
    let kept = 0;
    for (const t of this.timers) {
      if (drop(t)) removed.push({ ...t });
      else this.timers[kept++] = t;
    }
    this.timers.length = kept;
    return removed;
  }

  private ringingNow(nowMs: number): Timer[] {
    return this.timers
      .filter((t) => t.firedAtMs !== null && t.stoppedAtMs === null && t.cancelledAtMs === null && nowMs < ringEndMs(t)!)
      .sort((a, b) => a.firedAtMs! - b.firedAtMs! || bySoonest(a, b));
  }
}

/**
 * Epoch ms of the next moment after `now` at which the local clock shows
 * hour:minute. `ampm` given: `hour` is 1-12 on a 12-hour clock (12 am is
 * midnight, 12 pm noon). `ampm` null: an hour of 1-12 is read both ways and
 * the sooner wins ("seven o'clock" at 20:00 means 7:00 tomorrow morning,
 * at 10:00 it means 19:00 today); 0 or 13-23 is a 24-hour time.
 * Uses local-time Date arithmetic, so days of 23 or 25 hours (DST) are right;
 * a time the clock skips that day comes out as JavaScript shifts it (2:30 -> 3:30).
 */
export function nextOccurrence(hour: number, minute: number, ampm: 'am' | 'pm' | null, now: Date): number {
  if (!Number.isInteger(minute) || minute < 0 || minute > 59) throw new RangeError(`minute must be an integer 0-59, got ${minute}`);
  if (!Number.isFinite(now.getTime())) throw new RangeError('now is an invalid Date');
  let hours24: number[];
  if (ampm !== null) {
    if (!Number.isInteger(hour) || hour < 1 || hour > 12) throw new RangeError(`hour must be an integer 1-12 with am/pm, got ${hour}`);
    hours24 = [(hour % 12) + (ampm === 'pm' ? 12 : 0)];
  } else {
    if (!Number.isInteger(hour) || hour < 0 || hour > 23) throw new RangeError(`hour must be an integer 0-23, got ${hour}`);
    hours24 = hour >= 1 && hour <= 12 ? [hour % 12, (hour % 12) + 12] : [hour];
  }
  const nowMs = now.getTime();
  let best = Infinity;
  for (const h of hours24) {
    for (let dayOffset = 0; dayOffset <= 1; dayOffset++) {
      const at = new Date(now.getFullYear(), now.getMonth(), now.getDate() + dayOffset, h, minute, 0, 0).getTime();
      if (at > nowMs) {
        best = Math.min(best, at);
        break;
      }
    }
  }
  return best;
}
