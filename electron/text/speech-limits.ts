/**
 * How much text one synthesis call may get, and how to cut text down to that.
 *
 * A voice synthesizes one call as a whole: its memory grows with the text (the stand-in piper
 * voice took about 90 kB per character, and a 20 MB answer made onnxruntime ask for 45 GB). Every
 * clause the splitter emits fits in MAX_SPOKEN_CHARS, and the engine (SherpaTts) hands the voice
 * no more than that at once.
 */

/** The most characters one synthesis call gets: a long sentence, about 25 s of speech. */
export const MAX_SPOKEN_CHARS = 400;

/** A range [start, end) of a text. */
export interface Span {
  start: number;
  end: number;
}

/** What /\s/ matches, by character code: cheaper than a regex per character. */
export function isSpaceCode(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/**
 * Cuts `text` into pieces of at most `max` characters, trimmed and non-empty, in order. A piece
 * ends at the last sentence end in the back half of its window, else the last comma, semicolon or
 * colon, else the last space; a word longer than that is cut where the limit falls (never inside
 * a surrogate pair). Linear in the text: each window is scanned once.
 */
export function splitForSpeech(text: string, max: number): Span[] {
  const limit = Math.max(2, Math.floor(max));
  const out: Span[] = [];
  const n = text.length;
  let a = 0;
  for (;;) {
    while (a < n && isSpaceCode(text.charCodeAt(a))) a++;
    if (a >= n) return out;
    let b = n;
    while (b > a && isSpaceCode(text.charCodeAt(b - 1))) b--;
    if (b - a <= limit) {
      out.push({ start: a, end: b });
      return out;
    }
    const cut = cutPoint(text, a, limit);
    let e = cut;
    while (e > a && isSpaceCode(text.charCodeAt(e - 1))) e--;
    out.push({ start: a, end: e });
    a = cut;
  }
}

/** Where the piece that starts at `a` ends: a space after . ! ? , ; : or any space, else `a + limit`. */
function cutPoint(text: string, a: number, limit: number): number {
  const hi = a + limit;
  const lo = a + Math.floor(limit / 2);
  let comma = -1;
  let space = -1;
  // text[k] is a space that may end the piece; the piece is then [a, k).
  for (let k = hi; k > lo; k--) {
    if (!isSpaceCode(text.charCodeAt(k))) continue;
    const before = text[k - 1]!;
    if ('.!?…'.includes(before)) return k;
    if (comma < 0 && ',;:'.includes(before)) comma = k;
    if (space < 0) space = k;
  }
  if (comma >= 0) return comma;
  if (space >= 0) return space;
  return isHighSurrogate(text.charCodeAt(hi - 1)) ? hi - 1 : hi;
}

// Without one of these, toSpeakable() gives '' (see its last line and what it spells out).
const MAY_SPEAK_RE = /[\p{L}\p{N}%°±&→⇒(>]/u;

/** False when toSpeakable(text) is sure to be '': a quick test for runs of punctuation. */
export function maySpeak(text: string): boolean {
  return MAY_SPEAK_RE.test(text);
}

// How long toSpeakable() can make one raw character: '.' becomes " dot " in a domain, '%'
// " percent", "°C" " degrees Celsius"; everything else stays as long or shrinks.
const ASCII_WEIGHT = new Uint8Array(128).fill(1);
for (const [ch, w] of [
  ['.', 5], ['@', 4], ['%', 8], ['&', 5], ['~', 6], ['#', 7], ['*', 7], ['|', 2], ['>', 3], ['(', 3], ['[', 2],
] as const) {
  ASCII_WEIGHT[ch.charCodeAt(0)] = w;
}
const OTHER_WEIGHT = new Map<number, number>(
  [['°', 16], ['±', 15], ['×', 7], ['→', 4], ['⇒', 4], ['–', 4], ['—', 2]].map(([ch, w]) => [
    (ch as string).charCodeAt(0),
    w as number,
  ]),
);

/**
 * An upper bound on how many speakable characters raw character code `c` can become: the sum
 * over a raw text bounds the length of toSpeakable() of it, so most length checks need not run it.
 */
export function speakableWeight(c: number): number {
  return c < 128 ? ASCII_WEIGHT[c]! : (OTHER_WEIGHT.get(c) ?? 1);
}
