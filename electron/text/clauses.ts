/**
 * Incremental splitting of a streamed LLM reply into speakable clauses.
 *
 * The splitter reads the raw reply with a cursor. Every decision about a
 * character is made from the characters already received; when a decision
 * needs a character that has not arrived yet (a "." at the very end of the
 * buffer), scanning stops there and resumes on the next push. That makes the
 * result independent of how the reply was cut into deltas, and a clause is
 * emitted as soon as its end is certain.
 *
 * Whatever the reply, no clause speaks more than `maxChars` characters (at
 * most MAX_SPOKEN_CHARS), and splitting takes time linear in the reply: runs
 * of punctuation are read at most RUN_CAP characters ahead, a clause at most
 * `rawCap` raw characters long, and only the clause under way is kept in view.
 *
 * Fenced code blocks (``` or ~~~, possibly arriving over many deltas) are
 * never spoken. By default they produce no clause at all (the code is on
 * screen); set `codeBlockText` (e.g. "Here is the code.") to speak a short
 * stand-in instead.
 */
import { toSpeakable } from './speakable';
import { CodeFence } from './code-fence';
import { ClauseLength } from './clause-length';
import { RawWindow } from './raw-window';
import { MAX_SPOKEN_CHARS, maySpeak, splitForSpeech } from './speech-limits';

export interface Clause {
  index: number;
  /** Speakable, non-empty, at most maxChars long. */
  text: string;
  /** [start, end) offsets into the full raw reply text pushed so far. */
  sourceStart: number;
  sourceEnd: number;
}

export interface ClauseSplitterOptions {
  /** The first clause may end at , ; : — once it has this many speakable chars. */
  firstClauseMinChars?: number;
  /**
   * The first clause ends at the first word boundary after this many words, punctuation or not
   * (0: off): the voice can start on a few words while the model writes the rest of the sentence.
   */
  firstClauseWords?: number;
  /** Later clauses end at , ; : — only once they have this many speakable chars. */
  minChars?: number;
  /** Longer clauses are cut at the last word boundary that keeps them within this (32 to MAX_SPOKEN_CHARS). */
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
// A run of punctuation, closers, backticks or spaces is read this far at most: a longer one is
// decided where the cap falls, so waiting for a run to end never rescans a growing run.
const RUN_CAP = 64;
// Indentation beyond this is no code fence.
const MAX_FENCE_INDENT = 40;

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'cf', 'approx',
  'fig', 'al', 'gen', 'sgt', 'capt', 'lt', 'col', 'rev', 'hon', 'vol', 'pp', 'eg', 'ie',
]);

const SPACE_RE = /\s/;
export const CJK_CHAR_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const LOWER_RE = /\p{Ll}/u;
const TOKEN_CHAR_RE = /[\p{L}\p{N}.]/u;

function isSpace(c: string): boolean {
  return c !== '' && SPACE_RE.test(c);
}

function isAsciiAlnum(code: number): boolean {
  const lower = code | 32;
  return (lower >= 97 && lower <= 122) || (code >= 48 && code <= 57);
}

export class ClauseSplitter {
  private readonly raw = new RawWindow();
  private readonly length: ClauseLength;
  /** Start of the text not yet emitted or discarded. */
  private start = 0;
  /** Whether only whitespace, '>' and '#' precede `start` on its line (then "1." is a list marker). */
  private startAtLineHead = true;
  /** Next raw offset to examine; [start, scan) holds no boundary. */
  private scan = 0;
  private count = 0;
  /** Length of the backtick run that opened the current inline code span, or 0. */
  private inlineTicks = 0;
  /** Latest word boundary where the pending clause still fits in maxChars. */
  private lastSplit = -1;
  /** Latest word boundary outside brackets: the cut when none fits. */
  private lastBreak = -1;
  /** Where the word being read began. */
  private wordStart = 0;
  private fence: CodeFence | null = null;
  private finished = false;
  private readonly firstMin: number;
  private readonly firstWords: number;
  /** Words ended so far in the clause under way (counted for `firstWords`). */
  private words = 0;
  private readonly minChars: number;
  private readonly maxChars: number;
  /** The longest a clause may get in raw text (markup, a link) before it is cut regardless. */
  private readonly rawCap: number;
  private readonly codeBlockText: string;

  constructor(opts: ClauseSplitterOptions = {}) {
    this.firstMin = Math.max(1, opts.firstClauseMinChars ?? 20);
    this.firstWords = Math.max(0, Math.floor(opts.firstClauseWords ?? 0));
    this.minChars = Math.max(1, opts.minChars ?? 60);
    this.maxChars = Math.min(MAX_SPOKEN_CHARS, Math.max(32, opts.maxChars ?? 220));
    this.rawCap = Math.max(1000, 4 * this.maxChars);
    this.codeBlockText = (opts.codeBlockText ?? '').trim().slice(0, this.maxChars);
    this.length = new ClauseLength(this.raw, 2 * this.maxChars);
  }

  get rawText(): string {
    return this.raw.whole;
  }

  push(delta: string): Clause[] {
    if (this.finished) throw new Error('ClauseSplitter: push() after flush()');
    if (delta === '') return [];
    // One character before the clause stays in view: the line-start check reads it.
    this.raw.append(delta, (this.fence ? this.fence.next : this.start) - 1);
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

  private ch(i: number): string {
    return this.raw.ch(i);
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

  /** Emits raw [a, b) (trimmed) as clauses if anything speakable is in it: more than one when it speaks too long. */
  private emit(a: number, b: number, out: Clause[]): void {
    let ss = a;
    let ee = b;
    while (ss < ee && isSpace(this.ch(ss))) ss++;
    while (ee > ss && isSpace(this.ch(ee - 1))) ee--;
    if (ss >= ee) return;
    const source = this.raw.text(ss, ee);
    const text = maySpeak(source) ? toSpeakable(source) : '';
    if (text === '') return;
    const pieces = text.length <= this.maxChars ? [{ start: 0, end: text.length }] : splitForSpeech(text, this.maxChars);
    // Each piece gets the share of the raw source that it has of the speakable text, at least one
    // raw character (the speakable weights in speech-limits.ts keep pieces fewer than that).
    if (pieces.length > ee - ss) pieces.splice(ee - ss - 1, Infinity, { start: pieces[ee - ss - 1]!.start, end: text.length });
    let from = ss;
    pieces.forEach((p, k) => {
      const left = pieces.length - 1 - k;
      const share = k === pieces.length - 1 ? ee : ss + Math.round((p.end / text.length) * (ee - ss));
      let to = Math.max(from + 1, Math.min(ee - left, share));
      while (to > from + 1 && isSpace(this.ch(to - 1))) to--;
      out.push({ index: this.count++, text: text.slice(p.start, p.end), sourceStart: from, sourceEnd: to });
      from = to;
      while (from < ee - left && isSpace(this.ch(from))) from++;
    });
  }

  /** The clause now starts at `at`. */
  private setStart(at: number, lineHead = this.lineHeadBefore(at)): void {
    this.startAtLineHead = lineHead;
    this.start = at;
    this.wordStart = Math.max(this.wordStart, at);
    this.lastSplit = this.lastBreak = -1;
    this.words = 0;
    this.length.reset(at);
  }

  /** Ends the pending clause at `end`; scanning continues from there. */
  private cut(end: number, out: Clause[]): true {
    this.emit(this.start, end, out);
    this.setStart(end);
    this.scan = end;
    return true;
  }

  /**
   * [start, i) speaks too long: cut at the latest boundary that fits, else the latest word
   * boundary, else inside the word (`back`: [start, i - 1) was the longest that fit).
   */
  private overflow(i: number, back: boolean, out: Clause[]): true {
    let at = this.lastSplit > this.start ? this.lastSplit : this.lastBreak > this.start ? this.lastBreak : i;
    if (at === i && back && i - 1 > this.start) at = i - 1;
    const c = this.raw.code(at);
    if (c >= 0xdc00 && c <= 0xdfff && at - 1 > this.start) at--; // not between a surrogate pair
    this.cut(at, out);
    this.scan = i;
    return true;
  }

  /** Returns false when it needs more input to decide. */
  private stepText(final: boolean, out: Clause[]): boolean {
    const n = this.raw.length;
    const i = this.scan;
    if (i - this.start >= this.rawCap) return this.overflow(i, false, out);

    if (i === 0 || this.ch(i - 1) === '\n') {
      const r = this.lineStart(i, final, out);
      if (r === 'wait') return false;
      if (r === 'fence') return true;
    }

    const code = this.raw.code(i);
    if (isAsciiAlnum(code)) return this.stepWord(i, out); // most of any text: none of the checks below applies

    const c = this.ch(i);
    if (c === '\n') {
      this.inlineTicks = 0; // inline code never spans lines
      this.cut(i, out);
      this.scan = i + 1;
      return true;
    }

    if (c === '`') {
      let j = i;
      while (j < n && j - i < RUN_CAP && this.ch(j) === '`') j++;
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
        while (j < n && j - i < RUN_CAP && (CJK_TERMINATORS.includes(this.ch(j)) || TERMINATORS.includes(this.ch(j)))) j++;
        while (j < n && j - i < RUN_CAP && CLOSERS.includes(this.ch(j))) j++;
        if (j === n && !final) return false; // a closing quote may follow
        return this.cut(j, out);
      }
      if (SOFT_SPACED.includes(c)) {
        let k = i + 1;
        while (k < n && k - i < RUN_CAP && CLOSERS.includes(this.ch(k))) k++;
        if (k === n && !final) return false;
        if (k === n || isSpace(this.ch(k))) {
          if (this.length.reaches(k, this.softMin())) return this.cut(k, out);
        }
        this.scan = k;
        return true;
      }
      if (SOFT_UNSPACED.includes(c)) {
        if (this.length.reaches(i + 1, this.softMin())) return this.cut(i + 1, out);
        this.scan = i + 1;
        return true;
      }
    }

    if (isSpace(c) || CJK_CHAR_RE.test(c)) {
      // A word boundary: the place to check the length limit, and to cut when it is passed.
      const fits = this.length.fits(i, this.maxChars);
      if (fits === false) return this.overflow(i, false, out); // re-examines i against the shorter clause
      const open = this.length.openBrackets(i); // cutting inside "[link label](url)" would leave broken markdown
      if (fits && i - this.start >= this.maxChars / 2 && open === 0) this.lastSplit = i;
      if (open === 0 && i > this.start) this.lastBreak = i;
      if (i > this.start && !isSpace(this.ch(i - 1))) this.words++;
      if (this.count === 0 && this.firstWords > 0 && this.words >= this.firstWords && open === 0 && this.inlineTicks === 0) return this.cut(i, out);
      this.wordStart = i + 1;
      this.scan = i + 1;
      return true;
    }
    return this.stepWord(i, out);
  }

  /** Inside a word: a word longer than a clause ("aaaa…" with no space) is cut where the limit falls. */
  private stepWord(i: number, out: Clause[]): boolean {
    if (i - Math.max(this.start, this.wordStart) >= this.maxChars && this.length.fits(i, this.maxChars) === false) {
      return this.overflow(i, true, out);
    }
    this.scan = i + 1;
    return true;
  }

  private softMin(): number {
    return this.count === 0 ? this.firstMin : this.minChars;
  }

  private sentenceEnd(i: number, final: boolean, out: Clause[]): boolean {
    const n = this.raw.length;
    let j = i;
    while (j < n && j - i < RUN_CAP && TERMINATORS.includes(this.ch(j))) j++;
    const run = this.raw.text(i, j);
    let k = j;
    while (k < n && k - i < RUN_CAP && CLOSERS.includes(this.ch(k))) k++;
    if (k === n && !final) return false; // "." at the end of the buffer: uncertain
    if (k < n && !isSpace(this.ch(k))) {
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
      while (m < n && m - k < RUN_CAP && (this.ch(m) === ' ' || this.ch(m) === '\t')) m++;
      if (m === n && !final) return false;
      if (m < n && LOWER_RE.test(this.ch(m))) {
        this.scan = k;
        return true;
      }
    }
    return this.cut(k, out);
  }

  /** A "." that ends an abbreviation, an initial or a list number. */
  private isNonFinalPeriod(i: number): boolean {
    let t = i;
    while (t > this.start && TOKEN_CHAR_RE.test(this.ch(t - 1))) t--;
    const tok = this.raw.text(t, i);
    if (tok === '') return false;
    // "1. " at line start is a list marker; "in 2023. " ends a sentence.
    if (/^\d+$/.test(tok)) return this.lineHeadBefore(t);
    if (ABBREVIATIONS.has(tok.toLowerCase())) return true;
    if (/^(?:\p{L}\.)+\p{L}$/u.test(tok)) return true; // e.g, i.e, U.S
    if (/^\p{Lu}$/u.test(tok)) return true; // initial: "J. Smith"
    return false;
  }

  /** Whether only whitespace, '>' and '#' stand between the start of its line and `t`. */
  private lineHeadBefore(t: number): boolean {
    for (let k = t - 1; k >= this.start; k--) {
      const c = this.ch(k);
      if (c === '\n') return true;
      if (c !== '>' && c !== '#' && !isSpace(c)) return false;
    }
    return this.startAtLineHead;
  }

  /** At the start of a line: detect a code fence before reading the line as prose. */
  private lineStart(i: number, final: boolean, out: Clause[]): 'no' | 'wait' | 'fence' {
    const n = this.raw.length;
    let j = i;
    while (j < n && (this.ch(j) === ' ' || this.ch(j) === '\t')) {
      if (++j - i > MAX_FENCE_INDENT) return 'no';
    }
    const marker = this.ch(j);
    let k = j;
    if (marker === '`' || marker === '~') while (k < n && k - j < RUN_CAP && this.ch(k) === marker) k++;
    // The indentation, or a marker ("```" may still grow to "````"), may go on.
    if (k === n && !final && k - j < RUN_CAP) return 'wait';
    if (k - j < 3) return 'no';
    this.emit(this.start, i, out);
    this.fence = new CodeFence(marker, k - j, j);
    this.setStart(j, true);
    this.scan = j;
    this.inlineTicks = 0;
    return 'fence';
  }

  private stepFence(final: boolean, out: Clause[]): boolean {
    const { buf, base } = this.raw.view();
    const nl = this.fence!.scan(buf, base, this.raw.length);
    if (nl >= 0) return this.closeFence(nl, out);
    // At the end of the reply the block ends here either way.
    return final ? this.closeFence(this.raw.length, out) : false;
  }

  private closeFence(end: number, out: Clause[]): true {
    const f = this.fence!;
    if (this.codeBlockText !== '') {
      out.push({ index: this.count++, text: this.codeBlockText, sourceStart: f.start, sourceEnd: f.sourceEnd() });
    }
    this.fence = null;
    this.setStart(end, false);
    this.scan = end;
    this.inlineTicks = 0;
    return true;
  }
}
