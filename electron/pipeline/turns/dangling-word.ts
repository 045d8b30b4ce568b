/**
 * Whether the words so far end in a word an English sentence cannot end with ("set an alarm for
 * the", "call my", "and um"). Pure: the end-of-turn policy asks it at each check; the end-of-turn
 * model judges the sound of a pause, this judges its words.
 *
 * The list holds only words that really cannot end a sentence. Most English prepositions can, in
 * questions and after phrasal verbs, so they are left out: "what is it for", "where are you from",
 * "what are you up to", "who is it addressed to", "what is it about", "turn it off", "come in",
 * "hold on". So are words that are also pronouns or adverbs ("her", "his", "that", "so", "yet",
 * "if": "what if"). A wrong entry makes a finished sentence wait for `maxPauseMs`; a missing one only
 * leaves the pause to the model, as before.
 */

/** The words, by kind (data: the rule below only looks a word up). */
export const DANGLING_WORDS: Readonly<Record<string, readonly string[]>> = {
  // "a" is also the letter ("option a", "vitamin a"): rare enough in a request to keep the article.
  articles: ['a', 'an', 'the'],
  // Determiners only; "his" and "her" are pronouns too ("call her"), "mine"/"yours" end sentences.
  possessives: ['my', 'your', 'our', 'their', 'its'],
  // Coordinating and subordinating conjunctions that must be followed by something ("or" and "but"
  // trailing off are a speaker who has not finished). Not "so", "yet", "if", "because" ("just because").
  conjunctions: ['and', 'or', 'but', 'nor', 'than', 'whether'],
  // Prepositions that cannot be stranded at the end of a sentence.
  prepositions: ['during', 'despite', 'via', 'per', 'versus', 'vs'],
  // Hesitation: the speaker is looking for the next word.
  fillers: ['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ehm'],
};

const WORDS: ReadonlySet<string> = new Set(Object.values(DANGLING_WORDS).flat());

/**
 * The words of a transcript, normalised: lowercase, typographic apostrophes made plain, and each
 * word's leading and trailing punctuation stripped ("The," "um..." "for—"), so a recognizer that
 * punctuates and capitalises (Whisper: "Set an alarm for the...") reads like one that does not
 * ("SET AN ALARM FOR THE"). Apostrophes inside a word stay: "it's" is not "its".
 */
export function normalisedWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .split(/[\s\u2013\u2014]+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w !== '');
}

/** The dangling word the text ends in ("the" for "set an alarm for the"), or null when its last word could end a sentence (or there are no words). */
export function danglingWord(text: string): string | null {
  const last = normalisedWords(text).at(-1);
  return last !== undefined && WORDS.has(last) ? last : null;
}

/** Whether the text ends in a word an English sentence cannot end with. */
export function endsDangling(text: string): boolean {
  return danglingWord(text) !== null;
}
