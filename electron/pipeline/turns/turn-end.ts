/**
 * When a pause ends the user's turn: silence alone, or an end-of-turn model's verdict. A pure policy
 * (no audio, no I/O; shared with the renderer's replay): turn taking tells it where each pause began
 * and what the model said, and asks it when to run a check and how long the segmenter should let
 * silence run before ending the turn by itself.
 *
 * With the model: once a pause has lasted `turnCheckMs`, the turn so far is scored once. A turn that
 * sounds finished (probability >= `turnThreshold`) ends at once; one that sounds unfinished may pause
 * up to `maxPauseMs` (the ceiling). Without the model, or when a check fails, `silenceMs` decides.
 *
 * The model judges sound; the words judge too. When the recognizer's words at a check end in a word
 * no English sentence ends with ("set an alarm for the", "call my", "and um"), the pause is a hold
 * whatever the model said (`heldBy` "dangling-word"): silence then runs to `maxPauseMs`, as for an
 * unfinished verdict.
 */
import { endsDangling } from './dangling-word';
import type { HeldBy } from '../vocabulary';
export interface TurnEndConfig {
  silenceMs: number;
  turnModel: boolean;
  turnCheckMs: number;
  turnThreshold: number;
  maxPauseMs: number;
}

type Verdict = 'finished' | 'unfinished' | 'failed';

/**
 * What holds a pause whatever the model says, given the recognizer's words at the check (null: none
 * were had): "dangling-word" when they end in a word a sentence cannot end with, else null.
 */
export function holdFor(words: string | null): HeldBy | null {
  return words !== null && endsDangling(words) ? 'dangling-word' : null;
}

export class TurnEndPolicy {
  private pause: { id: number; speechEndMs: number; asked: boolean; verdict: Verdict | null } | null = null;
  private nextId = 0;

  /** `available`: a detector is loaded (settings may still turn it off). */
  constructor(private readonly available: () => boolean) {}

  /** Whether the model decides pauses under these settings. */
  usesModel(cfg: TurnEndConfig): boolean {
    return cfg.turnModel && this.available();
  }

  /** The user paused; their words ended at `speechEndMs` (input time). */
  onPause(speechEndMs: number): void {
    this.pause = { id: this.nextId++, speechEndMs, asked: false, verdict: null };
  }

  /** The user went on talking, or the turn ended: any check in flight is stale. */
  onResume(): void {
    this.pause = null;
  }

  /** The id of the check to start now (input time `atMs`), or null when none is due. */
  due(atMs: number, cfg: TurnEndConfig): number | null {
    const p = this.pause;
    if (!p || p.asked || !this.usesModel(cfg) || atMs < p.speechEndMs + cfg.turnCheckMs) return null;
    p.asked = true;
    return p.id;
  }

  /**
   * The model's probability for check `id`: 'end' when the turn ends now. `heldBy` (see holdFor): the
   * words hold this pause, so it is unfinished whatever the probability.
   */
  verdict(id: number, probability: number, cfg: TurnEndConfig, heldBy: HeldBy | null = null): 'end' | 'wait' | 'stale' {
    const p = this.pause;
    if (!p || p.id !== id) return 'stale';
    p.verdict = heldBy === null && probability >= cfg.turnThreshold ? 'finished' : 'unfinished';
    return p.verdict === 'finished' ? 'end' : 'wait';
  }

  /** Check `id` could not run: this pause is judged by silence alone. */
  failed(id: number): void {
    if (this.pause?.id === id) this.pause.verdict = 'failed';
  }

  /** How long the segmenter lets silence run before it ends the turn by itself. */
  silenceMs(cfg: TurnEndConfig): number {
    if (!this.usesModel(cfg) || this.pause?.verdict === 'failed') return cfg.silenceMs;
    return cfg.maxPauseMs;
  }
}
