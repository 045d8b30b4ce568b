/**
 * A {text} slot as the user said it: the slot's value is in the matcher's normal form (lowercase,
 * "I'm" as "i am", "3rd" as "3 rd"), which is right for matching and wrong for a fact said back or
 * kept ("my sister is called Anna", "May 3rd"). The slot ends the utterance (before end fillers),
 * so its original is the shortest tail of the user's words that normalizes to it. Pure.
 */
import { applyRewrites, stripFillers } from './normalize';
import { getGrammar, type CommandLanguage } from './sentences';

const WORD = /\d+(?:[:.]\d+)?|[\p{L}\p{M}]+(?:['\u2019][\p{L}\p{M}]+)*/gu;

/** The user's own words for a {text} slot that ends the utterance; the normal form when they cannot be found. */
export function slotAsSaid(original: string, slotText: string, lang: CommandLanguage = 'en'): string {
  const g = getGrammar(lang);
  const found = [...original.matchAll(WORD)];
  const tokens = found.map((m) => m[0].toLowerCase().replace(/\u2019/g, "'"));
  const norm = (from: number, to: number) => applyRewrites(tokens.slice(from, to), g.rewrites).join(' ');
  for (let i = tokens.length - 1; i >= 0; i--) {
    // The tail from here is the slot and the end fillers dropped after it.
    if (stripFillers(applyRewrites(tokens.slice(i), g.rewrites), [], g.fillersEnd).join(' ') !== slotText) continue;
    for (let j = i + 1; j <= tokens.length; j++) {
      if (norm(i, j) !== slotText) continue;
      const last = found[j - 1]!;
      return original.slice(found[i]!.index, last.index! + last[0].length);
    }
  }
  return slotText;
}
