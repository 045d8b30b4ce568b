import type { SpeechTraitsEvidence } from '../listen/speech-traits';
import type { AssistantPhase, EndReason, StartedBy, TurnCheck, Transcript } from '../vocabulary';

/** A user turn that has ended, as turn taking hands it to responding (times on the pipeline clock). */
export interface EndedTurn {
  /** The turn's number: its partials, its events and its report all carry it. */
  index: number;
  speechStartMs: number;
  speechEndMs: number;
  /** When the end was decided. */
  endOfTurnMs: number;
  /** What started it: speech (hands-free), the push-to-talk key, a one-shot activation. */
  startedBy: StartedBy;
  reason: EndReason;
  /** The input gain (dB) applied when the turn ended. */
  inputGainDb: number;
  /** What the end-of-turn model said at each pause of this turn; null when it was not asked. */
  turnChecks: TurnCheck[] | null;
  /** The recognizer's final words, once it has finished. */
  transcript: Promise<Transcript>;
  /** How the speech sounded (length, level against the requests, pitch), for judging speech over the answer. */
  traits?: SpeechTraitsEvidence;
}

/** What turn taking tells responding, in order; `atMs` is when it was decided (pipeline clock). */
export type TurnEvent =
  /**
   * The VAD heard something that may become a turn, from `startMs`; `phase` is the assistant's when it
   * began, `turn` the number its words carry.
   */
  | { type: 'candidate'; atMs: number; phase: AssistantPhase; startMs: number; turn: number }
  /** It lasted long enough: the user is talking since `startMs`. */
  | { type: 'speech-start'; atMs: number; startMs: number }
  /** The push-to-talk key went down (a turn begins at once, no confirmation needed). */
  | { type: 'key-down'; atMs: number; startMs: number }
  /** A one-shot activation while the assistant speaks or an answer is on its way: it stops at once, as for the key. */
  | { type: 'activation'; atMs: number }
  /**
   * The candidate was nothing for a turn (a cough, a click, the assistant's own echo, a short word);
   * `words`: what the recognizer finally made of it ("stop" is shorter than a turn needs).
   */
  | { type: 'discarded'; atMs: number; words: Promise<string>; traits?: SpeechTraitsEvidence }
  /** The recognizer's interim words for the speech in progress (a candidate or a turn). */
  | { type: 'words'; atMs: number; text: string }
  /**
   * The user paused (their words ended at `speechEndMs`); turn `turn` may still go on. `tentative`
   * gives what the recognizer would finish with now, decoded as the final will be (null when it cannot).
   */
  | { type: 'pause'; atMs: number; speechEndMs: number; turn: number; tentative: (() => Promise<string>) | null }
  | { type: 'resume'; atMs: number }
  | { type: 'end-of-turn'; turn: EndedTurn };

/** How the assistant's phase shapes what counts as a turn (the barge-in policy answers). */
export interface TurnGate {
  /** Whether speech heard in this phase may start a turn at all. */
  listens(phase: AssistantPhase): boolean;
  /** The speech a new turn needs before it counts, given the phase it began in. */
  minSpeechMs(phase: AssistantPhase, endpointingMinMs: number): number;
}

/** One window as heard: what the VAD decided and when. */
export interface HeardWindow {
  window: Float32Array;
  speech: boolean;
  /** Pipeline clock when the VAD answered. */
  now: number;
  /** Input time at the window's end. */
  atMs: number;
}
