/**
 * Incremental splitting of a streamed LLM reply into speakable clauses.
 *
 * The splitter keeps the whole raw reply and a cursor. Every decision about a
 * character is made from the characters already received; when a decision
 * needs a character that has not arrived yet (a "." at the very end of the
 * buffer), scanning stops there and resumes on the next push. That makes the
 * result independent of how the reply was cut into deltas, and a clause is
 * emitted as soon as its end is certain.
 *
 * Fenced code blocks (``` or ~~~, possibly arriving over many deltas) are
 * never spoken. By default they produce no clause at all (the code is on
 * screen); set `codeBlockText` (e.g. "Here is the code.") to speak a short
 * stand-in instead.
 */
import { toSpeakable } from './speakable';

export interface Clause {
  index: number;
  /** Speakable, non-empty. */
  text: string;
  /** [start, end) offsets into the full raw reply text pushed so far. */
  sourceStart: number;
  sourceEnd: number;
}

export interface ClauseSplitterOptions {
  /** The first clause may end at , ; : — once it has this many speakable chars. */
  firstClauseMinChars?: number;
  /** Later clauses end at , ; : — only once they have this many speakable chars. */
  minChars?: number;
  /** Longer clauses are cut at the last word boundary that keeps them within this. */
  maxChars?: number;
  /** Spoken in place of a fenced code block; '' (default) speaks nothing. */
  codeBlockText?: string;
}

const TERMINATORS = '.!?…';
// CJK sentence ends need no following space.
const CJK_TERMINATORS = '。！？．';
// Soft breaks that must be followed by whitespace ("1,000", "3:45", "http:" are not breaks).
const SOFT_SPACED = ',;:–';
// Soft breaks that stand on their own ("word—word", CJK commas).
const SOFT_UNSPACED = '—，、；：';
// Characters that still belong to the clause after its punctuation.
const CLOSERS = '"\'”’»)]}*_」』）》';

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'cf', 'approx',
  'fig', 'al', 'gen', 'sgt', 'capt', 'lt', 'col', 'rev', 'hon', 'vol', 'pp', 'eg', 'ie',
]);

const SPACE_RE = /\s/;
const CJK_CHAR_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const LOWER_RE = /\p{Ll}/u;
const TOKEN_CHAR_RE = /[\p{L}\p{N}.]/u;

function isSpace(c: string | undefined): boolean {
  return c !== undefined && SPACE_RE.test(c);
}

interface FenceState {
  char: string;
  len: number;
  /** Raw offset of the opening marker. */
  start: number;
  /** Where to look for the end of the opening line, while `line` is -1. */
  searchFrom: number;
  /** Start of the next content line to examine, or -1 if not known yet. */
  line: number;
}

export class ClauseSplitter {
  private raw = '';
  /** Start of the text not yet emitted or discarded. */
  private start = 0;
  /** Next raw offset to examine; [start, scan) holds no boundary. */
  private scan = 0;
  private count = 0;
  /** Length of the backtick run that opened the current inline code span, or 0. */
  private inlineTicks = 0;
  /** Latest word boundary where the pending clause still fits in maxChars. */
  private lastSplit = -1;
  private fence: FenceState | null = null;
  private finished = false;
  private readonly firstMin: number;
  private readonly minChars: number;
  private readonly maxChars: number;
  private readonly codeBlockText: string;

  constructor(opts: ClauseSplitterOptions = {}) {
    this.firstMin = Math.max(1, opts.firstClauseMinChars ?? 20);
    this.minChars = Math.max(1, opts.minChars ?? 60);
    this.maxChars = Math.max(10, opts.maxChars ?? 220);
    this.codeBlockText = (opts.codeBlockText ?? '').trim();
  }

  get rawText(): string {
    return this.raw;
  }

  push(delta: string): Clause[] {
    if (this.finished) throw new Error('ClauseSplitter: push() after flush()');
    if (delta === '') return [];
    this.raw += delta;
    return this.run(false);
  }

  /** End of reply: everything still pending becomes clauses. Idempotent. */
  flush(): Clause[] {
    if (this.finished) return [];
    this.finished = true;
    const out = this.run(true);
    this.emit(this.start, this.raw.length, out);
    this.start = this.scan = this.raw.length;
    return out;
  }

  private run(final: boolean): Clause[] {
    const out: Clause[] = [];
    for (;;) {
      let progressed: boolean;
      if (this.fence) progressed = this.stepFence(final, out);
      else if (this.scan < this.raw.length) progressed = this.stepText(final, out);
      else progressed = false;
      if (!progressed) return out;
    }
  }

  /** Emits raw [a, b) (trimmed) as a clause if anything speakable is in it. */
  private emit(a: number, b: number, out: Clause[]): void {
    const s = this.raw;
    let ss = a;
    let ee = b;
    while (ss < ee && isSpace(s[ss])) ss++;
    while (ee > ss && isSpace(s[ee - 1])) ee--;
    if (ss >= ee) return;
    const text = toSpeakable(s.slice(ss, ee));
    if (text === '') return;
    out.push({ index: this.count++, text, sourceStart: ss, sourceEnd: ee });
  }

  /** Ends the pending clause at `end`; scanning continues from there. */
  private cut(end: number, out: Clause[]): true {
    this.emit(this.start, end, out);
    this.start = end;
    this.scan = end;
    this.lastSplit = -1;
    return true;
  }

  private speakLen(a: number, b: number): number {
    return toSpeakable(this.raw.slice(a, b)).length;
  }

  /** Returns false when it needs more input to decide. */
  private stepText(final: boolean, out: Clause[]): boolean {
    const s = this.raw;
    const n = s.length;
    const i = this.scan;
    const c = s[i]!;

    if (i === 0 || s[i - 1] === '\n') {
      const r = this.lineStart(i, final, out);
      if (r === 'wait') return false;
      if (r === 'fence') return true;
    }

    if (c === '\n') {
      this.inlineTicks = 0; // inline code never spans lines
      this.cut(i, out);
      this.scan = i + 1;
      return true;
    }

    if (c === '`') {
      let j = i;
      while (j < n && s[j] === '`') j++;
      if (j === n && !final) return false; // the run may grow
      const len = j - i;
      if (this.inlineTicks === 0) this.inlineTicks = len;
      else if (this.inlineTicks === len) this.inlineTicks = 0;
      this.scan = j;
      return true;
    }

    if (this.inlineTicks === 0) {
      if (TERMINATORS.includes(c)) return this.sentenceEnd(i, final, out);
      if (CJK_TERMINATORS.includes(c)) {
        let j = i + 1;
        while (j < n && (CJK_TERMINATORS.includes(s[j]!) || TERMINATORS.includes(s[j]!))) j++;
        while (j < n && CLOSERS.includes(s[j]!)) j++;
        if (j === n && !final) return false; // a closing quote may follow
        return this.cut(j, out);
      }
      if (SOFT_SPACED.includes(c)) {
        let k = i + 1;
        while (k < n && CLOSERS.includes(s[k]!)) k++;
        if (k === n && !final) return false;
        if (k === n || isSpace(s[k])) {
          if (this.speakLen(this.start, k) >= this.softMin()) return this.cut(k, out);
        }
        this.scan = k;
        return true;
      }
      if (SOFT_UNSPACED.includes(c)) {
        if (this.speakLen(this.start, i + 1) >= this.softMin()) return this.cut(i + 1, out);
        this.scan = i + 1;
        return true;
      }
    }

    if (isSpace(c) || CJK_CHAR_RE.test(c)) {
      // A word boundary: check the length limit here, never mid-word.
      if (i - this.start >= this.maxChars / 2) {
        if (this.speakLen(this.start, i) > this.maxChars) {
          // Re-examine this same boundary against the new, shorter clause.
          const at = this.lastSplit > this.start ? this.lastSplit : i;
          this.cut(at, out);
          this.scan = i;
          return true;
        }
        if (this.bracketsBalanced(this.start, i)) this.lastSplit = i;
      }
    }

    this.scan = i + 1;
    return true;
  }

  private softMin(): number {
    return this.count === 0 ? this.firstMin : this.minChars;
  }

  /** Cutting inside "[link label](url)" would leave broken markdown. */
  private bracketsBalanced(a: number, b: number): boolean {
    let depth = 0;
    for (let k = a; k < b; k++) {
      const ch = this.raw[k];
      if (ch === '[') depth++;
      else if (ch === ']' && depth > 0) depth--;
    }
    return depth === 0;
  }

  private sentenceEnd(i: number, final: boolean, out: Clause[]): boolean {
    const s = this.raw;
    const n = s.length;
    let j = i;
    while (j < n && TERMINATORS.includes(s[j]!)) j++;
    const run = s.slice(i, j);
    let k = j;
    while (k < n && CLOSERS.includes(s[k]!)) k++;
    if (k === n && !final) return false; // "." at the end of the buffer: uncertain
    if (k < n && !isSpace(s[k])) {
      // "3.5", "e.g", "example.com", "?!x": not an end.
      this.scan = k;
      return true;
    }
    if (run === '.' && this.isNonFinalPeriod(i)) {
      this.scan = k;
      return true;
    }
    if (/^(?:\.{2,}|…+)$/.test(run)) {
      // "and so... maybe": an ellipsis followed by lowercase trails on.
      let m = k;
      while (m < n && (s[m] === ' ' || s[m] === '\t')) m++;
      if (m === n && !final) return false;
      if (m < n && LOWER_RE.test(s[m]!)) {
        this.scan = k;
        return true;
      }
    }
    return this.cut(k, out);
  }

  /** A "." that ends an abbreviation, an initial or a list number. */
  private isNonFinalPeriod(i: number): boolean {
    const s = this.raw;
    let t = i;
    while (t > 0 && TOKEN_CHAR_RE.test(s[t - 1]!)) t--;
    const tok = s.slice(t, i);
    if (tok === '') return false;
    if (/^\d+$/.test(tok)) {
      // "1. " at line start is a list marker; "in 2023. " ends a sentence.
      const lineStart = s.lastIndexOf('\n', t - 1) + 1;
      return /^[\s>#]*$/.test(s.slice(lineStart, t));
    }
    if (ABBREVIATIONS.has(tok.toLowerCase())) return true;
    if (/^(?:\p{L}\.)+\p{L}$/u.test(tok)) return true; // e.g, i.e, U.S
    if (/^\p{Lu}$/u.test(tok)) return true; // initial: "J. Smith"
    return false;
  }

  /** At the start of a line: detect a code fence before reading the line as prose. */
  private lineStart(i: number, final: boolean, out: Clause[]): 'no' | 'wait' | 'fence' {
    const s = this.raw;
    const nl = s.indexOf('\n', i);
    const line = nl < 0 ? s.slice(i) : s.slice(i, nl);
    const m = /^[ \t]*(`{3,}|~{3,})/.exec(line);
    if (m) {
      // "```" alone at the end of the buffer may still grow to "````".
      if (nl < 0 && !final && line.length === m[0].length) return 'wait';
      this.emit(this.start, i, out);
      const marker = m[1]!;
      const markerStart = i + m[0].length - marker.length;
      this.fence = {
        char: marker[0]!,
        len: marker.length,
        start: markerStart,
        searchFrom: i + m[0].length,
        line: nl < 0 ? -1 : nl + 1,
      };
      this.start = markerStart;
      this.scan = markerStart;
      this.inlineTicks = 0;
      this.lastSplit = -1;
      return 'fence';
    }
    // Could still become a fence once more characters arrive.
    if (nl < 0 && !final && /^[ \t]*(?:`{0,2}|~{0,2})$/.test(line)) return 'wait';
    return 'no';
  }

  private stepFence(final: boolean, out: Clause[]): boolean {
    const f = this.fence!;
    const s = this.raw;
    const n = s.length;
    if (f.line < 0) {
      const nl = s.indexOf('\n', f.searchFrom);
      if (nl < 0) {
        if (final) return this.closeFence(n, out);
        f.searchFrom = n;
        return false;
      }
      f.line = nl + 1;
    }
    const nl = s.indexOf('\n', f.line);
    if (nl < 0) {
      // Last line incomplete: it may be the closing fence; wait for its newline.
      // At the end of the reply the block ends here either way.
      return final ? this.closeFence(n, out) : false;
    }
    const line = s.slice(f.line, nl);
    const m = /^[ \t]*(`{3,}|~{3,})[ \t\r]*$/.exec(line);
    if (m && m[1]![0] === f.char && m[1]!.length >= f.len) return this.closeFence(nl, out);
    f.line = nl + 1;
    return true;
  }

  private closeFence(end: number, out: Clause[]): true {
    const f = this.fence!;
    let e = end;
    while (e > f.start && isSpace(this.raw[e - 1])) e--;
    if (this.codeBlockText !== '') {
      out.push({ index: this.count++, text: this.codeBlockText, sourceStart: f.start, sourceEnd: e });
    }
    this.fence = null;
    this.start = end;
    this.scan = end;
    this.inlineTicks = 0;
    this.lastSplit = -1;
    return true;
  }
}

/**
 * The raw prefix of the reply the user actually heard: the first
 * `playedClauses` clauses in full plus `fractionOfNext` (0..1) of the next
 * one, cut back to a word boundary. The fraction is measured in raw
 * characters of that clause, an approximation of its audio duration.
 * Always a prefix of `rawText`, never ending mid-word, trailing space trimmed.
 */
export function heardPrefix(
  rawText: string,
  clauses: Clause[],
  playedClauses: number,
  fractionOfNext: number,
): string {
  const played = Math.max(0, Math.min(clauses.length, Math.floor(Number.isFinite(playedClauses) ? playedClauses : 0)));
  let end = played > 0 ? clauses[played - 1]!.sourceEnd : 0;
  const next = clauses[played];
  const fraction = Number.isFinite(fractionOfNext) ? Math.max(0, Math.min(1, fractionOfNext)) : 0;
  if (next && fraction > 0) {
    const a = next.sourceStart;
    const b = next.sourceEnd;
    if (fraction >= 1) {
      end = Math.max(end, b);
    } else {
      const target = a + Math.floor(fraction * (b - a));
      // Walk back to a position where a word has just ended.
      for (let c = target; c > a; c--) {
        const ch = rawText[c];
        if (c === b || isSpace(ch) || (ch !== undefined && CJK_CHAR_RE.test(ch))) {
          end = Math.max(end, c);
          break;
        }
      }
    }
  }
  return rawText.slice(0, Math.min(end, rawText.length)).trimEnd();
}
