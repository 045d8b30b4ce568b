/**
 * Loads a language's command data (`sentences/<lang>.json`) and compiles it once. Pure: the JSON
 * is bundled (an import, not a file read), so the renderer can use this too.
 *
 * The data file
 * -------------
 *   rewrite       token phrase -> replacement, applied after tokenizing ("whats" -> "what is",
 *                 "p m" -> "pm"). Templates are written in the rewritten form.
 *   fillers       phrases dropped at the start ("hey", "can you") and end ("please", "for me").
 *   shortCommands single words that interrupt speech (isShortCommand): word -> stop|pause|cancel.
 *   nameStopwords words a timer's {name} may not contain ("the", "timer", "for", ...).
 *   expansions    named pieces of template, used as <name>.
 *   intents       intent -> { slots: default slot values, sentences: [template | {set, sentences}] }.
 *                 `set` gives fixed slot values to the templates in its group ("all": true).
 *   responses     intent (and "timer.done", "alarm.ring") -> variant -> text with {placeholders};
 *                 respond.ts picks the variant.
 *   words         "and", month and weekday names (Sunday first) for replies.
 *
 * Template syntax
 * ---------------
 *   word          a literal token (lowercase, as normalized: "o'clock", "today's")
 *   [a|b c]       optional: one of the alternatives, or nothing
 *   (a|b c)       required: exactly one of the alternatives
 *   <name>        the expansion `name`
 *   {duration}    a slot: "ten minutes", "an hour and a half"      -> durationMs (number)
 *   {time}        a slot: "seven thirty", "7:30 pm", "noon"        -> hour, minute, ampm
 *   {name}        a slot: one to three words naming a timer ("pasta") -> name (string)
 *   {text}        a slot: any words (a fact to remember, what to search for) -> text (string)
 * A template matches the WHOLE utterance (after fillers are dropped), never part of it, so
 * "what time is it in berlin" does not match "what time is it". Templates are tried in file
 * order and the first match wins.
 *
 * Numbers, durations and clock times are parsed and spoken by the language's number module
 * (numbers.ts for English): those rules are code, the phrasings around them are data.
 */
import en from './sentences/en.json' with { type: 'json' };
import * as enNumbers from './numbers';
import { compileTemplate, type CompiledTemplate, type SlotType } from './template';
import type { Rewrite } from './normalize';

export type CommandLanguage = 'en';
export const COMMAND_LANGUAGES: readonly CommandLanguage[] = ['en'];

export type CommandName =
  | 'timer.start'
  | 'timer.cancel'
  | 'timer.status'
  | 'timer.add'
  | 'alarm.set'
  | 'alarm.cancel'
  | 'time.now'
  | 'date.today'
  | 'stop'
  | 'repeat'
  | 'conversation.reset'
  | 'pause'
  | 'resume'
  | 'remember'
  | 'forget'
  | 'recall'
  | 'history.search';

export const COMMAND_NAMES: readonly CommandName[] = [
  'timer.start', 'timer.cancel', 'timer.status', 'timer.add', 'alarm.set', 'alarm.cancel',
  'time.now', 'date.today', 'stop', 'repeat', 'conversation.reset', 'pause', 'resume',
  'remember', 'forget', 'recall', 'history.search',
];

export type SlotValue = string | number | boolean | null;
export type ShortCommand = 'stop' | 'pause' | 'cancel';

/** The shape of `sentences/<lang>.json`. */
export interface SentenceFile {
  language: string;
  rewrite: Record<string, string>;
  fillers: { start: string[]; end: string[] };
  shortCommands: Record<string, string>;
  nameStopwords: string[];
  expansions: Record<string, string>;
  intents: Record<string, { slots?: Record<string, SlotValue>; sentences: Array<string | { set: Record<string, SlotValue>; sentences: string[] }> }>;
  responses: Record<string, Record<string, string>>;
  words: { and: string; months: string[]; weekdays: string[] };
}

/** What parses and speaks numbers in a language (numbers.ts for English). */
export interface NumberRules {
  parseNumber(words: readonly string[]): number | null;
  parseDuration(words: readonly string[]): number | null;
  parseClockTime(words: readonly string[]): enNumbers.ClockTime | null;
  isDurationUnit(word: string): boolean;
  spellDuration(ms: number): string;
  spellClockTime(hour: number, minute: number, ampm?: boolean): string;
  numberToWords(n: number): string;
  ordinalWords(n: number): string;
}

export interface CompiledSentence {
  template: CompiledTemplate;
  set: Record<string, SlotValue>;
}

export interface CompiledIntent {
  name: CommandName;
  defaults: Record<string, SlotValue>;
  sentences: CompiledSentence[];
}

export interface Grammar {
  language: CommandLanguage;
  data: SentenceFile;
  numbers: NumberRules;
  rewrites: Rewrite[];
  fillersStart: string[][];
  fillersEnd: string[][];
  shortCommands: Map<string, ShortCommand>;
  nameStopwords: Set<string>;
  intents: CompiledIntent[];
}

const SOURCES: Record<CommandLanguage, { data: SentenceFile; numbers: NumberRules }> = {
  en: { data: en as SentenceFile, numbers: enNumbers },
};

const words = (phrase: string) => phrase.split(/\s+/).filter(Boolean);
const longestFirst = (a: string[], b: string[]) => b.length - a.length;
const SHORT_COMMANDS = new Set<string>(['stop', 'pause', 'cancel']);

/** Compiles a data file; throws on a bad template or an unknown intent (tests load every language). */
export function compileGrammar(language: CommandLanguage, data: SentenceFile, numbers: NumberRules): Grammar {
  const intents: CompiledIntent[] = [];
  for (const [name, intent] of Object.entries(data.intents)) {
    if (!COMMAND_NAMES.includes(name as CommandName)) throw new Error(`${language}: unknown intent "${name}"`);
    const sentences: CompiledSentence[] = [];
    for (const entry of intent.sentences) {
      const group = typeof entry === 'string' ? { set: {}, sentences: [entry] } : entry;
      for (const s of group.sentences) sentences.push({ template: compileTemplate(s, data.expansions), set: group.set });
    }
    intents.push({ name: name as CommandName, defaults: intent.slots ?? {}, sentences });
  }
  const shortCommands = new Map<string, ShortCommand>();
  for (const [word, kind] of Object.entries(data.shortCommands)) {
    if (!SHORT_COMMANDS.has(kind)) throw new Error(`${language}: unknown short command "${kind}"`);
    shortCommands.set(word, kind as ShortCommand);
  }
  return {
    language,
    data,
    numbers,
    rewrites: Object.entries(data.rewrite)
      .map(([from, to]) => ({ from: words(from), to: words(to) }))
      .sort((a, b) => b.from.length - a.from.length),
    fillersStart: data.fillers.start.map(words).sort(longestFirst),
    fillersEnd: data.fillers.end.map(words).sort(longestFirst),
    shortCommands,
    nameStopwords: new Set(data.nameStopwords),
    intents,
  };
}

const grammars = new Map<CommandLanguage, Grammar>();

/** The compiled grammar of a language, compiled on first use. */
export function getGrammar(language: CommandLanguage = 'en'): Grammar {
  let g = grammars.get(language);
  if (!g) {
    const src = SOURCES[language];
    if (!src) throw new Error(`no command sentences for language "${language}"`);
    g = compileGrammar(language, src.data, src.numbers);
    grammars.set(language, g);
  }
  return g;
}

export type { SlotType };
