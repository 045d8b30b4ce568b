/**
 * Whether words said over the answer are an acknowledgement ("mm-hmm", "yeah", "okay", "got it")
 * or the start of something the user wants to say. A pure function of the recognizer's words: the
 * barge-in policy asks it on every interim result and on the final one.
 *
 * Recognizers spell a hum in many ways (a real one writes "mm-hmm" or "mhm", the stand-in "em meam
 * hrme"), so exact spellings cannot carry the decision: a word made only of humming sounds counts
 * as one, listed phrases match with one letter's slack, and the last interim word may be the start
 * of one. Anything else, one real word that is no acknowledgement, is the user taking the floor.
 */
import { editDistance } from '../../text/edit-distance';

/** The default `bargeIn.acknowledgements`: phrases, comma-separated. */
export const DEFAULT_ACKNOWLEDGEMENTS = 'mm-hmm, mhm, uh-huh, hmm, yeah, yes, yep, yup, right, okay, ok, alright, all right, sure, i see, got it, cool, true, exactly, oh';

/**
 * More acknowledgement-like words than this in one go is someone talking, not nodding along
 * ("uh-huh, yeah, okay, I see" is four).
 */
const MAX_UNITS = 4;

/**
 * Real words spelled only with humming sounds (m, n, h, r and vowels): a hum only beside one ("em mem
 * home" is how the stand-in recognizer heard "mm hmm" through the browser), never alone ("more").
 */
const NOT_HUMS = new Set(['me', 'him', 'her', 'here', 'hear', 'home', 'more', 'man', 'men', 'mine', 'name', 'mean', 'moan', 'moon', 'room', 'harm', 'hen', 'mom', 'ham', 'hero', 'hire', 'horn', 'human', 'hammer', 'humor', 'minor', 'manner', 'hair', 'hour']);

/**
 * Words people take the floor with ("wait", "hold on", "no", "what about ..."): one of them, spelled
 * exactly, is an interruption however short and quiet it is. Only words a recognizer rarely makes
 * of a hum ("how", "who" are how an "uh huh" is often heard).
 */
const FLOOR_WORDS = new Set(['wait', 'stop', 'hold', 'hang', 'no', 'not', 'nope', 'actually', 'excuse', 'sorry', 'pardon', 'question', 'what', 'why', 'where', 'when', 'which', 'but', 'please', 'tell', 'can', 'could', 'would', 'cancel', 'pause', 'listen', 'hey', 'instead', 'again']);

/** Floor words that alone ask the answer to stop; the others (what, but, please, ...) begin a turn, and need one's length. */
const STOP_WORDS = new Set(['wait', 'stop', 'hold', 'hang', 'no', 'nope', 'sorry', 'pardon', 'excuse', 'cancel', 'pause']);

/**
 * How words said over the answer read: `verdict` as judgeWords gives it, or as they sound when no
 * spelling matched; `floor`: one is (or sounds like) a word people take the floor with; `unclear`:
 * neither, and not all are acknowledgement-like (a recognizer's guess at a sound it does not know:
 * "hokay", "writ", "i sea"), so how it sounded must decide.
 */
export interface WordsReading {
  verdict: WordsVerdict;
  floor: boolean;
  /** One word alone asks the answer to stop, spelled so ("wait", "no", "hold"): it does even when said too short to be a turn. */
  stopWord: boolean;
  unclear: boolean;
  words: number;
  /**
   * Every word is made of the sounds many words open with (vowels, h, w, y, r: "a", "ho", "how",
   * "her"), the start of "actually", "hold on" or "hang on" as much as of an acknowledgement, and is
   * not a listed one spelled exactly ("yeah", "uh huh"): no evidence of one until the speech has ended.
   */
  opening: boolean;
}

/**
 * How a word sounds, roughly, so that a recognizer's guess at an unfamiliar voice still matches:
 * consonants only (vowels, h, and a y or w that is no syllable's start dropped), voiced and
 * voiceless pairs merged, spellings of one sound made one ("writ" and "right" are "rt", "wheyt"
 * and "wait" "wt", "hokay" and "okay" "k").
 */
export function soundKey(word: string): string {
  const w = word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/^wr/, 'r')
    .replace(/^kn/, 'n')
    .replace(/^wh/, 'w')
    .replace(/gh/g, '')
    .replace(/ph/g, 'f')
    .replace(/sh/g, 'S')
    .replace(/ch/g, 'C')
    .replace(/th/g, 'T')
    .replace(/ck/g, 'k')
    .replace(/q/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c/g, 'k')
    .replace(/[wy](?![aeiou])/g, '')
    .replace(/(?<=.)[wy]/g, '')
    .replace(/[aeiouh]/g, '')
    .replace(/b/g, 'p')
    .replace(/d/g, 't')
    .replace(/g/g, 'k')
    .replace(/v/g, 'f')
    .replace(/z/g, 's');
  return w.replace(/(.)\1+/g, '$1');
}

/** A phrase's sound: its words' keys run together ("got it" is "kt"). */
function phraseKey(words: readonly string[]): string {
  return words.map(soundKey).join('').replace(/(.)\1+/g, '$1');
}

export function readWords(text: string, phrases: readonly (readonly string[])[]): WordsReading {
  const words = tokens(text);
  const spelled = judgeWords(text, phrases);
  const stopWord = words.some((w) => STOP_WORDS.has(w));
  const opening = words.length > 0 && words.every((w) => /^[aeiouhwyr]+$/.test(w)) && !spelledAsListed(words, phrases);
  const reading = (verdict: WordsVerdict, floor: boolean): WordsReading => ({ verdict, floor, stopWord, unclear: verdict === 'interruption' && !floor, words: words.length, opening });
  if (words.some((w) => FLOOR_WORDS.has(w))) return reading('interruption', true);
  if (spelled !== 'interruption') return reading(spelled, false);
  const ackKeys = new Set(phrases.map(phraseKey));
  if (ackKeys.has(phraseKey(words))) return reading('acknowledgement', false);
  // A word sounding like a floor word of four letters or more (shorter ones sound like too much),
  // unless an acknowledgement sounds the same ("could" and "got it").
  const floorKeys = [...FLOOR_WORDS].filter((w) => w.length >= 4).map(soundKey).filter((k) => k.length >= 2 && !ackKeys.has(k));
  const floor = words.map(soundKey).some((k) => floorKeys.some((f) => k === f || (f.length >= 3 && k.includes(f))));
  return reading('interruption', floor);
}

/** The words are listed phrases spelled exactly, one after another ("yeah", "uh huh", "yeah yeah"). */
function spelledAsListed(words: readonly string[], phrases: readonly (readonly string[])[]): boolean {
  return fewestUnits(words.length, (i) => phrases.filter((p) => p.length > 0 && p.every((w, k) => words[i + k] === w)).map((p) => i + p.length)) < Infinity;
}

/**
 * The fewest units that make up words [0, n) one after another (Infinity: they cannot), where
 * `ends(i)` gives where a unit beginning at word i may end.
 */
function fewestUnits(n: number, ends: (i: number) => number[]): number {
  const fewest = new Array<number>(n + 1).fill(Infinity);
  fewest[0] = 0;
  for (let i = 0; i < n; i++) {
    if (fewest[i] === Infinity) continue;
    for (const j of ends(i)) fewest[j] = Math.min(fewest[j]!, fewest[i]! + 1);
  }
  return fewest[n]!;
}

export type WordsVerdict =
  /** Every word so far is acknowledgement-like (the last may be the start of one). */
  | 'acknowledgement'
  /** Some word is not: the user wants to say something. */
  | 'interruption'
  /** No words (a cough, a breath, the echo's leftovers). */
  | 'none';

/** `bargeIn.acknowledgements` as phrases of words. */
export function parseAcknowledgements(setting: string): string[][] {
  return setting
    .split(',')
    .map((p) => tokens(p))
    .filter((p) => p.length > 0);
}

/** Judges the words said so far over the answer (interim or final: judged alike). */
export function judgeWords(text: string, phrases: readonly (readonly string[])[]): WordsVerdict {
  const words = tokens(text);
  if (words.length === 0) return 'none';
  // Hum-lettered real words count as hums only if plain hums or listed phrases outnumber them.
  const humWords = words.filter((w) => isHum(w, true) && !isHum(w)).length;
  // Units: a hum, or a listed phrase (the last word may be the start of one).
  const units = fewestUnits(words.length, (i) => [
    ...(isHum(words[i]!, humWords > 0) ? [i + 1] : []),
    ...phrases.map((p) => matchLength(p, words, i)).filter((n) => n > 0).map((n) => i + n),
  ]);
  return units <= MAX_UNITS && units - humWords >= humWords ? 'acknowledgement' : 'interruption';
}

/** Lowercase words; hyphens and punctuation split them ("mm-hmm" is "mm hmm"). */
function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z']+/g, ' ')
    .split(' ')
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);
}

/** A word made only of humming sounds, with an m or an h in it ("mm", "hmm", "uh", "em", "hrme"); `real`: real words so spelled too ("home"). */
function isHum(w: string, real = false): boolean {
  return /^[aeiouhmnr]+$/.test(w) && /[mh]/.test(w) && (real || !NOT_HUMS.has(w));
}

/**
 * How many of `words` from `at` phrase `p` covers (0: it does not match there). The words may stop
 * inside the phrase, the last of them part of its word: interim words end mid-word, and a
 * recognizer's final words for a short acknowledgement are often cut ("ye" for "yeah").
 */
function matchLength(p: readonly string[], words: readonly string[], at: number): number {
  for (let k = 0; k < p.length; k++) {
    const w = words[at + k];
    if (w === undefined) return k;
    const last = at + k === words.length - 1;
    if (sameWord(w, p[k]!)) continue;
    if (last && p[k]!.startsWith(w)) return k + 1;
    return 0;
  }
  return p.length;
}

/** Equal, or one letter off for longer words that start alike ("okey", "yeh" for "yeah", not "night" for "right"). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  if (a[0] !== b[0] || Math.min(a.length, b.length) < 3 || Math.abs(a.length - b.length) > 1) return false;
  return editDistance(a, b) <= 1;
}
