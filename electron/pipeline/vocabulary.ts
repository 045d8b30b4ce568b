/**
 * The words every stage shares: what the assistant is doing, how turns start and end, what the
 * recognizer hands on. Types only, so any stage (and the renderer) can use them without importing
 * another stage.
 */

/**
 * `idle`: nothing to say. `pending`: an answer is being prepared or queued, none of it heard yet.
 * `speaking`: some of the answer has been played (it may be playing or paused now).
 */
export type AssistantPhase = 'idle' | 'pending' | 'speaking';

/**
 * What ended the user's speaking turn (an interrupted answer is recorded separately, as `bargeIn`).
 * `turn-model`: the end-of-turn model judged a pause the end of a finished sentence. `activation`: a
 * second one-shot activation (shortcut, tray, button) ended the turn at once.
 */
export type EndReason = 'silence' | 'turn-model' | 'max-length' | 'push-to-talk' | 'activation' | 'input-ended';

/**
 * What started the user's turn: hands-free `speech`, the `push-to-talk` key, or a one-shot
 * `activation` (shortcut, tray, button) that opened the microphone for it.
 */
export type StartedBy = 'activation' | 'push-to-talk' | 'speech' | 'wake-phrase';

/** Why a pause was held whatever the end-of-turn model said: its words end in one no sentence ends with ("set an alarm for the"). */
export type HeldBy = 'dangling-word';

/**
 * One check of the end-of-turn model: when it was asked (pipeline clock), what it said, the
 * recognizer's words at that moment, and what held the pause whatever the model said (null: the
 * model's verdict stood).
 */
export interface TurnCheck {
  atMs: number;
  probability: number;
  text: string;
  heldBy: HeldBy | null;
}

/** `idle`: speech is ignored. `armed`: listening, no speech yet. `turn`: the user's turn is under way. */
export type OneShotState = 'idle' | 'armed' | 'turn';

/**
 * Why the state changed: an `activation`; `speech` began the turn; the turn ended by the usual rules
 * (`end-of-turn`); `no-speech` came in time; the input ended (`input-ended`: microphone off, end of file).
 */
export type OneShotReason = 'activation' | 'speech' | 'end-of-turn' | 'no-speech' | 'input-ended';

/** The user's words for a turn, as the recognizer finished them. */
export interface Transcript {
  text: string;
  /** When the final text was ready, and how long the final decode took. */
  finalMs: number;
  decodeMs: number;
}
