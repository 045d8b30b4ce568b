/**
 * Keyword search for the conversation history: English words to search terms (lowercase, stop
 * words dropped, a light stemmer), and a small BM25 index over documents added one at a time.
 * Pure: no I/O, so history-search.ts decides what is read and how much.
 */

/**
 * Words that say how the user asks, not what about ("what did I say about the trip"), and the
 * time words a caller turns into a date range ("yesterday"): a query of only these has no terms.
 */
const STOP_WORDS = new Set(
  `a an the and or but if of to in on at by for with from into as than then so too very
  is am are was were be been being it its it's this that these those there here
  what which who whom whose when where why how did do does done doing have has had
  i i'm i've me my mine myself we we're us our ours you you're your yours he him his she her
  they them their theirs one some any all something anything everything
  say says said saying talk talks talked talking tell told mention mentioned ask asked
  about remember recall again earlier before ago just can could would should will shall
  yesterday today tonight last week month year morning afternoon evening night recently`.split(/\s+/),
);

/** Longer "words" are ids, hashes or junk in a hand-edited file: not worth an index entry. */
const MAX_TERM_CHARS = 40;
const WORD = /[\p{L}\p{N}'’]+/gu;

/** A double consonant left by a suffix ("planned", "running") is undone; these letters double in the root ("called", "missed"). */
const KEEPS_DOUBLE = new Set(['l', 's', 'z', 'f']);
const VOWEL = /[aeiouy]/;

/**
 * Strips a plural or -ing/-ed so "trips" and "trip", "hiking", "hiked" and "hike", "cities" and
 * "city" meet. Deliberately light (no Porter rules): the same cut on both sides is all BM25 needs.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  let cut = false;
  if (/(?:ies|ied)$/.test(w)) w = `${w.slice(0, -3)}i`;
  else if (/(?:x|z|ch|sh|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.endsWith('ing') && w.length >= 6 && VOWEL.test(w.slice(0, -3))) [w, cut] = [w.slice(0, -3), true];
  else if (w.endsWith('ed') && w.length >= 5 && VOWEL.test(w.slice(0, -2))) [w, cut] = [w.slice(0, -2), true];
  const last = w[w.length - 1]!;
  if (cut && w.length >= 4 && last === w[w.length - 2] && !VOWEL.test(last) && !KEEPS_DOUBLE.has(last)) w = w.slice(0, -1);
  if (w.length < 4) return w;
  // Without knowing which roots end in e or y: "hike"/"hik(ing)" and "city"/"citi(es)" meet.
  if (w.endsWith('e')) return w.slice(0, -1);
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}i`;
  return w;
}

/** Each word's term (null: none), remembered: a history repeats a few thousand words, and stemming each again was most of the cost. */
const termOfWord = new Map<string, string | null>();
const MAX_REMEMBERED = 50_000;

function termOf(word: string): string | null {
  let w = word.includes('’') ? word.replace(/’/g, "'") : word;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.startsWith("'") || w.endsWith("'")) w = w.replace(/^'+|'+$/g, '');
  if (w === '' || w.length > MAX_TERM_CHARS || STOP_WORDS.has(w)) return null;
  // "don't" and "dont" are one word; a stop word's stem ("talked" is stopped already) stays out.
  const t = stem(w.includes("'") ? w.replace(/'/g, '') : w);
  return t === '' || STOP_WORDS.has(t) ? null : t;
}

/** The search terms of `text`, in order, repeats kept (term frequency counts them). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const word = m[0];
    let t = termOfWord.get(word);
    if (t === undefined) {
      t = termOf(word);
      // Bounded: a hand-edited file full of junk words must not grow it without end.
      if (termOfWord.size >= MAX_REMEMBERED) termOfWord.clear();
      termOfWord.set(word, t);
    }
    if (t !== null) terms.push(t);
  }
  return terms;
}

export interface Bm25Hit {
  /** The document's id: its position in the order documents were added (0, 1, 2, ...). */
  id: number;
  score: number;
}

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Ids and term counts share one number a posting (id * 256 + count): the index holds half as many numbers. */
const TF_BITS = 256;
/** Past this many documents an id no longer fits beside its count in a small integer. */
export const BM25_MAX_DOCS = 1 << 22;

/**
 * Postings only, no document text: per term the documents holding it, per document its length in
 * terms. About 8-12 bytes a distinct term of a document.
 */
export class Bm25Index {
  private readonly postings = new Map<string, number[]>();
  private readonly lengths: number[] = [];
  private totalLength = 0;

  get size(): number {
    return this.lengths.length;
  }

  /** Adds a document; returns its id. A document without terms still counts (it can never match). */
  add(text: string): number {
    const id = this.lengths.length;
    if (id >= BM25_MAX_DOCS) throw new RangeError(`a BM25 index holds at most ${BM25_MAX_DOCS} documents`);
    const terms = tokenize(text);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, tf] of counts) {
      const posting = id * TF_BITS + Math.min(tf, TF_BITS - 1);
      const list = this.postings.get(t);
      if (list) list.push(posting);
      else this.postings.set(t, [posting]);
    }
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    return id;
  }

  /**
   * The best `limit` documents for `query`, best first, only those scoring above 0. Equal scores go
   * by `tieBreak` (negative: a first), else the later-added document first.
   */
  search(query: string, limit: number, tieBreak?: (a: number, b: number) => number): Bm25Hit[] {
    const n = this.lengths.length;
    if (n === 0 || limit <= 0) return [];
    const avg = this.totalLength / n || 1;
    const scores = new Float64Array(n);
    const touched: number[] = [];
    for (const term of new Set(tokenize(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      // The +1 keeps idf positive even for a term in most documents (Lucene's form).
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const posting of list) {
        const id = Math.floor(posting / TF_BITS);
        const tf = posting % TF_BITS;
        if (scores[id] === 0) touched.push(id);
        scores[id] = scores[id]! + (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * this.lengths[id]!) / avg));
      }
    }
    const order = tieBreak ?? ((a: number, b: number) => b - a);
    return touched
      .filter((id) => scores[id]! > 0)
      .sort((a, b) => scores[b]! - scores[a]! || order(a, b))
      .slice(0, limit)
      .map((id) => ({ id, score: scores[id]! }));
  }
}
