/**
 * From what a recognizer wrote to the tokens templates are matched against. Pure.
 *
 * Recognizers differ: "What's the time?", "whats the time", "Set a timer for 10 min.",
 * "7:30 p.m.", "seven thirty p m". Here all of them become lowercase words and numbers:
 * punctuation goes, except ':' and '.' between digits ("7:30", "1.5") and apostrophes inside a
 * word ("what's", "o'clock"); hyphens split words ("twenty-five"); digits and letters split
 * ("7pm" -> "7 pm"). Then the language's rewrites apply ("whats" -> "what is", "p m" -> "pm").
 */

/** A phrase rewrite from the language data: token sequence -> replacement tokens. */
export interface Rewrite {
  from: readonly string[];
  to: readonly string[];
}

// A number ("7:30", "1.5", "10") or a word with inner apostrophes ("o'clock").
const TOKEN_RE = /\d+(?:[:.]\d+)?|[\p{L}\p{M}]+(?:'[\p{L}\p{M}]+)*/gu;

/** Lowercase tokens, before rewrites. */
export function tokenize(text: string): string[] {
  const s = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc\u0060\u00b4]/g, "'")
    // "1,000": the comma groups digits, it does not separate numbers.
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  return s.match(TOKEN_RE) ?? [];
}

/** Applies phrase rewrites left to right, longest phrase first (they must be sorted so). */
export function applyRewrites(tokens: readonly string[], rewrites: readonly Rewrite[]): string[] {
  const out: string[] = [];
  let i = 0;
  outer: while (i < tokens.length) {
    for (const r of rewrites) {
      if (r.from.length && r.from.every((t, j) => tokens[i + j] === t)) {
        out.push(...r.to);
        i += r.from.length;
        continue outer;
      }
    }
    out.push(tokens[i++]!);
  }
  return out;
}

function startsWithPhrase(tokens: readonly string[], at: number, phrase: readonly string[]): boolean {
  return phrase.every((t, j) => tokens[at + j] === t);
}

/**
 * Drops filler phrases at the start ("hey", "okay", "can you") and at the end ("please",
 * "for me"), repeatedly, but never the last word: "please" alone stays "please" (and matches
 * nothing) instead of becoming an empty command. Fillers are sorted longest first.
 */
export function stripFillers(
  tokens: readonly string[],
  start: readonly (readonly string[])[],
  end: readonly (readonly string[])[],
): string[] {
  let from = 0;
  let to = tokens.length;
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of start) {
      if (f.length < to - from && startsWithPhrase(tokens, from, f)) {
        from += f.length;
        changed = true;
        break;
      }
    }
    for (const f of end) {
      if (f.length < to - from && startsWithPhrase(tokens, to - f.length, f)) {
        to -= f.length;
        changed = true;
        break;
      }
    }
  }
  return tokens.slice(from, to);
}
