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

/**
 * `idle`: nothing to say. `pending`: an answer is being prepared or queued, none of it heard yet.
 * `speaking`: some of the answer has been played (it may be playing or paused now).
 */
export type AssistantPhase = 'idle' | 'pending' | 'speaking';

export type BargeInDecision =
  /** Hold playback now (the speech may turn out to be nothing). */
  | { type: 'pause'; atMs: number }
  /** It was nothing: play on from where playback paused. */
  | { type: 'resume'; atMs: number }
  /** A real interruption: cancel the answer and keep only what was heard. */
  | { type: 'interrupt'; atMs: number; pausedAtMs: number }
  /** The user went on before hearing any answer: merge the turns and drop the pending answer. */
  | { type: 'continue-turn'; atMs: number };

export class BargeInPolicy {
  /** Playback held since `sinceMs`, for speech that began in `phase`. */
  private held: { sinceMs: number; phase: Exclude<AssistantPhase, 'idle'> } | null = null;

  constructor(private readonly config: () => BargeInConfig) {}

  get holding(): boolean {
    return this.held !== null;
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
    if (phase === 'idle' || !this.listens(phase) || this.held) return [];
    this.held = { sinceMs: atMs, phase };
    return [{ type: 'pause', atMs }];
  }

  /** The speech lasted long enough to be a turn. */
  onSpeechStart(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    const held = this.held;
    this.held = null;
    const began = held?.phase ?? phase;
    if (began === 'speaking') return [{ type: 'interrupt', atMs, pausedAtMs: held?.sinceMs ?? atMs }];
    if (began === 'pending') return [{ type: 'continue-turn', atMs }];
    return [];
  }

  /** The candidate was too short to be a turn (cough, click, the assistant's own echo). */
  onDiscarded(atMs: number): BargeInDecision[] {
    if (!this.held) return [];
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

  /** Push-to-talk pressed: an explicit interruption, no confirmation needed. */
  onKeyPress(atMs: number, phase: AssistantPhase): BargeInDecision[] {
    this.held = null;
    if (phase === 'speaking') return [{ type: 'interrupt', atMs, pausedAtMs: atMs }];
    if (phase === 'pending') return [{ type: 'continue-turn', atMs }];
    return [];
  }

  /** The user stopped the answer some other way (the stop button): nothing held should resume. */
  reset(): void {
    this.held = null;
  }
}
