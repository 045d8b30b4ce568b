import type { AssistantPhase, OneShotReason, OneShotState } from '../vocabulary';
/**
 * One-shot listening: an activation (shortcut, tray, button) opens the microphone for one turn. A
 * pure policy: the pipeline tells it of activations, of speech starting a turn, of the turn ending
 * and of the passing of time, and acts on what it answers. It holds no audio and does no I/O.
 *
 * idle ──activation──▶ armed ──speech──▶ turn ──its end (any rule)──▶ idle
 *                        │                 └──activation: ended now──▶ idle
 *                        └──activation, or no speech in time──▶ idle
 */

/**
 * How long an activation waits for speech before listening stops by itself. People start talking
 * within a second or two of pressing a key; eight seconds covers a slow start (or a thought) without
 * leaving the microphone open for long after an activation by mistake.
 */
export const ONE_SHOT_NO_SPEECH_MS = 8000;

export interface OneShotChange {
  state: OneShotState;
  /** The state it left. */
  from: OneShotState;
  reason: OneShotReason;
  /** When it changed (the time it was told). */
  atMs: number;
}

/**
 * What an activation does: `arm` starts listening, `end-turn` ends the turn in progress now (its end
 * reason is the activation), `disarm` stops listening before any speech (no turn). `interrupt`: the
 * assistant is speaking or has an answer on its way, and it stops at once, as for a push-to-talk press.
 */
export interface OneShotDecision extends OneShotChange {
  action: 'arm' | 'end-turn' | 'disarm';
  interrupt: boolean;
}

export class OneShotPolicy {
  private current: OneShotState = 'idle';
  /** When the armed wait for speech began. */
  private armedAtMs = 0;

  get state(): OneShotState {
    return this.current;
  }

  /** Whether speech may start a turn now. */
  get listening(): boolean {
    return this.current !== 'idle';
  }

  /** When an armed wait runs out with no speech; null when not waiting. */
  get dueMs(): number | null {
    return this.current === 'armed' ? this.armedAtMs + ONE_SHOT_NO_SPEECH_MS : null;
  }

  /** An activation at `atMs`, with the assistant in `phase`. */
  activate(atMs: number, phase: AssistantPhase): OneShotDecision {
    const interrupt = phase !== 'idle';
    const from = this.current;
    if (from === 'idle') {
      this.current = 'armed';
      this.armedAtMs = atMs;
      return { action: 'arm', interrupt, state: 'armed', from, reason: 'activation', atMs };
    }
    this.current = 'idle';
    return { action: from === 'turn' ? 'end-turn' : 'disarm', interrupt, state: 'idle', from, reason: 'activation', atMs };
  }

  /** Speech lasted long enough to be a turn. */
  speechStarted(atMs: number): OneShotChange | null {
    if (this.current !== 'armed') return null;
    this.current = 'turn';
    return { state: 'turn', from: 'armed', reason: 'speech', atMs };
  }

  /** The turn ended by its own rules (`end-of-turn`), or the input ended: listening stops. */
  stop(atMs: number, reason: 'end-of-turn' | 'input-ended'): OneShotChange | null {
    const from = this.current;
    if (from === 'idle') return null;
    this.current = 'idle';
    return { state: 'idle', from, reason, atMs };
  }

  /**
   * Time passes. An armed wait with no speech in progress (`candidate`: something that may become
   * speech is being heard; it is let finish) runs out at `dueMs`.
   */
  tick(atMs: number, candidate: boolean): OneShotChange | null {
    const due = this.dueMs;
    if (due === null || candidate || atMs < due) return null;
    this.current = 'idle';
    return { state: 'idle', from: 'armed', reason: 'no-speech', atMs };
  }

  /** Another mode took over: forget any listening. */
  reset(): void {
    this.current = 'idle';
  }
}
