/**
 * Local spoken commands ("set a timer for ten minutes", "what time is it", "stop"), matched on
 * the final transcript before it goes to the language model: a match is answered at once, with
 * no model. Anything that is not a whole command (a question, a story, "what time is it in
 * Berlin") returns null and goes to the model. Pure: the renderer may import it too.
 */
import { applyRewrites, stripFillers, tokenize } from './normalize';
import { getGrammar, type CommandLanguage, type CommandName, type Grammar, type ShortCommand, type SlotValue } from './sentences';
import { matchTemplate, type SlotType } from './template';
import { editDistance } from '../text/edit-distance';

export type { CommandLanguage, CommandName, ShortCommand, SlotValue };

export interface CommandMatch {
  name: CommandName;
  /**
   * Typed values: durationMs (number), name (string), all (boolean), hour/minute (number),
   * ampm ('am' | 'pm' | null). Every slot an intent can have is present, null when not said.
   */
  slots: Record<string, SlotValue>;
}

/** Longer utterances are not commands (and would only cost matching time). */
const MAX_TOKENS = 24;

/** The tokens templates see: tokenized, rewritten, fillers dropped. */
export function normalizeCommand(text: string, lang: CommandLanguage = 'en'): string[] {
  const g = getGrammar(lang);
  return stripFillers(applyRewrites(tokenize(text), g.rewrites), g.fillersStart, g.fillersEnd);
}

function slotParser(g: Grammar) {
  return (slot: SlotType, words: readonly string[]): Record<string, SlotValue> | null => {
    switch (slot) {
      case 'duration': {
        const ms = g.numbers.parseDuration(words);
        return ms === null ? null : { durationMs: ms };
      }
      case 'time': {
        const t = g.numbers.parseClockTime(words);
        return t === null ? null : { hour: t.hour, minute: t.minute, ampm: t.ampm };
      }
      case 'name':
        return isName(g, words) ? { name: words.join(' ') } : null;
      case 'text':
        return { text: words.join(' ') };
    }
  };
}

/** A timer's name: plain words, none a number, a unit or a stopword ("pasta", "boiled eggs"). */
function isName(g: Grammar, words: readonly string[]): boolean {
  return words.every(
    (w) =>
      /^[\p{L}][\p{L}\p{M}']*$/u.test(w) &&
      !g.nameStopwords.has(w) &&
      !g.numbers.isDurationUnit(w) &&
      g.numbers.parseNumber([w]) === null,
  );
}

/** The command the whole utterance is, or null (then it is for the language model). */
export function matchCommand(text: string, lang: CommandLanguage = 'en'): CommandMatch | null {
  const g = getGrammar(lang);
  const tokens = normalizeCommand(text, lang);
  if (tokens.length === 0 || tokens.length > MAX_TOKENS) return null;
  const parse = slotParser(g);
  const cache = new Map<string, Record<string, SlotValue> | null>();
  for (const intent of g.intents) {
    for (const s of intent.sentences) {
      const values = matchTemplate(s.template, tokens, parse, cache);
      if (values) return { name: intent.name, slots: { ...intent.defaults, ...s.set, ...values } };
    }
  }
  return null;
}

/**
 * Whether a (streaming, partial) transcript is just one short interrupting word: "stop",
 * "pause" or "cancel", possibly repeated ("stop stop") and with fillers ("okay stop", "stop
 * please"). Used to confirm a barge-in on a single short word, where a longer utterance ("stop
 * the war in my novel") is not an interruption. A word said over the answer's echo is often
 * misheard by a letter ("storp", "stap", "wstop"): one letter's slack, for heard words of three
 * letters or more.
 */
export function isShortCommand(text: string, lang: CommandLanguage = 'en'): ShortCommand | null {
  const g = getGrammar(lang);
  // A lone letter is not a word but a fragment the recognizer made of noise (the echo's remains).
  const tokens = normalizeCommand(text, lang).filter((t) => t.length > 1);
  if (tokens.length === 0 || tokens.length > 3) return null;
  const kinds = new Set(tokens.map((t) => shortCommandOf(t, g)));
  const [kind] = kinds;
  return kinds.size === 1 && kind ? kind : null;
}

/** The short command a heard word is, exactly or one letter off (as written, or as it sounds); null for none. */
function shortCommandOf(token: string, g: Grammar): ShortCommand | null {
  const exact = g.shortCommands.get(token);
  if (exact) return exact;
  if (token.length < 3) return null;
  const sound = soundSpelling(token);
  for (const [word, kind] of g.shortCommands) {
    if (word.length >= 4 && (editDistance(token, word) <= 1 || editDistance(sound, soundSpelling(word)) <= 1)) return kind;
  }
  return null;
}

/**
 * A word spelt as it sounds in a non-rhotic accent: an "r" after a vowel and not before one is
 * silent ("starp" sounds as "stap"), and a doubled letter is one ("stopp"). A recognizer spells a
 * vowel that the echo over it made longer or darker this way, a letter or two from the command.
 */
function soundSpelling(word: string): string {
  return word.replace(/([aeiou])r+(?![aeiouy])/g, '$1').replace(/(.)\1+/g, '$1');
}
