/**
 * "Where would my turns have been cut with these settings?" Replays a recorded VAD trace (speech
 * probability per window) through the pipeline's own Segmenter and TurnEndPolicy with other
 * endpointing settings. Pure (no Node APIs): shared by the renderer and the tests.
 *
 * Approximations, because only the trace and the model's live answers were recorded:
 * - The live endpointer places boundaries on the audio's energy; the trace has only probabilities,
 *   so here a boundary is the last window at or above the threshold (within a window, ~32 ms).
 * - The end-of-turn model cannot be run again here (no audio). Live, it was asked once per pause, at
 *   the live `turnCheckMs`; the replay reuses that probability for the replayed pause it falls in
 *   (the first recorded check after the pause's speech end and before the next speech), as if it
 *   had been given at the replayed `turnCheckMs`. A finished-sounding pause then ends at the first
 *   window `turnCheckMs` after the speech end (live, the model's own latency comes on top). A pause
 *   with no recorded check (the model was not asked live: it was off, or the pause is new under
 *   these settings) is treated as unfinished, so only the ceiling `maxPauseMs` ends it.
 * - A check whose words held the pause live (`heldBy`, "set an alarm for the") holds it here too,
 *   whatever the threshold: the words do not change with the settings.
 */
import { Segmenter, type SegmenterEvent, type SpeechBoundaries } from '../../electron/pipeline/turns/segmenter';
import { TurnEndPolicy, type TurnEndConfig } from '../../electron/pipeline/turns/turn-end';
import { isSpeech, VAD_HYSTERESIS } from '../../electron/engines/vad-decision';
import type { EndReason, TurnCheck } from '../../electron/pipeline/vocabulary';

/** One VAD window: its end time (pipeline clock, ms) and Silero's speech probability. */
export interface VadPoint {
  t: number;
  p: number;
}

export interface ReplaySettings extends TurnEndConfig {
  vadThreshold: number;
  minSpeechMs: number;
  maxTurnMs: number;
}

/** A recorded check: when and what the model said, and what held the pause whatever it said (absent: nothing). */
export type ReplayCheck = Pick<TurnCheck, 'atMs' | 'probability'> & Partial<Pick<TurnCheck, 'heldBy'>>;

/** The end-of-turn model as it was live: whether one is loaded, and what it said (pipeline clock). */
export interface ReplayModel {
  loaded: boolean;
  checks: readonly ReplayCheck[];
}

export interface ReplayedTurn {
  startMs: number;
  speechEndMs: number;
  /** When the turn would have been ended. */
  endMs: number;
  reason: EndReason;
}

export interface Replay {
  turns: ReplayedTurn[];
  /** Sounds too short to start a turn. */
  discarded: { startMs: number; endMs: number }[];
}

const WINDOW_MS = 32;
const NO_MODEL: ReplayModel = { loaded: false, checks: [] };

class TraceBoundaries implements SpeechBoundaries {
  constructor(
    private readonly trace: readonly VadPoint[],
    private readonly threshold: number,
    private readonly upTo: () => number,
  ) {}

  lastActiveEnd(atMs: number, lookbackMs: number): number | undefined {
    for (let i = this.upTo(); i >= 0; i--) {
      const w = this.trace[i]!;
      if (w.t > atMs) continue;
      if (w.t < atMs - lookbackMs) return undefined;
      if (w.p >= this.threshold) return w.t;
    }
    return undefined;
  }

  onsetBefore(atMs: number, lookbackMs: number): number | undefined {
    let onset: number | undefined;
    for (let i = this.upTo(); i >= 0; i--) {
      const w = this.trace[i]!;
      if (w.t > atMs) continue;
      if (w.t < atMs - lookbackMs || w.p < this.threshold - VAD_HYSTERESIS) break;
      onset = w.t - WINDOW_MS;
    }
    return onset;
  }
}

/** Whether the model decides pauses: the setting is on and a model is loaded (as the pipeline asks). */
export function modelInUse(s: Pick<TurnEndConfig, 'turnModel'>, model: Pick<ReplayModel, 'loaded'>): boolean {
  return s.turnModel && model.loaded;
}

/**
 * End of the pause that holds window `from` (the user is silent there): the end time of the next
 * window heard as speech, or Infinity when the trace ends first.
 */
function nextSpeechMs(trace: readonly VadPoint[], from: number, threshold: number): number {
  for (let i = from + 1; i < trace.length; i++) if (isSpeech(false, trace[i]!.p, threshold)) return trace[i]!.t;
  return Infinity;
}

export function replayEndpointing(trace: readonly VadPoint[], s: ReplaySettings, model: ReplayModel = NO_MODEL): Replay {
  let index = -1;
  const boundaries = new TraceBoundaries(trace, s.vadThreshold, () => index);
  const policy = new TurnEndPolicy(() => model.loaded);
  // As in turn taking: with the model in use, silence alone may run to the ceiling.
  const segmenter = new Segmenter(() => ({ ...s, silenceMs: policy.silenceMs(s) }), boundaries);
  const turns: ReplayedTurn[] = [];
  const discarded: Replay['discarded'] = [];
  let pauseFromMs = 0;
  const handle = (e: SegmenterEvent) => {
    switch (e.type) {
      case 'pause':
        pauseFromMs = e.speechEndMs;
        policy.onPause(e.speechEndMs);
        break;
      case 'resume':
        policy.onResume();
        break;
      case 'end-of-turn':
        policy.onResume();
        turns.push({ startMs: e.speechStartMs, speechEndMs: e.speechEndMs, endMs: e.atMs, reason: e.reason });
        break;
      case 'discarded':
        discarded.push({ startMs: e.startMs, endMs: e.atMs });
        break;
      default:
        break;
    }
  };
  let speaking = false;
  for (index = 0; index < trace.length; index++) {
    const w = trace[index]!;
    speaking = isSpeech(speaking, w.p, s.vadThreshold);
    for (const e of segmenter.push(w.t, speaking)) handle(e);
    const id = policy.due(w.t, s);
    if (id === null) continue;
    const untilMs = nextSpeechMs(trace, index, s.vadThreshold);
    const check = model.checks.find((c) => c.atMs > pauseFromMs && c.atMs < untilMs);
    // No recorded answer: the verdict stays open and the policy keeps the ceiling.
    if (check && policy.verdict(id, check.probability, s, check.heldBy ?? null) === 'end') {
      const e = segmenter.forceEnd(w.t, 'turn-model');
      if (e) handle(e);
    }
  }
  return { turns, discarded };
}
