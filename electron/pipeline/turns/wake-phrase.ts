/**
 * The wake phrase: in `mode: "wake-phrase"`, speech is a request only when it begins with the
 * phrase ("hey computer, what time is it"), or follows the phrase said alone within
 * WAKE_WINDOW_MS. Pure: the recognizer's words in, a decision out. The phrase is spotted in the
 * words of speech the VAD already found, tolerantly, since recognizers misspell names; a keyword
 * spotting model could later stand behind the same `matchWakePhrase`.
 */
import { editDistance } from '../../text/edit-distance';

/** After the phrase alone, the next utterance that begins within this long is the request. */
export const WAKE_WINDOW_MS = 5000;

/**
 * How different the words heard may be from the phrase: edits per letter of the phrase (0.34: "hey
 * computer" matches "hay compuder" or "he computa", not "the company").
 */
const MAX_EDITS_PER_LETTER = 0.34;

export interface WakeMatch {
  /** The utterance began with the phrase. */
  matched: boolean;
  /** What followed the phrase ('' when it stood alone); the whole text when it did not match. */
  rest: string;
  /** The words taken as the phrase, as heard ('' when none matched). */
  heard: string;
}

/** Words as the matcher compares them: lowercase letters and digits, no punctuation. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9']+/g, ' ')
    .split(' ')
    .filter(Boolean);
}

/**
 * Whether `text` begins with `phrase`. Recognizers split and join words ("hey com puter",
 * "hey computerwhat"), so the phrase is compared letter by letter with the first words, and may end
 * inside one of them; the rest of that word begins the request.
 */
export function matchWakePhrase(text: string, phrase: string): WakeMatch {
  const want = words(phrase).join('');
  const said = text.trim().split(/\s+/).filter(Boolean);
  const none: WakeMatch = { matched: false, rest: text.trim(), heard: '' };
  if (want.length === 0 || said.length === 0) return none;
  const n = words(phrase).length;
  let best: { k: number; cut: number; edits: number } | null = null;
  for (let k = 1; k <= Math.min(said.length, n + 2); k++) {
    const before = words(said.slice(0, k - 1).join(' ')).join('');
    const last = words(said[k - 1]!).join('');
    // The phrase ends `cut` letters into the k-th word (all of it by default).
    for (let cut = last.length; cut >= 1; cut--) {
      const edits = editDistance(before + last.slice(0, cut), want);
      if (edits / want.length <= MAX_EDITS_PER_LETTER && (!best || edits < best.edits)) best = { k, cut, edits };
    }
  }
  if (!best) return none;
  const last = words(said[best.k - 1]!).join('');
  const restOfWord = last.slice(best.cut);
  const rest = [restOfWord, ...said.slice(best.k)].filter(Boolean).join(' ').replace(/^[\s,.!?;:]+/, '');
  const heard = [...said.slice(0, best.k - 1), last.slice(0, best.cut)].join(' ');
  return { matched: true, rest, heard };
}

/** What an ended utterance is in wake-phrase mode. */
export type WakeDecision =
  /** A request: answer `text` (the words after the phrase). */
  | { action: 'answer'; text: string }
  /** The phrase alone: listen for the request (the listening cue plays). */
  | { action: 'listen'; untilMs: number }
  /** No phrase and no open window: not for the assistant. */
  | { action: 'ignore' };

/** The window the phrase alone opens; one request closes it. */
export class WakeWindow {
  private openUntilMs: number | null = null;

  /** When the window closes; null when none is open. */
  get untilMs(): number | null {
    return this.openUntilMs;
  }

  /** An utterance that began at `speechStartMs` ended with `text`; it is `nowMs`. */
  decide(text: string, phrase: string, speechStartMs: number, nowMs: number): WakeDecision {
    const open = this.openUntilMs !== null && speechStartMs <= this.openUntilMs;
    this.openUntilMs = null;
    const m = matchWakePhrase(text, phrase);
    if (m.matched && m.rest === '') {
      this.openUntilMs = nowMs + WAKE_WINDOW_MS;
      return { action: 'listen', untilMs: this.openUntilMs };
    }
    if (m.matched) return { action: 'answer', text: m.rest };
    return open && text.trim() !== '' ? { action: 'answer', text: text.trim() } : { action: 'ignore' };
  }

  /** The window ran out (time passes with no speech): closed. Returns whether it just closed. */
  expire(nowMs: number): boolean {
    if (this.openUntilMs === null || nowMs <= this.openUntilMs) return false;
    this.openUntilMs = null;
    return true;
  }
}
