/**
 * Keyword search over the conversation history (the `search_history` tool, "what did I say about
 * the trip"): the newest turns first, within bounds on bytes, turns, line length and time, so a
 * large or hand-edited history costs a bounded amount of memory and waiting.
 *
 * Files are read backwards, newest file first and each from its end, one reused chunk at a time:
 * whichever bound stops the reading, what was read is the newest part of the history.
 */
import { open } from 'node:fs/promises';
import { listLogFiles, sessionStart } from '../history/log-files';
import { Bm25Index, tokenize } from './bm25';

export interface HistoryHit {
  at: string;
  session: string;
  userText: string;
  assistantText: string;
  /** BM25 score; 0 for a search without terms (the latest turns of a date range). */
  score: number;
}

export interface HistoryQuery {
  /** The user's words; stop words ("what did I say about") and time words ("yesterday") are not terms. */
  words: string;
  /** Turns whose `at` is in [fromMs, toMs] (epoch ms, both ends included); absent: unbounded. */
  fromMs?: number;
  toMs?: number;
  /** 1 to MAX_HITS (5, the default). */
  limit?: number;
}

export interface SearchBounds {
  /** Bytes read at most, over all files. */
  maxBytes: number;
  /** Turns in the date range considered at most (the newest). */
  maxTurns: number;
  /** A longer line is skipped; counted in bytes, which are never fewer than its characters. */
  maxLineChars: number;
  /** Past this the reading stops and what was read is ranked (`truncated`). */
  timeLimitMs: number;
  /** Each returned text is cut to this many characters (the last one an ellipsis). */
  maxTextChars: number;
}

export const SEARCH_BOUNDS: SearchBounds = { maxBytes: 64 * 1024 * 1024, maxTurns: 20_000, maxLineChars: 256 * 1024, timeLimitMs: 1500, maxTextChars: 300 };

export interface HistorySearchResult {
  /** Best first (rank order); without terms, newest first. */
  hits: HistoryHit[];
  /** Turns read in the date range (with or without their texts). */
  turnsRead: number;
  /** Of those, turns logged with text logging off: never searched, never returned. */
  textlessTurns: number;
  bytesRead: number;
  /** A bound (bytes, turns, time) stopped the reading before the history it needed was all read. */
  truncated: boolean;
  tookMs: number;
}

export const MAX_HITS = 5;
/** The words of a turn the index sees (user's first): a long answer adds little past this. */
const DOC_CHARS = 2000;
const CHUNK_BYTES = 256 * 1024;
const MAX_QUERY_CHARS = 1000;
/** Clock changes between turns: a session started this long after the range may still hold turns in it. */
const CLOCK_SLACK_MS = 60 * 60 * 1000;

/** The fields of a logged turn the search reads. */
export interface TurnFields {
  at: string;
  atMs: number;
  session: string;
  texts: boolean;
  userText: string;
  assistantText: string;
}

const key = (name: string) => Buffer.from(`"${name}":`);
const KEYS = { at: key('at'), session: key('session'), texts: key('texts'), userText: key('userText'), assistantText: key('assistantText') };
const [OPEN_BRACE, CLOSE_BRACE, COMMA, QUOTE, BACKSLASH, CR] = Buffer.from('{},"\\\r');

/** Where the value of the first `"name":` that is an object key (after `{` or `,`) starts; -1 when none. */
function valueAt(line: Buffer, k: Buffer): number {
  for (let i = line.indexOf(k); i !== -1; i = line.indexOf(k, i + 1)) {
    // Inside a string every quote is escaped, so `,"name":` there is never preceded so.
    if (i > 0 && (line[i - 1] === OPEN_BRACE || line[i - 1] === COMMA)) return i + k.length;
  }
  return -1;
}

/** The JSON string literal at `p`, decoded; null when there is none or it is not valid. */
function stringAt(line: Buffer, p: number): string | null {
  if (p < 0 || line[p] !== QUOTE) return null;
  let escaped = false;
  for (let j = p + 1; j < line.length; j++) {
    const c = line[j]!;
    if (c === BACKSLASH) {
      escaped = true;
      j++;
    } else if (c === QUOTE) {
      if (!escaped) return line.toString('utf8', p + 1, j);
      try {
        return JSON.parse(line.toString('utf8', p, j + 1)) as string;
      } catch {
        return null;
      }
    } else if (c < 0x20) return null;
  }
  return null;
}

/**
 * The turn's fields found in the line's bytes, without parsing the rest of it (the timings, the
 * stages). Null when any is missing or not valid; parseTurnFields then gets its chance.
 */
export function scanTurnFields(line: Buffer): TurnFields | null {
  if (line[0] !== OPEN_BRACE || line[line.length - 1] !== CLOSE_BRACE) return null;
  const at = stringAt(line, valueAt(line, KEYS.at));
  const session = stringAt(line, valueAt(line, KEYS.session));
  const t = valueAt(line, KEYS.texts);
  const texts = t < 0 ? null : line.toString('latin1', t, t + 4) === 'true' ? true : line.toString('latin1', t, t + 5) === 'false' ? false : null;
  const userText = stringAt(line, valueAt(line, KEYS.userText));
  const assistantText = stringAt(line, valueAt(line, KEYS.assistantText));
  if (at === null || session === null || texts === null || userText === null || assistantText === null) return null;
  return fields(at, session, texts, userText, assistantText);
}

/** The same fields from the whole line parsed: any valid JSON spelling of a turn. Null when it is not one. */
export function parseTurnFields(text: string): TurnFields | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const o = (x: unknown) => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : null);
  const turn = o(v);
  const report = o(turn?.report);
  if (!turn || !report) return null;
  const { at, session, texts } = turn;
  const { userText, assistantText } = report;
  if (typeof at !== 'string' || typeof session !== 'string' || typeof texts !== 'boolean' || typeof userText !== 'string' || typeof assistantText !== 'string') return null;
  return fields(at, session, texts, userText, assistantText);
}

function fields(at: string, session: string, texts: boolean, userText: string, assistantText: string): TurnFields | null {
  const atMs = Date.parse(at);
  return Number.isNaN(atMs) ? null : { at, atMs, session, texts, userText, assistantText };
}

/** What the reader does after a line: go on, go to the next file (the rest of this one is older than the range), or stop. */
type Next = 'go' | 'next-file' | 'stop';

/**
 * Calls `onLine` for each line of the last `budget` bytes of `file`, last line first. `whole` is
 * false for a last line without its newline (maybe cut off while written). Lines longer than
 * `maxLine` bytes are skipped. A file that cannot be opened or read is passed over.
 */
async function eachLineBackwards(
  file: string,
  size: number,
  budget: number,
  maxLine: number,
  chunk: Buffer,
  onLine: (line: Buffer, whole: boolean) => Next,
  overTime: () => boolean,
): Promise<{ bytes: number; next: Next; complete: boolean }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return { bytes: 0, next: 'go', complete: true };
  }
  const start = Math.max(0, size - budget);
  let pos = size;
  let bytes = 0;
  // The end of a line whose start is further back, newest piece last; dropped once past maxLine.
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let overlong = false;
  let first = true;
  const emit = (head: Buffer): Next => {
    const whole = !first;
    first = false;
    const long = overlong || head.length + carryBytes > maxLine;
    const line = long || carryBytes === 0 ? head : Buffer.concat([head, ...carry]);
    carry = [];
    carryBytes = 0;
    overlong = false;
    const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    return long || end === 0 ? 'go' : onLine(line.subarray(0, end), whole);
  };
  try {
    while (pos > start) {
      const n = Math.min(chunk.length, pos - start);
      const { bytesRead } = await handle.read(chunk, 0, n, pos - n);
      bytes += bytesRead;
      // Shorter than listed: cut or replaced since; what is left is not this file's tail.
      if (bytesRead < n) return { bytes, next: 'go', complete: false };
      pos -= n;
      let hi = n;
      for (let nl = chunk.lastIndexOf(10, hi - 1); hi > 0 && nl !== -1; nl = hi > 0 ? chunk.lastIndexOf(10, hi - 1) : -1) {
        const next = emit(chunk.subarray(nl + 1, hi));
        if (next !== 'go') return { bytes, next, complete: false };
        hi = nl;
      }
      if (hi > 0 && !overlong) {
        if (carryBytes + hi > maxLine) [carry, carryBytes, overlong] = [[], 0, true];
        else {
          carry.unshift(Buffer.from(chunk.subarray(0, hi)));
          carryBytes += hi;
        }
      }
      if (overTime()) return { bytes, next: 'stop', complete: false };
    }
    // The file's first line: whole only when the file was read from its start.
    if (start > 0) return { bytes, next: 'go', complete: false };
    return { bytes, next: carryBytes > 0 || overlong ? emit(Buffer.alloc(0)) : 'go', complete: true };
  } catch {
    return { bytes, next: 'go', complete: false };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** At most `max` characters, as a string of its own (a slice would keep the whole text alive). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let n = Math.max(0, max - 1);
  if (n > 0 && /[\uD800-\uDBFF]/.test(text[n - 1]!)) n--;
  return `${Buffer.from(text.slice(0, n)).toString()}…`;
}

/** Searches the history in `dir` (no folder: no hits). Never throws for what a file holds; a folder it cannot list throws. */
export async function searchHistory(dir: string, q: HistoryQuery, bounds: Partial<SearchBounds> = {}): Promise<HistorySearchResult> {
  const t0 = performance.now();
  const b = { ...SEARCH_BOUNDS, ...bounds };
  const limit = Number.isFinite(q.limit) ? Math.min(MAX_HITS, Math.max(1, Math.floor(q.limit!))) : MAX_HITS;
  // The query may come from a model's tool call: anything not a number or a string counts as absent.
  const words = typeof q.words === 'string' ? q.words.slice(0, MAX_QUERY_CHARS) : '';
  const from = Number.isFinite(q.fromMs) ? q.fromMs! : -Infinity;
  const to = Number.isFinite(q.toMs) ? q.toMs! : Infinity;
  const ranked = tokenize(words).length > 0;
  const index = new Bm25Index();
  const kept: { atMs: number; hit: HistoryHit }[] = [];
  let turnsRead = 0;
  let textlessTurns = 0;
  let bytesRead = 0;
  let truncated = false;

  const onLine = (line: Buffer, whole: boolean): Next => {
    // A last line without its newline may be cut off: only a full parse can tell it is whole.
    const t = (whole ? scanTurnFields(line) : null) ?? parseTurnFields(line.toString('utf8'));
    if (!t || t.atMs > to) return 'go';
    if (t.atMs < from) return t.atMs < from - CLOCK_SLACK_MS ? 'next-file' : 'go';
    turnsRead++;
    if (!t.texts) textlessTurns++;
    else {
      if (ranked) index.add(`${t.userText}\n${t.assistantText}`.slice(0, DOC_CHARS));
      const hit = { at: t.at, session: t.session, userText: cut(t.userText, b.maxTextChars), assistantText: cut(t.assistantText, b.maxTextChars), score: 0 };
      kept.push({ atMs: t.atMs, hit });
      // Without terms the newest turns are the answer, and they are read first.
      if (!ranked && kept.length >= limit) return 'stop';
    }
    if (turnsRead >= b.maxTurns) {
      truncated = true;
      return 'stop';
    }
    return 'go';
  };

  const files = (await listLogFiles(dir)).reverse();
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const overTime = () => performance.now() - t0 > b.timeLimitMs;
  for (const f of files) {
    if (Date.parse(sessionStart(f.session)) > to + CLOCK_SLACK_MS) continue;
    const budget = b.maxBytes - bytesRead;
    if (budget <= 0 || overTime()) {
      truncated = true;
      break;
    }
    const r = await eachLineBackwards(f.path, f.bytes, budget, b.maxLineChars, chunk, onLine, overTime);
    bytesRead += r.bytes;
    if (r.next === 'stop') {
      if (ranked || kept.length < limit) truncated = true;
      break;
    }
    if (!r.complete && r.next === 'go' && f.bytes > budget) truncated = true;
  }

  let hits: HistoryHit[];
  if (ranked) {
    // Equal scores: the newer turn first, then the one read first (newer in its file).
    const found = index.search(words, limit, (a, c) => kept[c]!.atMs - kept[a]!.atMs || a - c);
    hits = found.map(({ id, score }) => ({ ...kept[id]!.hit, score }));
  } else {
    hits = kept
      .slice()
      .sort((a, c) => c.atMs - a.atMs)
      .slice(0, limit)
      .map((k) => k.hit);
  }
  return { hits, turnsRead, textlessTurns, bytesRead, truncated, tookMs: Math.round((performance.now() - t0) * 10) / 10 };
}
