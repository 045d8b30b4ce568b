import type { EndReason } from '../vocabulary';
/** Where speech actually began and ended, finer than the VAD's windows (EnergyTracker in the app). */
export interface SpeechBoundaries {
  /** End of the last active stretch at or before `atMs`, looking back at most `lookbackMs`. */
  lastActiveEnd(atMs: number, lookbackMs: number): number | undefined;
  /** Start of the active stretch that runs up to `atMs`, looking back at most `lookbackMs`. */
  onsetBefore(atMs: number, lookbackMs: number): number | undefined;
}

export interface EndpointingConfig {
  minSpeechMs: number;
  silenceMs: number;
  maxTurnMs: number;
}

export type SegmenterEvent =
  /** The VAD heard something: recognition may start, it is not a turn yet. */
  | { type: 'candidate'; startMs: number; atMs: number }
  /** Speech lasted minSpeechMs: a user turn has begun. */
  | { type: 'speech-start'; startMs: number; atMs: number }
  /** The candidate was too short (cough, click, "uh") and is dropped. */
  | { type: 'discarded'; startMs: number; atMs: number }
  /** The user paused; `speechEndMs` is when they actually stopped. */
  | { type: 'pause'; speechEndMs: number; atMs: number }
  | { type: 'resume'; atMs: number }
  | { type: 'end-of-turn'; speechStartMs: number; speechEndMs: number; atMs: number; reason: EndReason };

type State =
  | { kind: 'idle' }
  | { kind: 'candidate'; startMs: number; speaking: boolean; lastSpeechMs: number }
  | { kind: 'speaking'; startMs: number }
  | { kind: 'trailing'; startMs: number; speechEndMs: number };

/** Precision limits for boundary refinement. */
const ONSET_LOOKBACK_MS = 400;
const OFFSET_LOOKBACK_MS = 400;

/**
 * The pure turn segmenter: VAD decisions per window in, turn events out. It holds no audio and
 * does no I/O; the config is read at every window so settings apply live.
 */
export class Segmenter {
  private state: State = { kind: 'idle' };
  /**
   * After a turn was cut at maxTurnMs, what follows without a break is the same endless sound
   * (noise, a monologue already answered): no new turn starts until the VAD hears a gap.
   */
  private awaitingGap = false;

  constructor(
    private readonly config: () => EndpointingConfig,
    private readonly energy: SpeechBoundaries,
  ) {}

  get inTurn(): boolean {
    return this.state.kind === 'speaking' || this.state.kind === 'trailing';
  }

  get hasCandidate(): boolean {
    return this.state.kind !== 'idle';
  }

  /** Speech start of the current candidate or turn. */
  get startMs(): number | undefined {
    return this.state.kind === 'idle' ? undefined : this.state.startMs;
  }

  private speechEnd(atMs: number): number {
    return this.energy.lastActiveEnd(atMs, OFFSET_LOOKBACK_MS) ?? atMs;
  }

  /** One VAD decision for the window ending at `atMs` (the energy tracker has seen the window). */
  push(atMs: number, speech: boolean): SegmenterEvent[] {
    const cfg = this.config();
    const s = this.state;
    const out: SegmenterEvent[] = [];
    switch (s.kind) {
      case 'idle':
        if (this.awaitingGap) this.awaitingGap = speech;
        else if (speech) {
          const startMs = this.energy.onsetBefore(atMs, ONSET_LOOKBACK_MS) ?? atMs;
          this.state = { kind: 'candidate', startMs, speaking: true, lastSpeechMs: atMs };
          out.push({ type: 'candidate', startMs, atMs });
          out.push(...this.confirm(atMs, cfg));
        }
        break;
      case 'candidate':
        if (speech) {
          s.speaking = true;
          s.lastSpeechMs = atMs;
          out.push(...this.confirm(atMs, cfg));
        } else {
          if (s.speaking) {
            s.speaking = false;
            s.lastSpeechMs = this.speechEnd(atMs);
            // The whole burst was shorter than the minimum: not speech worth a turn.
            if (s.lastSpeechMs - s.startMs >= cfg.minSpeechMs) {
              this.state = { kind: 'trailing', startMs: s.startMs, speechEndMs: s.lastSpeechMs };
              out.push({ type: 'speech-start', startMs: s.startMs, atMs });
              out.push({ type: 'pause', speechEndMs: s.lastSpeechMs, atMs });
              break;
            }
          }
          if (atMs - s.lastSpeechMs >= Math.min(cfg.silenceMs, 300)) {
            this.state = { kind: 'idle' };
            out.push({ type: 'discarded', startMs: s.startMs, atMs });
          }
        }
        break;
      case 'speaking':
        if (!speech) {
          const speechEndMs = this.speechEnd(atMs);
          this.state = { kind: 'trailing', startMs: s.startMs, speechEndMs };
          out.push({ type: 'pause', speechEndMs, atMs });
        }
        break;
      case 'trailing':
        if (speech) {
          this.state = { kind: 'speaking', startMs: s.startMs };
          out.push({ type: 'resume', atMs });
        }
        break;
    }
    out.push(...this.checkEnd(atMs, cfg));
    return out;
  }

  private confirm(atMs: number, cfg: EndpointingConfig): SegmenterEvent[] {
    const s = this.state;
    // Measured on the audio, not on the lagging decision: a short burst the VAD still calls speech
    // 150 ms after it ended must not pass for a long one.
    if (s.kind !== 'candidate' || this.speechEnd(atMs) - s.startMs < cfg.minSpeechMs) return [];
    this.state = { kind: 'speaking', startMs: s.startMs };
    return [{ type: 'speech-start', startMs: s.startMs, atMs }];
  }

  private checkEnd(atMs: number, cfg: EndpointingConfig): SegmenterEvent[] {
    const s = this.state;
    if (s.kind === 'trailing' && atMs >= s.speechEndMs + cfg.silenceMs) {
      return [this.end(atMs, 'silence', s.speechEndMs)];
    }
    if ((s.kind === 'speaking' || s.kind === 'trailing') && atMs - s.startMs >= cfg.maxTurnMs) {
      this.awaitingGap = s.kind === 'speaking';
      return [this.end(atMs, 'max-length')];
    }
    return [];
  }

  /**
   * Ends the current turn now (push-to-talk release, end of input...). A candidate that never
   * reached the minimum is discarded, and says so like any other (a held answer must resume);
   * undefined when nothing was in progress.
   */
  forceEnd(atMs: number, reason: EndReason): SegmenterEvent | undefined {
    const s = this.state;
    if (s.kind === 'speaking' || s.kind === 'trailing') return this.end(atMs, reason);
    this.state = { kind: 'idle' };
    return s.kind === 'candidate' ? { type: 'discarded', startMs: s.startMs, atMs } : undefined;
  }

  private end(atMs: number, reason: EndReason, speechEndMs?: number): SegmenterEvent {
    const s = this.state as Extract<State, { kind: 'speaking' | 'trailing' }>;
    const end = speechEndMs ?? (s.kind === 'trailing' ? s.speechEndMs : this.speechEnd(atMs));
    this.state = { kind: 'idle' };
    return { type: 'end-of-turn', speechStartMs: s.startMs, speechEndMs: Math.min(end, atMs), atMs, reason };
  }

  reset(): void {
    this.state = { kind: 'idle' };
    this.awaitingGap = false;
  }
}
