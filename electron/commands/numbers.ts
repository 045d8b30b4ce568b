/**
 * English numbers for spoken commands: words <-> numbers, durations, clock times. Pure.
 *
 * Input is a list of normalized tokens (lowercase, see normalize.ts): recognizers give digits
 * ("10", "7:30", "1.5") or words ("ten", "seven thirty"), so every parser takes both, mixed.
 * Output for speech is always in words: every TTS voice reads "seven thirty p.m." the same way,
 * while "7:30" is read differently by each (or spelled out digit by digit).
 *
 * Another language gets its own module with these same exports (see sentences.ts).
 */

const SMALL = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
] as const;
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'] as const;

const WORD_VALUE = new Map<string, number>();
SMALL.forEach((w, i) => WORD_VALUE.set(w, i));
TENS.forEach((w, i) => { if (w) WORD_VALUE.set(w, i * 10); });

const DIGITS_RE = /^\d+(?:\.\d+)?$/;

/** 0..99 from one or two words ("seven", "thirty", "thirty five"); digits are not taken here. */
function belowHundred(w: readonly string[]): number | null {
  if (w.length === 1) return WORD_VALUE.get(w[0]!) ?? null;
  if (w.length === 2) {
    const t = WORD_VALUE.get(w[0]!);
    const u = WORD_VALUE.get(w[1]!);
    if (t !== undefined && u !== undefined && t >= 20 && t % 10 === 0 && u >= 1 && u <= 9) return t + u;
  }
  return null;
}

/** Whole numbers in words up to 999: "forty two", "a hundred", "one hundred and twenty". */
function integerWords(w: readonly string[]): number | null {
  const h = w.indexOf('hundred');
  if (h === -1) return belowHundred(w);
  if (h > 1) return null;
  let total = 100;
  if (h === 1) {
    const m = w[0] === 'a' || w[0] === 'an' ? 1 : WORD_VALUE.get(w[0]!);
    if (m === undefined || m < 1 || m > 9) return null;
    total = m * 100;
  }
  let i = h + 1;
  if (w[i] === 'and' && i + 1 < w.length) i++;
  if (i === w.length) return total;
  const rest = belowHundred(w.slice(i));
  return rest === null || rest === 0 ? null : total + rest;
}

/**
 * The number the WHOLE token list says, or null: digits ("10", "1.5"), words ("ten",
 * "twenty five", "a hundred and five"), "a"/"an" (1: "an hour") and "half"/"a half" (0.5).
 */
export function parseNumber(words: readonly string[]): number | null {
  if (words.length === 1) {
    const w = words[0]!;
    if (DIGITS_RE.test(w)) return Number(w);
    if (w === 'a' || w === 'an') return 1;
    if (w === 'half') return 0.5;
  }
  if (words.length === 2 && words[0] === 'a' && words[1] === 'half') return 0.5;
  if (words.length === 0) return null;
  return integerWords(words);
}

/** A whole number in words ("one hundred twenty five"; no "and", which durations use as a joiner). */
export function numberToWords(n: number): string {
  // No voice should ever say "NaN": that is a bug upstream, better found than spoken.
  if (!Number.isFinite(n)) throw new RangeError(`not a number to say: ${n}`);
  // Beyond what a timer or a clock needs, and not whole: digits (still readable by any voice).
  if (!Number.isInteger(n) || n < 0 || n >= 1_000_000) return String(n);
  if (n < 20) return SMALL[n]!;
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? ` ${SMALL[n % 10]!}` : '');
  if (n < 1000) return `${SMALL[Math.floor(n / 100)]!} hundred${n % 100 ? ` ${numberToWords(n % 100)}` : ''}`;
  return `${numberToWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberToWords(n % 1000)}` : ''}`;
}

const ORDINAL_IRREGULAR: Record<string, string> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

/** "first", "twelfth", "twentieth", "thirty first": for dates ("December first"). */
export function ordinalWords(n: number): string {
  const words = numberToWords(n).split(' ');
  const last = words.pop()!;
  let ord: string;
  if (ORDINAL_IRREGULAR[last]) ord = ORDINAL_IRREGULAR[last]!;
  else if (last.endsWith('y')) ord = `${last.slice(0, -1)}ieth`;
  else ord = `${last}th`;
  return [...words, ord].join(' ');
}

// ---------------------------------------------------------------------------------------------
// Durations

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const UNIT_MS = new Map<string, number>([
  ['second', SECOND], ['seconds', SECOND], ['sec', SECOND], ['secs', SECOND],
  ['minute', MINUTE], ['minutes', MINUTE], ['min', MINUTE], ['mins', MINUTE],
  ['hour', HOUR], ['hours', HOUR], ['hr', HOUR], ['hrs', HOUR],
]);

/** Whether a token is a duration unit ("minutes", "hr"): a timer's name must not be one. */
export function isDurationUnit(word: string): boolean {
  return UNIT_MS.has(word);
}

/** Fractions said before a unit: "half an hour", "a quarter of an hour". */
const FRACTIONS = new Map<string, number>([
  ['half a', 0.5], ['half an', 0.5],
  ['quarter', 0.25], ['a quarter', 0.25], ['quarter of a', 0.25], ['quarter of an', 0.25],
  ['a quarter of a', 0.25], ['a quarter of an', 0.25],
  ['three quarters', 0.75], ['three quarters of a', 0.75], ['three quarters of an', 0.75],
]);

/** How many of the unit that follows: "ten", "an", "1.5", "half an", "two and a half". */
function quantity(q: readonly string[]): number | null {
  if (q.length === 0) return null;
  const n = parseNumber(q);
  if (n !== null) return n;
  const f = FRACTIONS.get(q.join(' '));
  if (f !== undefined) return f;
  if (q.length >= 4 && q.slice(-3).join(' ') === 'and a half') {
    const whole = parseNumber(q.slice(0, -3));
    if (whole !== null && Number.isInteger(whole)) return whole + 0.5;
  }
  return null;
}

/**
 * Milliseconds the WHOLE token list says, or null: "10 minutes", "ten minutes", "an hour and a
 * half", "half an hour", "a minute and 30 seconds", "ninety seconds", "1 hour 15 minutes",
 * "two and a half hours", "1.5 hours", "five more minutes". Units go from larger to smaller,
 * each at most once (so "5 minutes 2 hours" is not a duration), and the total must be more
 * than zero.
 * "1:30" is not taken: minutes and seconds, or hours and minutes? The language model can ask.
 */
export function parseDuration(words: readonly string[]): number | null {
  let total = 0;
  let lastUnit = Infinity;
  let start = 0;
  for (let i = 0; i < words.length; i++) {
    const unit = UNIT_MS.get(words[i]!);
    if (unit === undefined) continue;
    let q = words.slice(start, i);
    if (start > 0 && q[0] === 'and') q = q.slice(1);
    // "five more minutes", "an extra minute": said when adding to a timer.
    if (q.length > 1 && (q[q.length - 1] === 'more' || q[q.length - 1] === 'extra')) q = q.slice(0, -1);
    const amount = quantity(q);
    if (amount === null || unit >= lastUnit) return null;
    total += amount * unit;
    lastUnit = unit;
    start = i + 1;
    // "an hour and a half": half of the unit just named, only as the last words.
    if (words.length - start === 3 && words.slice(start).join(' ') === 'and a half') {
      total += unit / 2;
      start = words.length;
    }
  }
  if (start === 0 || start !== words.length) return null;
  total = Math.round(total);
  return total > 0 && Number.isFinite(total) ? total : null;
}

/**
 * A duration for speech, to the second: "ten minutes", "one hour and thirty minutes",
 * "one minute and thirty seconds", "two hours, five minutes and one second". Under a second
 * but more than zero says "one second" (a timer that has not rung yet is not at zero).
 */
export function spellDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`not a duration to say: ${ms}`);
  let s = ms > 0 && ms < SECOND ? 1 : Math.round(Math.max(0, ms) / SECOND);
  if (s === 0) return 'zero seconds';
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts: string[] = [];
  const say = (n: number, unit: string) => parts.push(`${numberToWords(n)} ${unit}${n === 1 ? '' : 's'}`);
  if (h) say(h, 'hour');
  if (m) say(m, 'minute');
  if (s) say(s, 'second');
  return joinList(parts, 'and');
}

/** "a", "a and b", "a, b and c". */
function joinList(items: readonly string[], and: string): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]!}`;
}

// ---------------------------------------------------------------------------------------------
// Clock times

export interface ClockTime {
  /** 0-23 when `ampm` is known; 1-12 when it is not (`ampm: null`, "seven thirty"). */
  hour: number;
  minute: number;
  ampm: 'am' | 'pm' | null;
}

const AMPM_SUFFIXES: ReadonlyArray<[string[], 'am' | 'pm']> = [
  [['am'], 'am'], [['pm'], 'pm'],
  [['in', 'the', 'morning'], 'am'],
  [['in', 'the', 'afternoon'], 'pm'], [['in', 'the', 'evening'], 'pm'],
];

function endsWith(w: readonly string[], tail: readonly string[]): boolean {
  return w.length >= tail.length && tail.every((t, i) => w[w.length - tail.length + i] === t);
}

/** An hour said alone, as one token ("7", "seven", "seventeen") or two ("twenty one"). */
function hourValue(w: readonly string[]): number | null {
  if (w.length === 1 && /^\d{1,2}$/.test(w[0]!)) return Number(w[0]);
  const n = belowHundred(w);
  return n !== null && n <= 23 ? n : null;
}

/** Minutes after the hour: "30", "thirty", "thirty five", "oh five", "05". Bare "five" is not. */
function minuteValue(w: readonly string[]): number | null {
  if (w.length === 1 && /^\d{2}$/.test(w[0]!)) return Number(w[0]);
  if (w.length === 2 && (w[0] === 'oh' || w[0] === 'o' || w[0] === 'zero')) {
    const d = /^\d$/.test(w[1]!) ? Number(w[1]) : WORD_VALUE.get(w[1]!);
    return d !== undefined && d >= 1 && d <= 9 ? d : null;
  }
  const n = belowHundred(w);
  return n !== null && n >= 10 && n <= 59 ? n : null;
}

/** Minutes before "past"/"to": "half", "quarter", "ten", "ten minutes", "25". */
function relativeMinutes(w: readonly string[]): number | null {
  let q = w;
  if (q.length > 1 && (q[q.length - 1] === 'minutes' || q[q.length - 1] === 'minute')) q = q.slice(0, -1);
  const s = q.join(' ');
  if (s === 'half' || s === 'a half') return 30;
  if (s === 'quarter' || s === 'a quarter') return 15;
  const n = q.length === 1 && /^\d{1,2}$/.test(q[0]!) ? Number(q[0]) : belowHundred(q);
  return n !== null && n >= 1 && n <= 59 ? n : null;
}

function finish(h: number, m: number, ampm: 'am' | 'pm' | null): ClockTime | null {
  if (!Number.isInteger(h) || !Number.isInteger(m) || m < 0 || m > 59) return null;
  if (ampm) {
    if (h < 1 || h > 12) return null;
    return { hour: (h % 12) + (ampm === 'pm' ? 12 : 0), minute: m, ampm };
  }
  if (h < 0 || h > 23) return null;
  // A 24-hour time says which half of the day it is.
  if (h === 0) return { hour: 0, minute: m, ampm: 'am' };
  if (h > 12) return { hour: h, minute: m, ampm: 'pm' };
  return { hour: h, minute: m, ampm: null };
}

/**
 * A time of day from the WHOLE token list, or null: "seven", "seven o'clock", "seven thirty",
 * "six oh five", "7:30 pm", "7 30 pm", "0730", "17:30", "noon", "midnight", "half past six",
 * "quarter to eight", "ten past nine in the morning".
 */
export function parseClockTime(words: readonly string[]): ClockTime | null {
  let w = words.slice();
  let ampm: 'am' | 'pm' | null = null;
  for (const [tail, value] of AMPM_SUFFIXES) {
    if (endsWith(w, tail)) {
      ampm = value;
      w = w.slice(0, -tail.length);
      break;
    }
  }
  let oclock = false;
  if (w[w.length - 1] === "o'clock") {
    oclock = true;
    w.pop();
  }
  if (w.length === 0) return null;

  const s = w.join(' ');
  if (s === 'noon' || s === 'midday' || s === 'twelve noon' || s === '12 noon') {
    return ampm || oclock ? null : { hour: 12, minute: 0, ampm: 'pm' };
  }
  if (s === 'midnight' || s === 'twelve midnight' || s === '12 midnight') {
    return ampm || oclock ? null : { hour: 0, minute: 0, ampm: 'am' };
  }

  // "half past six", "quarter to eight", "ten minutes after nine"
  const rel = w.findIndex((t) => t === 'past' || t === 'after' || t === 'to' || t === 'till' || t === 'til' || t === 'before');
  if (rel > 0) {
    if (oclock) return null;
    const m = relativeMinutes(w.slice(0, rel));
    const h = hourValue(w.slice(rel + 1));
    if (m === null || h === null) return null;
    const past = w[rel] === 'past' || w[rel] === 'after';
    if (!past && m === 30) return null; // "half to seven" means different things in different places
    if (past) return finish(h, m, ampm);
    if (ampm || h === 0 || h > 12) {
      // Known half of the day: go back from the 24-hour time.
      const base = finish(h, 0, ampm);
      if (!base) return null;
      const total = (base.hour * 60 - m + 1440) % 1440;
      const hour = Math.floor(total / 60);
      return { hour, minute: total % 60, ampm: hour < 12 ? 'am' : 'pm' };
    }
    return finish(h === 1 ? 12 : h - 1, 60 - m, null);
  }

  // Digits: "7:30", "7.30", "0730", "7", "7 30"
  const colon = /^(\d{1,2})[:.](\d{2})$/.exec(s);
  if (colon) return oclock ? null : finish(Number(colon[1]), Number(colon[2]), ampm);
  if (w.length === 1 && /^\d{3,4}$/.test(s)) {
    if (oclock) return null;
    const n = Number(s);
    return finish(Math.floor(n / 100), n % 100, ampm);
  }

  // Words, or digits and words: hour then minutes ("seven thirty", "7 thirty", "twenty one fifteen")
  for (const hourLen of [1, 2]) {
    if (hourLen > w.length) break;
    const h = hourValue(w.slice(0, hourLen));
    if (h === null) continue;
    const rest = w.slice(hourLen);
    if (rest.length === 0) return finish(h, 0, ampm);
    if (oclock) continue;
    const m = minuteValue(rest);
    if (m !== null) return finish(h, m, ampm);
  }
  return null;
}

/**
 * A time of day (hour 0-23) for speech: "seven thirty p.m.", "six oh five a.m.", "seven p.m.",
 * "noon", "midnight". Without `ampm` (an alarm said as "seven thirty", or an alarm ringing, where
 * the half of the day is obvious): "seven thirty", "seven o'clock".
 */
export function spellClockTime(hour: number, minute: number, ampm = true): string {
  // An invalid Date's hours are NaN: refused, never said as "NaN NaN" (alarmNotice says no time instead).
  if (!Number.isInteger(hour) || hour < 0 || hour > 23 || !Number.isInteger(minute) || minute < 0 || minute > 59) {
    throw new RangeError(`not a time of day: ${hour}:${minute}`);
  }
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  if (ampm && minute === 0 && hour % 12 === 0) return hour === 12 ? 'noon' : 'midnight';
  let text = numberToWords(h12);
  if (minute === 0) text += ampm ? '' : " o'clock";
  else if (minute < 10) text += ` oh ${numberToWords(minute)}`;
  else text += ` ${numberToWords(minute)}`;
  if (ampm) text += hour < 12 ? ' a.m.' : ' p.m.';
  return text;
}
