import type { AssistantPhase } from '../vocabulary';
import type { WordsVerdict } from './acknowledgement';
import type { AcknowledgementEvidence } from '../report';
/**
 * What to do when the user starts talking while an answer is on its way or being spoken. A pure
 * policy: the pipeline tells it about candidate speech, confirmed speech and the passing of time,
 * together with the assistant's phase, and acts on the decisions.
 */
export interface BargeInConfig {
  enabled: boolean;
  /** Speech needed, while the assistant is speaking, before it counts as an interruption. */
  minSpeechMs: number;
  /** A pause that no confirmed speech follows within this long was a false alarm: resume. */
  falseInterruptionMs: number;
  /** Over a playing answer, lower it while deciding (no gap), and let an acknowledgement pass. */
  backchannels: boolean;
  /** With backchannels: silent for at most this long from the speech's first sound while its words are judged (0: lowered only). */
  onsetHoldMs: number;
}

/**
 * Speech over the answer that goes on longer than this (from its start, not counting a pause after
 * acknowledgement-like words) is someone taking the floor, whatever the recognizer made of it.
 */
export const BACKCHANNEL_MAX_MS = 1500;

/**
 * When, after speech over the answer began to be judged, its words are decoded on demand: a
 * streaming recognizer's interim words come a chunk (about 300 ms) at a time, and "st" of a "stop"
 * must not wait for the next one.
 */
export const PEEK_AFTER_MS: readonly number[] = [120, 210, 290];

/**
 * The longest silence the onset hold may leave in the answer, counting the silence already there:
 * longer, and an acknowledgement is heard as the answer stopping. Speech whose words show nothing by
 * the hold's end is held longer all the same (UNCLEAR_HOLD_MS): a real interruption stopped late
 * costs more than a pause.
 */
export const ACK_GAP_MAX_MS = 250;
/**
 * Speech over the answer that begins at least as loud as this against the user's requests (dB) is
 * likely someone taking the floor: the answer stays silent up to LOUD_HOLD_MS while its words are
 * judged, so a real interruption is stopped where it began (an acknowledgement said that loudly
 * costs a pause of that length, shorter when its words come first).
 */
export const LOUD_ONSET_DB = -4;
export const LOUD_HOLD_MS = 300;
/**
 * Speech whose words, when its onset hold runs out, have shown nothing yet (none, or only sounds
 * that open many words: "ho", "a") stays silent up to this long from its first sound: a floor word
 * decoded by the last peek (about 320 ms in: "hold", "hang on", "actually") then stops the answer
 * where it began. An acknowledgement's words release the hold as soon as they show.
 */
export const UNCLEAR_HOLD_MS = 400;
/** What the end of an onset hold may lag: it is released on the next audio window. */
const HOLD_SLACK_MS = 40;
/** An onset hold shorter than this would silence nothing sooner than the answer's own pause: it is only lowered. */
const MIN_ONSET_HOLD_MS = 60;

export type BargeInDecision =
  /** Hold playback now (the speech may turn out to be nothing); `restoreVolume`: it was lowered, and resumes at full volume. */
  | { type: 'pause'; atMs: number; restoreVolume?: true }
  /** It was nothing: play on from where playback paused. */
  | { type: 'resume'; atMs: number }
  /** A real interruption: cancel the answer and keep only what was heard (`speechStartMs`: where the speech began, when known here). */
  | { type: 'interrupt'; atMs: number; pausedAtMs: number; speechStartMs?: number }
  /** The user went on before hearing any answer: merge the turns and drop the pending answer. */
  | { type: 'continue-turn'; atMs: number }
  /** Lower the answer's volume while deciding what the speech over it is (it plays on: no gap). */
  | { type: 'duck'; atMs: number }
  /** Back to full volume. */
  | { type: 'unduck'; atMs: number }
  /** The speech that began at `speechStartMs` was an acknowledgement: the answer goes on, no turn. */
  | { type: 'backchannel'; atMs: number; speechStartMs: number; text: string; speechTurn: number; evidence?: AcknowledgementEvidence };

/** Speech over a playing answer, not yet judged: the answer plays on, lowered (unless `ackPause`). */
interface Deciding {
  speechStartMs: number;
  /** The turn number the speech's words carry. */
  speechTurn: number;
  /** It lasted long enough to be a turn: its end of turn settles it. */
  confirmed: boolean;
  /** It paused after acknowledgement-like words: full volume while its end of turn is awaited. */
  ackPause: boolean;
  /** How many of PEEK_AFTER_MS have been asked for. */
  peeks: number;
  /** The onset hold: playback is paused (silent) until then, unless words decide sooner; null once it plays on, lowered. */
  holdUntilMs: number | null;
  /** It grew loud during the hold: interim acknowledgement-like words (the "ho" of "hold on") do not end the hold early. */
  loud?: boolean;
  /** Its words have read as an acknowledgement: the hold is not lengthened for want of words. */
  ackWords?: boolean;
}

/** A short word that acts on the answer being spoken, whatever its length ("stop" is shorter than minSpeechMs). */
export type ShortCommand = 'stop' | 'cancel' | 'pause';

export class BargeInPolicy {
  /** Playback held since `sinceMs`, for speech that began in `phase`. */
  private held: { sinceMs: number; phase: Exclude<AssistantPhase, 'idle'>; deciding: Deciding | null; speechStartMs?: number } | null = null;
  /** The user said "pause": playback stays held, with no timeout, until their next turn says what to do. */
  private userPaused: { sinceMs: number } | null = null;

  constructor(private readonly config: () => BargeInConfig) {}

  get holding(): boolean {
    return this.held !== null || this.userPaused !== null;
  }

  /** Paused by the user's "pause": speech is a new turn, not an interruption, until it is settled. */
  get pausedByUser(): boolean {
    return this.userPaused !== null;
  }

  /** Whether speech heard in this phase may start a user turn at all. */
  listens(phase: AssistantPhase): boolean {
    return phase !== 'speaking' || this.config().enabled;
  }

  /** The speech a new turn needs before it counts, given the phase it began in. */
  minSpeechMs(phase: AssistantPhase, endpointingMinMs: number): number {
    return phase === 'speaking' ? this.config().minSpeechMs : endpointingMinMs;
  }

  /** Speech over a playing answer is being judged (the answer plays on, lowered). */
  get deciding(): boolean {
    return !!this.held?.deciding;
  }

  /** Judged speech that became a turn: its end of turn says whether it was an acknowledgement. */
  get decidingTurn(): boolean {
    return !!this.held?.deciding?.confirmed;
  }

  /**
   * The VAD heard something (not yet a turn) that began at `speechStartMs`, its words numbered
   * `speechTurn`. Over a playing answer with backchannels on, the answer falls silent for the onset
   * hold, or is lowered. `quietMs`: the silence the answer already has around where it is playing,
   * which a hold would lengthen: the hold is cut so that the gap stays within ACK_GAP_MAX_MS.
   */
  onCandidate(atMs: number, phase: AssistantPhase, speechStartMs?: number, speechTurn = -1, quietMs = 0, levelDb: number | null = null): BargeInDecision[] {
    if (phase === 'idle' || !this.listens(phase) || this.held || this.userPaused) return [];
    const start = speechStartMs === undefined ? {} : { speechStartMs };
    const config = this.config();
    if (phase === 'speaking' && config.backchannels) {
      const holdMs = Math.min(config.onsetHoldMs, ACK_GAP_MAX_MS - HOLD_SLACK_MS - quietMs);
      const holdUntilMs = holdMs >= MIN_ONSET_HOLD_MS ? atMs + holdMs : null;
      this.held = { sinceMs: atMs, phase, deciding: { speechStartMs: speechStartMs ?? atMs, speechTurn, confirmed: false, ackPause: false, peeks: 0, holdUntilMs }, ...start };
      if (holdUntilMs !== null) this.onLevel(atMs, levelDb);
      return [{ type: holdUntilMs === null ? 'duck' : 'pause', atMs }];
    }
    this.held = { sinceMs: atMs, phase, deciding: null, ...start };
    return [{ type: 'pause', atMs }];
  }

  /**
   * How loud the speech being judged is so far (dB against the user's requests): loud, the onset
   * hold lasts up to LOUD_HOLD_MS from its start (once; a hold already over is not begun again).
   */
  onLevel(atMs: number, levelDb: number | null): void {
    const d = this.held?.deciding;
    if (!d || d.holdUntilMs === null || levelDb === null || levelDb < LOUD_ONSET_DB || this.config().onsetHoldMs <= 0) return;
    d.holdUntilMs = Math.max(d.holdUntilMs, this.held!.sinceMs + LOUD_HOLD_MS - HOLD_SLACK_MS);
    d.loud = true;
  }

  /** The speech lasted long enough to be a turn. */
  onSpeechStart(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    // While paused by the user, what they say next is decided when their turn's words are known.
    if (this.userPaused) return [];
    // Long enough to be a turn is not long enough to be more than "mm-hmm": the words decide.
    if (this.held?.deciding) {
      this.held.deciding.confirmed = true;
      return [];
    }
    const held = this.held;
    this.held = null;
    const began = held?.phase ?? phase;
    if (began === 'speaking') return [{ type: 'interrupt', atMs, pausedAtMs: held?.sinceMs ?? atMs }];
    if (began === 'pending') return [{ type: 'continue-turn', atMs }];
    return [];
  }

  /**
   * The candidate was too short to be a turn (cough, click, the assistant's own echo, a short
   * "yeah"); `words` are what the recognizer made of it and how they were judged.
   */
  onDiscarded(atMs: number, words: { verdict: WordsVerdict; text: string; evidence?: AcknowledgementEvidence } = { verdict: 'none', text: '' }): BargeInDecision[] {
    const held = this.held;
    if (!held || this.userPaused) return [];
    this.held = null;
    // Too short to be a turn, but the user taking the floor all the same ("wait", a loud word).
    if (words.verdict === 'interruption') {
      const speechStartMs = held.deciding?.speechStartMs ?? held.speechStartMs;
      return [{ type: 'interrupt', atMs, pausedAtMs: held.sinceMs, ...(speechStartMs === undefined ? {} : { speechStartMs }) }];
    }
    if (!held.deciding) return [{ type: 'resume', atMs }];
    // An acknowledgement, or nothing.
    return this.settle(held, held.deciding, atMs, words.verdict, words.text, words.evidence);
  }

  /**
   * The recognizer's interim words for the speech being judged. A word that is no acknowledgement
   * pauses the answer at once, and from there it goes as any speech over a paused answer: long
   * enough to be a turn, it interrupts (stopped where it paused); shorter, it resumes. Once the
   * speech is a turn, such a word interrupts at once. Acknowledgement-like words said before a
   * pause let the answer play at full volume while the end of the turn is awaited.
   */
  onWords(atMs: number, verdict: WordsVerdict, paused = false): BargeInDecision[] {
    const held = this.held;
    const d = held?.deciding;
    if (!held || !d) return [];
    // Silent since the onset hold began: that is where playback stopped.
    const onsetHeld = d.holdUntilMs !== null;
    if (verdict === 'interruption') {
      if (d.confirmed) {
        this.held = null;
        return [{ type: 'interrupt', atMs, pausedAtMs: onsetHeld ? held.sinceMs : atMs, speechStartMs: d.speechStartMs }];
      }
      this.held = { sinceMs: onsetHeld ? held.sinceMs : atMs, phase: held.phase, deciding: null, speechStartMs: d.speechStartMs };
      return onsetHeld ? [] : [{ type: 'pause', atMs, restoreVolume: true }];
    }
    if (paused && d.confirmed && !d.ackPause && verdict === 'acknowledgement') {
      d.ackPause = true;
      if (!onsetHeld) return [{ type: 'unduck', atMs }];
      d.holdUntilMs = null;
      return [{ type: 'resume', atMs }];
    }
    if (verdict === 'acknowledgement') d.ackWords = true;
    // An acknowledgement need not wait out the hold, unless it is loud.
    if (onsetHeld && verdict === 'acknowledgement' && !d.loud) return this.playOnLowered(d, atMs);
    return [];
  }

  /** Whether the words of the speech being judged should be decoded now (each of PEEK_AFTER_MS once). */
  peekDue(atMs: number): boolean {
    const held = this.held;
    const d = held?.deciding;
    if (!held || !d || d.ackPause || d.peeks >= PEEK_AFTER_MS.length || atMs - held.sinceMs < PEEK_AFTER_MS[d.peeks]!) return false;
    d.peeks++;
    return true;
  }

  /** The user went on talking after a pause in the speech being judged: lowered again. */
  onSpeechResumed(atMs: number): BargeInDecision[] {
    const d = this.held?.deciding;
    if (!d?.ackPause) return [];
    d.ackPause = false;
    return [{ type: 'duck', atMs }];
  }

  /**
   * The judged speech ended as a turn with these final words: an acknowledgement lets the answer
   * go on (and the turn is dropped: the caller answers it only if no `backchannel` decision came).
   */
  onTurnEnded(atMs: number, verdict: WordsVerdict, text: string, evidence?: AcknowledgementEvidence): BargeInDecision[] {
    const held = this.held;
    if (!held?.deciding) return [];
    this.held = null;
    return this.settle(held, held.deciding, atMs, verdict, text, evidence);
  }

  /** The onset hold ends with nothing known against the speech: the answer plays on, lowered, while it is judged. */
  private playOnLowered(d: Deciding, atMs: number): BargeInDecision[] {
    d.holdUntilMs = null;
    return [
      { type: 'duck', atMs },
      { type: 'resume', atMs },
    ];
  }

  private settle(held: { sinceMs: number }, d: Deciding, atMs: number, verdict: WordsVerdict, text: string, evidence?: AcknowledgementEvidence): BargeInDecision[] {
    if (verdict === 'interruption' || (verdict === 'none' && d.confirmed)) return [{ type: 'interrupt', atMs, pausedAtMs: held.sinceMs, speechStartMs: d.speechStartMs }];
    // Still in the onset hold it is at full volume, paused: it goes on.
    const restore: BargeInDecision[] = d.holdUntilMs !== null ? [{ type: 'resume', atMs }] : d.ackPause ? [] : [{ type: 'unduck', atMs }];
    return verdict === 'acknowledgement' ? [...restore, { type: 'backchannel', atMs, speechStartMs: d.speechStartMs, text, speechTurn: d.speechTurn, ...(evidence ? { evidence } : {}) }] : restore;
  }

  /** When time alone ends a hold: a pause nothing confirmed resumes, judged speech that goes on too long interrupts; null when none. */
  get resumeAtMs(): number | null {
    const held = this.held;
    if (!held) return null;
    const d = held.deciding;
    if (d?.ackPause) return null;
    const timeout = d?.confirmed ? d.speechStartMs + BACKCHANNEL_MAX_MS : held.sinceMs + this.config().falseInterruptionMs;
    return d?.holdUntilMs != null ? Math.min(d.holdUntilMs, timeout) : timeout;
  }

  /** Called as time passes (each audio window, the app's timer): a pause that nothing confirmed in time ends. */
  tick(atMs: number): BargeInDecision[] {
    const resumeAtMs = this.resumeAtMs;
    const held = this.held;
    if (resumeAtMs === null || !held || atMs < resumeAtMs) return [];
    const d = held.deciding;
    if (d && d.holdUntilMs !== null && atMs < (d.confirmed ? d.speechStartMs + BACKCHANNEL_MAX_MS : Infinity)) {
      // Nothing known yet for or against it: silent a little longer, for the last peek's words (once:
      // at the lengthened end, time has reached it).
      const longer = held.sinceMs + UNCLEAR_HOLD_MS - HOLD_SLACK_MS;
      if (!d.ackWords && longer > atMs) {
        d.holdUntilMs = longer;
        return [];
      }
      return this.playOnLowered(d, atMs);
    }
    this.held = null;
    if (d?.confirmed) return [{ type: 'interrupt', atMs, pausedAtMs: held.sinceMs, speechStartMs: d.speechStartMs }];
    return [{ type: d ? 'unduck' : 'resume', atMs }];
  }

  /**
   * A short command was recognized in the speech that holds playback (or over the answer): "stop"
   * and "cancel" interrupt at once, "pause" keeps playback held until the user's next turn.
   */
  onShortCommand(word: ShortCommand, atMs: number, phase: AssistantPhase): BargeInDecision[] {
    const held = this.held;
    if (!held && phase !== 'speaking') return [];
    this.held = null;
    if (word === 'pause') {
      this.userPaused = { sinceMs: held?.sinceMs ?? atMs };
      if (held && !held.deciding) return [];
      // A lowered answer is paused now, and plays at full volume when it resumes.
      return [held ? { type: 'pause', atMs, restoreVolume: true } : { type: 'pause', atMs }];
    }
    this.userPaused = null;
    return [{ type: 'interrupt', atMs, pausedAtMs: held?.sinceMs ?? atMs, ...(held?.speechStartMs === undefined ? {} : { speechStartMs: held.speechStartMs }) }];
  }

  /** The user's turn after a "pause" is known: "resume" plays on, anything else cancels the paused answer. */
  onTurnAfterPause(resume: boolean, atMs: number): BargeInDecision[] {
    const paused = this.userPaused;
    if (!paused) return [];
    this.userPaused = null;
    return resume ? [{ type: 'resume', atMs }] : [{ type: 'interrupt', atMs, pausedAtMs: paused.sinceMs }];
  }

  /** Push-to-talk pressed: an explicit interruption, no confirmation needed. */
  onKeyPress(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    this.held = null;
    this.userPaused = null;
    if (phase === 'speaking') return [{ type: 'interrupt', atMs, pausedAtMs: atMs }];
    if (phase === 'pending') return [{ type: 'continue-turn', atMs }];
    return [];
  }

  /** The user stopped the answer some other way (the stop button): nothing held should resume. */
  reset(): void {
    this.held = null;
    this.userPaused = null;
  }
}
