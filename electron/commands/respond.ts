/**
 * What the assistant says after a local command, from the language's response templates.
 * Pure: the caller does the action (starts the timer, reads the clock) and passes what happened
 * in the context; this only words it. Numbers are spelled out ("ten minutes", "seven thirty
 * p.m.") so every TTS voice says them the same way.
 */
import type { ClockTime } from './numbers';
import { toSecondPerson } from '../memory/memory-words';
import type { CommandMatch } from './match';
import { getGrammar, type CommandLanguage, type Grammar } from './sentences';

/** Local calendar and clock fields; month 1-12, weekday 0 = Sunday, hour 0-23. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
}

/** A timer as the caller knows it. */
export interface TimerFact {
  name: string | null;
  /** Time left, in ms (for timer.add: after adding). */
  remainingMs: number;
}

export interface CommandContext {
  /** The local time, for time.now and date.today. Default: the current time. */
  now?: Date | LocalTime;
  /**
   * The timers the command acted on: for timer.status, the running ones it asks about (those
   * with the asked name when one was said); for timer.cancel, the ones canceled; for timer.add,
   * the one extended. Empty or missing: "There is no timer running."
   */
  timers?: readonly TimerFact[];
  /**
   * For alarm.set, the alarm as scheduled (say with the half of the day resolved; default: the
   * slots as heard); for alarm.cancel, the alarms canceled (empty: "There is no alarm set.").
   * Hour 0-23 when `ampm` is known, else 1-12.
   */
  alarms?: readonly ClockTime[];
  /** For repeat: the assistant's last reply. */
  lastReply?: string | null;
  /**
   * For timer.start and alarm.set: nothing was set, as `limit` timers and alarms are already set
   * ("full"); for timer.start and timer.add: the duration is over `maxDays` days ("tooLong").
   */
  refused?: { why: 'full'; limit: number } | { why: 'tooLong'; maxDays: number };
  /** For remember, forget, recall and history.search: what the memory did (the facts in the user's words). */
  memory?: MemoryOutcome;
}

/** What a memory command did, for its reply. Facts are as kept ("my sister is called anna"); replies say them back in the second person. */
export type MemoryOutcome =
  | { kind: 'off' | 'unusable' }
  | { kind: 'remembered'; fact: string; again: boolean; dropped: readonly string[] }
  | { kind: 'refused'; why: 'empty' | 'too-long' | 'secret' }
  /** `about` null: everything was asked for. */
  | { kind: 'forgot'; facts: readonly string[]; about: string | null }
  /** An unreadable memory file was moved aside (`keptAs`) and a new memory begun. */
  | { kind: 'cleared'; keptAs: string }
  /** Oldest first. */
  | { kind: 'recalled'; facts: readonly string[] }
  /** `hits`: the turns found, best first; `when`: the time asked about, as said ("yesterday"). */
  | { kind: 'history'; about: string; when: string | null; hits: ReadonlyArray<{ atMs: number; user: string }> }
  | { kind: 'history-off' | 'no-history' }
  | { kind: 'history-failed'; why: string };

function localTime(now: Date | LocalTime | undefined): LocalTime {
  if (now && !(now instanceof Date)) return now;
  const d = now ?? new Date();
  return { year: d.getFullYear(), month: d.getMonth() + 1, day: d.getDate(), weekday: d.getDay(), hour: d.getHours(), minute: d.getMinutes() };
}

/**
 * Fills {placeholders}. A value that starts a sentence gets a capital ("{duration} left." ->
 * "Ten minutes left."); a value ending in "." before a "." keeps one ("a.m.").
 */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}(\.?)/g, (_, key: string, dot: string, at: number) => {
    let v = values[key] ?? '';
    if (at === 0 || /[.!?]\s+$/.test(template.slice(0, at))) v = v.charAt(0).toUpperCase() + v.slice(1);
    return v.endsWith('.') ? v : v + dot;
  });
}

function say(g: Grammar, key: string, variant: string, values: Record<string, string> = {}): string {
  const t = g.data.responses[key]?.[variant];
  if (t === undefined) throw new Error(`${g.language}: no response "${key}.${variant}"`);
  return fill(t, values);
}

/** Remaining time as spoken: to the second under ten minutes, to the minute above. */
function remaining(g: Grammar, ms: number): string {
  const rounded = ms >= 10 * 60_000 ? Math.round(ms / 60_000) * 60_000 : Math.ceil(ms / 1000) * 1000;
  return g.numbers.spellDuration(rounded);
}

function clock(g: Grammar, t: ClockTime): string {
  return g.numbers.spellClockTime(t.hour, t.minute, t.ampm !== null);
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The reply to a matched command; '' for stop, pause and resume (the action is the answer). */
export function commandReply(match: CommandMatch, ctx: CommandContext = {}, lang: CommandLanguage = 'en'): string {
  const g = getGrammar(lang);
  const n = g.numbers;
  const s = match.slots;
  const asked = str(s.name);
  const timers = ctx.timers ?? [];
  const noTimer = () => (asked ? say(g, match.name, 'noneNamed', { name: asked }) : say(g, match.name, 'none'));
  const refused = ctx.refused;
  if (refused && (match.name === 'timer.start' || match.name === 'timer.add' || match.name === 'alarm.set')) {
    return refused.why === 'full' ? say(g, match.name, 'full', { count: n.numberToWords(refused.limit) }) : say(g, match.name, 'tooLong', { days: n.numberToWords(refused.maxDays) });
  }

  switch (match.name) {
    case 'timer.start': {
      const duration = n.spellDuration(typeof s.durationMs === 'number' ? s.durationMs : 0);
      return asked ? say(g, match.name, 'named', { name: asked, duration }) : say(g, match.name, 'default', { duration });
    }
    case 'timer.cancel': {
      if (timers.length === 0) return noTimer();
      if (timers.length > 1) return say(g, match.name, 'many', { count: n.numberToWords(timers.length) });
      const name = timers[0]!.name;
      return name ? say(g, match.name, 'named', { name }) : say(g, match.name, 'one');
    }
    case 'timer.status': {
      if (timers.length === 0) return noTimer();
      if (timers.length === 1) {
        const t = timers[0]!;
        const duration = remaining(g, t.remainingMs);
        return t.name ? say(g, match.name, 'named', { name: t.name, duration }) : say(g, match.name, 'one', { duration });
      }
      const items = timers.map((t) => {
        const duration = remaining(g, t.remainingMs);
        return t.name ? say(g, match.name, 'itemNamed', { name: t.name, duration }) : say(g, match.name, 'item', { duration });
      });
      const list = joinItems(items, g.data.words.and);
      return say(g, match.name, 'many', { count: n.numberToWords(timers.length), list });
    }
    case 'timer.add': {
      const t = timers[0];
      if (!t) return noTimer();
      const values = { duration: n.spellDuration(typeof s.durationMs === 'number' ? s.durationMs : 0), remaining: remaining(g, t.remainingMs) };
      return t.name ? say(g, match.name, 'named', { ...values, name: t.name }) : say(g, match.name, 'one', values);
    }
    case 'alarm.set': {
      const heard: ClockTime = {
        hour: typeof s.hour === 'number' ? s.hour : 0,
        minute: typeof s.minute === 'number' ? s.minute : 0,
        ampm: s.ampm === 'am' || s.ampm === 'pm' ? s.ampm : null,
      };
      return say(g, match.name, 'default', { time: clock(g, ctx.alarms?.[0] ?? heard) });
    }
    case 'alarm.cancel': {
      const alarms = ctx.alarms ?? [];
      if (alarms.length === 0) return say(g, match.name, 'none');
      if (alarms.length > 1) return say(g, match.name, 'many', { count: n.numberToWords(alarms.length) });
      return say(g, match.name, 'one', { time: clock(g, alarms[0]!) });
    }
    case 'time.now': {
      const t = localTime(ctx.now);
      return say(g, match.name, 'default', { time: n.spellClockTime(t.hour, t.minute) });
    }
    case 'date.today': {
      const t = localTime(ctx.now);
      return say(g, match.name, 'default', {
        weekday: g.data.words.weekdays[t.weekday] ?? '',
        month: g.data.words.months[t.month - 1] ?? '',
        day: n.ordinalWords(t.day),
        year: n.numberToWords(t.year),
      });
    }
    case 'repeat':
      return ctx.lastReply ? ctx.lastReply : say(g, match.name, 'none');
    case 'stop':
    case 'pause':
    case 'resume':
    case 'conversation.reset':
      return say(g, match.name, 'default');
    case 'remember':
    case 'forget':
    case 'recall':
    case 'history.search':
      return memoryReply(g, match.name, ctx.memory ?? { kind: 'off' }, localTime(ctx.now));
  }
}

/** The facts said back at most (recall), and the words of each earlier turn said back (history.search). */
const RECALL_SAID = 5;
const HISTORY_SAID = 2;
const HISTORY_WORDS = 20;

function memoryReply(g: Grammar, name: 'remember' | 'forget' | 'recall' | 'history.search', m: MemoryOutcome, now: LocalTime): string {
  const you = toSecondPerson;
  switch (m.kind) {
    case 'off':
    case 'unusable':
      return say(g, name === 'history.search' ? 'recall' : name, m.kind);
    case 'remembered':
      if (m.again) return say(g, name, 'again', { fact: you(m.fact) });
      return m.dropped.length ? say(g, name, 'dropped', { fact: you(m.fact), oldest: you(m.dropped[0]!) }) : say(g, name, 'default', { fact: you(m.fact) });
    case 'refused':
      return say(g, name, m.why === 'too-long' ? 'tooLong' : m.why);
    case 'forgot':
      if (m.about === null) return say(g, name, m.facts.length ? 'all' : 'allEmpty');
      if (m.facts.length === 0) return say(g, name, 'none', { about: you(m.about) });
      return m.facts.length === 1 ? say(g, name, 'one', { fact: you(m.facts[0]!) }) : say(g, name, 'many', { count: g.numbers.numberToWords(m.facts.length), about: you(m.about) });
    case 'cleared':
      return say(g, name, 'cleared', { file: m.keptAs });
    case 'recalled': {
      if (m.facts.length === 0) return say(g, name, 'none');
      if (m.facts.length === 1) return say(g, name, 'one', { fact: you(m.facts[0]!) });
      const latest = m.facts.slice(-RECALL_SAID).map(you);
      const list = joinItems(latest, g.data.words.and);
      return say(g, name, m.facts.length > RECALL_SAID ? 'latest' : 'many', { count: g.numbers.numberToWords(m.facts.length), list });
    }
    case 'history': {
      if (m.hits.length === 0) return m.when && !m.about ? say(g, name, 'noneWhen', { when: m.when }) : say(g, name, 'none', { about: you(m.about || 'that') });
      const items = m.hits.slice(0, HISTORY_SAID).map((h) => say(g, name, 'item', { when: dayWords(g, h.atMs, now), user: firstWords(h.user, HISTORY_WORDS) }));
      return say(g, name, 'found', { list: items.join('. ') });
    }
    case 'history-off':
      return say(g, name, 'textOff');
    case 'no-history':
      return say(g, name, 'noHistory');
    case 'history-failed':
      return say(g, name, 'failed', { why: m.why });
  }
}

function firstWords(text: string, n: number): string {
  const w = text.trim().replace(/[.!?]+$/, '').split(/\s+/);
  return w.length > n ? `${w.slice(0, n).join(' ')} ...` : w.join(' ');
}

/** "today", "yesterday", or "on Monday, December seventh" on the local calendar of `now`. */
function dayWords(g: Grammar, atMs: number, now: LocalTime): string {
  const d = new Date(atMs);
  const days = Math.round((new Date(now.year, now.month - 1, now.day).getTime() - new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime()) / 86_400_000);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  return `on ${g.data.words.weekdays[d.getDay()] ?? ''}, ${g.data.words.months[d.getMonth()] ?? ''} ${g.numbers.ordinalWords(d.getDate())}`;
}

function joinItems(items: readonly string[], and: string): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]!}`;
}

/** Said when a timer rings: "Your pasta timer is done." / "Your timer is done." */
export function timerDoneNotice(name: string | null, lang: CommandLanguage = 'en'): string {
  const g = getGrammar(lang);
  return name ? say(g, 'timer.done', 'named', { name }) : say(g, 'timer.done', 'default');
}

/**
 * Said when an alarm rings, hour 0-23: "It's seven o'clock: your alarm." A time that is no time of
 * day (the hours of an invalid Date are NaN) gives "Your alarm is ringing.", never "It's NaN NaN".
 */
export function alarmNotice(hour: number, minute: number, lang: CommandLanguage = 'en'): string {
  const g = getGrammar(lang);
  const valid = Number.isInteger(hour) && hour >= 0 && hour <= 23 && Number.isInteger(minute) && minute >= 0 && minute <= 59;
  if (!valid) return say(g, 'alarm.ring', 'unknown');
  return say(g, 'alarm.ring', 'default', { time: g.numbers.spellClockTime(hour, minute, false) });
}
