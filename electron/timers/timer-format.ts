/**
 * The timers file's format (`timers.json`): what `TimerBook.fromJSON` accepts. Strict, so that a
 * hand-edited or damaged file is refused whole (and kept aside by the store) rather than loaded
 * half right. How many entries it holds is not checked here: the keeper bounds that at load, keeping
 * the file's timers rather than refusing them all.
 */

/** One timer or alarm as the book holds it and the file stores it. */
export type TimerKind = 'timer' | 'alarm';

export interface Timer {
  id: string;
  kind: TimerKind;
  /** As the user said it ("pasta"); matched case-insensitively. */
  name: string | null;
  /** Timers: the total length asked for (grows with `addTime`). Alarms: null. */
  durationMs: number | null;
  setAtMs: number;
  dueAtMs: number;
  firedAtMs: number | null;
  cancelledAtMs: number | null;
  stoppedAtMs: number | null;
}

export const FORMAT_VERSION = 1;
/** The furthest from 1970 a Date can be (ms): beyond it a time cannot be said or shown. */
export const MAX_DATE_MS = 8.64e15;
/** Longer than any name a spoken request gives a timer. */
export const MAX_NAME_CHARS = 100;

const TIMER_KEYS = ['id', 'kind', 'name', 'durationMs', 'setAtMs', 'dueAtMs', 'firedAtMs', 'cancelledAtMs', 'stoppedAtMs'] as const;

/** A time a Date can hold, in epoch ms. */
export function isTime(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_DATE_MS;
}

/** The entries and id counter of a timers file; anything malformed throws an Error that names the field and what is wrong with it. */
export function parseTimerFile(data: unknown): { nextId: number; timers: Timer[] } {
  const fail = (msg: string): never => {
    throw new Error(`Invalid timer data: ${msg}`);
  };
  if (!isRecord(data)) return fail(`expected an object, got ${describe(data)}`);
  for (const key of Object.keys(data)) {
    if (key !== 'version' && key !== 'nextId' && key !== 'timers') fail(`unknown field "${key}"`);
  }
  if (data.version !== FORMAT_VERSION) fail(`version must be ${FORMAT_VERSION}, got ${describe(data.version)}`);
  if (!Number.isSafeInteger(data.nextId) || (data.nextId as number) < 1) fail(`nextId must be a positive integer, got ${describe(data.nextId)}`);
  if (!Array.isArray(data.timers)) return fail(`timers must be an array, got ${describe(data.timers)}`);

  const ids = new Set<string>();
  const timers = data.timers.map((raw: unknown, i: number): Timer => {
    const at = `timers[${i}]`;
    if (!isRecord(raw)) return fail(`${at} must be an object, got ${describe(raw)}`);
    for (const key of Object.keys(raw)) {
      if (!(TIMER_KEYS as readonly string[]).includes(key)) fail(`${at} has an unknown field "${key}"`);
    }
    for (const key of TIMER_KEYS) {
      if (!(key in raw)) fail(`${at}.${key} is missing`);
    }
    const t = raw as Record<(typeof TIMER_KEYS)[number], unknown>;
    if (typeof t.id !== 'string' || t.id === '') fail(`${at}.id must be a non-empty string, got ${describe(t.id)}`);
    if (ids.has(t.id as string)) fail(`${at}.id "${t.id as string}" is used twice`);
    ids.add(t.id as string);
    if (t.kind !== 'timer' && t.kind !== 'alarm') fail(`${at}.kind must be "timer" or "alarm", got ${describe(t.kind)}`);
    if (t.name !== null && (typeof t.name !== 'string' || t.name.trim() === '')) fail(`${at}.name must be null or a non-empty string, got ${describe(t.name)}`);
    // A name is a word or two from a spoken request; a long one would only be spoken back at length.
    if (typeof t.name === 'string' && t.name.length > MAX_NAME_CHARS) fail(`${at}.name must be at most ${MAX_NAME_CHARS} characters, got ${t.name.length}`);
    if (t.kind === 'timer') {
      if (typeof t.durationMs !== 'number' || !Number.isFinite(t.durationMs) || t.durationMs <= 0) fail(`${at}.durationMs must be a positive number for a timer, got ${describe(t.durationMs)}`);
    } else if (t.durationMs !== null) {
      fail(`${at}.durationMs must be null for an alarm, got ${describe(t.durationMs)}`);
    }
    // Times are epoch ms a Date can hold: an alarm "due" at -1e308 would be spoken as "NaN NaN".
    for (const key of ['setAtMs', 'dueAtMs'] as const) {
      if (!isTime(t[key])) fail(`${at}.${key} must be a time in ms (at most ${MAX_DATE_MS} from 1970), got ${describe(t[key])}`);
    }
    for (const key of ['firedAtMs', 'cancelledAtMs', 'stoppedAtMs'] as const) {
      if (t[key] !== null && !isTime(t[key])) fail(`${at}.${key} must be null or a time in ms (at most ${MAX_DATE_MS} from 1970), got ${describe(t[key])}`);
    }
    if (t.firedAtMs !== null && t.cancelledAtMs !== null) fail(`${at} cannot be both fired and cancelled`);
    if (t.stoppedAtMs !== null && t.firedAtMs === null) fail(`${at}.stoppedAtMs is set but the entry never fired`);
    return t as unknown as Timer;
  });
  return { nextId: data.nextId as number, timers };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
