/**
 * "Where would my turns have been cut with these settings?" Replays a recorded VAD trace (speech
 * probability per window) through the pipeline's own Segmenter with other endpointing settings.
 * The live endpointer places boundaries on the audio's energy; the trace has only probabilities,
 * so here a boundary is the last window at or above the threshold (within a window, ~32 ms).
 */
import { Segmenter, type EndReason, type SpeechBoundaries } from '../../electron/pipeline/segmenter';
import { isSpeech, VAD_HYSTERESIS } from '../../electron/pipeline/vad-decision';

/** One VAD window: its end time (pipeline clock, ms) and Silero's speech probability. */
export interface VadPoint {
  t: number;
  p: number;
}

export interface ReplaySettings {
  vadThreshold: number;
  minSpeechMs: number;
  silenceMs: number;
  maxTurnMs: number;
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

export function replayEndpointing(trace: readonly VadPoint[], s: ReplaySettings): Replay {
  let index = -1;
  const boundaries = new TraceBoundaries(trace, s.vadThreshold, () => index);
  const segmenter = new Segmenter(() => s, boundaries);
  const turns: ReplayedTurn[] = [];
  const discarded: Replay['discarded'] = [];
  let speaking = false;
  for (index = 0; index < trace.length; index++) {
    const w = trace[index]!;
    speaking = isSpeech(speaking, w.p, s.vadThreshold);
    for (const e of segmenter.push(w.t, speaking)) {
      if (e.type === 'end-of-turn') turns.push({ startMs: e.speechStartMs, speechEndMs: e.speechEndMs, endMs: e.atMs, reason: e.reason });
      else if (e.type === 'discarded') discarded.push({ startMs: e.startMs, endMs: e.atMs });
    }
  }
  return { turns, discarded };
}
