import type { AssistantPhase } from '../vocabulary';
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
}

export type BargeInDecision =
  /** Hold playback now (the speech may turn out to be nothing). */
  | { type: 'pause'; atMs: number }
  /** It was nothing: play on from where playback paused. */
  | { type: 'resume'; atMs: number }
  /** A real interruption: cancel the answer and keep only what was heard. */
  | { type: 'interrupt'; atMs: number; pausedAtMs: number }
  /** The user went on before hearing any answer: merge the turns and drop the pending answer. */
  | { type: 'continue-turn'; atMs: number };

/** A short word that acts on the answer being spoken, whatever its length ("stop" is shorter than minSpeechMs). */
export type ShortCommand = 'stop' | 'cancel' | 'pause';

export class BargeInPolicy {
  /** Playback held since `sinceMs`, for speech that began in `phase`. */
  private held: { sinceMs: number; phase: Exclude<AssistantPhase, 'idle'> } | null = null;
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

  /** The VAD heard something (not yet a turn). */
  onCandidate(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    if (phase === 'idle' || !this.listens(phase) || this.held || this.userPaused) return [];
    this.held = { sinceMs: atMs, phase };
    return [{ type: 'pause', atMs }];
  }

  /** The speech lasted long enough to be a turn. */
  onSpeechStart(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    // While paused by the user, what they say next is decided when their turn's words are known.
    if (this.userPaused) return [];
    const held = this.held;
    this.held = null;
    const began = held?.phase ?? phase;
    if (began === 'speaking') return [{ type: 'interrupt', atMs, pausedAtMs: held?.sinceMs ?? atMs }];
    if (began === 'pending') return [{ type: 'continue-turn', atMs }];
    return [];
  }

  /** The candidate was too short to be a turn (cough, click, the assistant's own echo). */
  onDiscarded(atMs: number): BargeInDecision[] {
    if (!this.held || this.userPaused) return [];
    this.held = null;
    return [{ type: 'resume', atMs }];
  }

  /** When a held playback resumes unless speech confirms it first; null when nothing is held. */
  get resumeAtMs(): number | null {
    return this.held ? this.held.sinceMs + this.config().falseInterruptionMs : null;
  }

  /** Called as time passes (each audio window, the app's timer): a pause that nothing confirmed in time ends. */
  tick(atMs: number): BargeInDecision[] {
    const resumeAtMs = this.resumeAtMs;
    if (resumeAtMs === null || atMs < resumeAtMs) return [];
    this.held = null;
    return [{ type: 'resume', atMs }];
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
      return held ? [] : [{ type: 'pause', atMs }];
    }
    this.userPaused = null;
    return [{ type: 'interrupt', atMs, pausedAtMs: held?.sinceMs ?? atMs }];
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
