/**
 * Whether speech over the answer is an acknowledgement, from its words and from how it sounded. A
 * pure policy: responding asks it on every interim result, on demand-decoded words and at the end.
 *
 * Words decide when they are plain: a listed acknowledgement or a hum lets the answer go on, a word
 * people take the floor with ("wait", "no", "what") stops it. A recognizer's guess at a sound it
 * does not know ("hokay", "writ", "i sea" from a new voice) is no evidence either way; then a
 * listener's cues decide: an acknowledgement is short (ACK_MAX_MS) and not louder than the user's
 * requests (LOUD_DB), and its pitch falls (NOT_FALLING_ST); speech longer, louder or rising is
 * someone taking the floor.
 */
import type { AcknowledgementEvidence } from '../report';
import { parseAcknowledgements, readWords, type WordsReading, type WordsVerdict } from './acknowledgement';

/** Speech over the answer longer than this, with words that are no acknowledgement, takes the floor. */
export const ACK_MAX_MS = 700;
/** Louder than the user's requests by more than this (dB), it takes the floor. */
export const LOUD_DB = 4;
/** So much louder than the requests (dB) that it takes the floor before it ends: above every acknowledgement measured (tuning voices up to 2 dB at the end, the shared "right" 3.4 dB 180 ms in). */
export const SHOUT_DB = 5;
/** An acknowledgement's pitch falls or stays flat-to-falling: from this (semitones, first third to last) it rises, as a question or a sentence begun does. */
export const NOT_FALLING_ST = -0.5;
/** More words than this that are no acknowledgement are someone talking. */
const MAX_UNCLEAR_WORDS = 3;
/**
 * A floor word quieter than this against the requests (dB) is not the user's: what the echo
 * canceller left of the answer's own words, decoded.
 */
const FAINT_DB = -18;

export type Traits = Omit<AcknowledgementEvidence, 'words'>;

/**
 * The verdict on speech over the answer so far. `final`: it has ended (its length is known); before
 * that, unclear words wait ('none') unless the speech is already too long or too loud. `short`: it
 * ended too short to be a turn.
 */
export function judgeSpeech(words: WordsReading, traits: Traits | null, final: boolean, short = false): WordsVerdict {
  if (words.verdict === 'none') return 'none';
  const level = traits?.levelDb ?? null;
  // Speech too short to be a turn takes the floor only with a word that alone asks the answer to stop,
  // spelled so ("wait", "no"): a fragment such as "where" (of a slice of "weather") is no reason to.
  if (words.floor && (words.stopWord || !short)) return level !== null && level < FAINT_DB ? 'none' : 'interruption';
  // "ho", "a", "how" open "hold on", "actually", "hang on" as often as "uh huh": wait for more.
  if (words.verdict === 'acknowledgement') return words.opening && !final ? 'none' : 'acknowledgement';
  // Unclear words: how it sounded decides. Long, or very loud, is known as it goes on; loud and
  // rising once it has ended (a vowel's first 200 ms can be louder than a whole request's loud part).
  if ((traits?.durationMs ?? 0) > ACK_MAX_MS || words.words > MAX_UNCLEAR_WORDS || (level !== null && level > SHOUT_DB)) return 'interruption';
  if (!final) return 'none';
  const pitch = traits?.pitchSemitones ?? null;
  return (level !== null && level > LOUD_DB) || (pitch !== null && pitch >= NOT_FALLING_ST) ? 'interruption' : 'acknowledgement';
}

/** The evidence a report keeps beside an acknowledgement. */
export function evidenceOf(words: WordsReading, traits: Traits | null): AcknowledgementEvidence {
  return { durationMs: traits?.durationMs ?? 0, levelDb: traits?.levelDb ?? null, pitchSemitones: traits?.pitchSemitones ?? null, words: words.floor ? 'floor' : words.unclear ? 'unclear' : words.verdict === 'acknowledgement' ? 'acknowledgement' : 'none' };
}

/** The policy with the acknowledgement list as the settings give it (parsed again only when it changes). */
export class AcknowledgementJudge {
  private parsed: { setting: string; phrases: string[][] } | null = null;

  constructor(private readonly list: () => string) {}

  /**
   * How speech said over the answer reads, from its words and how it sounded (`final`: it has
   * ended); the evidence goes with it where how it sounded is known.
   */
  judge(text: string, traits: Traits | null, final: boolean, short = false): { verdict: WordsVerdict; evidence?: AcknowledgementEvidence } {
    const setting = this.list();
    if (this.parsed?.setting !== setting) this.parsed = { setting, phrases: parseAcknowledgements(setting) };
    const words = readWords(text, this.parsed.phrases);
    return { verdict: judgeSpeech(words, traits, final, short), ...(traits ? { evidence: evidenceOf(words, traits) } : {}) };
  }
}
