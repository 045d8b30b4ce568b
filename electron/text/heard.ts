/** What part of a spoken reply the listener heard, in the reply's raw text. */
import { CJK_CHAR_RE, type Clause } from './clauses';

const SPACE_RE = /\s/;

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
        if (c === b || (ch !== undefined && (SPACE_RE.test(ch) || CJK_CHAR_RE.test(ch)))) {
          end = Math.max(end, c);
          break;
        }
      }
    }
  }
  return rawText.slice(0, Math.min(end, rawText.length)).trimEnd();
}
