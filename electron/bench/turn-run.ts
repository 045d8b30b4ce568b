/**
 * Runs the app's own turn taking (TurnTaking: echo canceller, input gain, VAD, segmenter, recognizer
 * session, end-of-turn model) over one clip, window by window as the app's drainFrames does, and
 * records where each end of turn was decided. Nothing answers: the assistant stays silent ('idle').
 */
import type { TurnDetector, TurnScore } from '../engines/turn-detector';
import { VAD_WINDOW, VAD_WINDOW_MS } from '../engines/vad-window';
import { FastForwardClock } from '../pipeline/clock';
import { EventHub } from '../pipeline/events';
import { frameDue } from '../pipeline/run/feed';
import { TimelineOutput } from '../pipeline/speak/output';
import { TurnTaking, type TurnEngines as ListeningEngines } from '../pipeline/turns/turn-taking';
import type { EndedTurn, TurnGate } from '../pipeline/turns/turn-events';
import type { Settings } from '../settings/schema';
import type { EndReason } from '../pipeline/vocabulary';

/** The listening engines, the end-of-turn model named even when there is none (null). */
export type TurnEngines = Required<ListeningEngines>;

/** The assistant never speaks here, so every phase listens and the turn needs endpointing's own minimum. */
export const SILENT_GATE: TurnGate = { listens: () => true, minSpeechMs: (_phase, ms) => ms };

/** An end of turn, in ms of input from the clip start: where it was decided, where the turn's words ended, and why. */
export interface DecidedEnd {
  atMs: number;
  /** The end of the user's words as turn taking placed it (the start of the pause that ended the turn). */
  speechEndMs: number;
  reason: EndReason;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Feeds a clip to turn taking as feedFrames feeds the app's pipeline: one 32 ms window at a time on a
 * fast clock that skips ahead while nothing is in flight and runs at wall speed while `busy()` (a
 * recognizer backlog, an end-of-turn verdict, an answer being made), so engine time counts as in a
 * real-time run. Then waits for what is still in flight to land.
 */
export async function feedClip(turns: TurnTaking, samples: Float32Array, clock: FastForwardClock, busy: () => boolean): Promise<void> {
  const frames = Math.ceil(samples.length / VAD_WINDOW);
  for (let k = 0; k < frames; k++) {
    const endMs = (k + 1) * VAD_WINDOW_MS;
    const frame = new Float32Array(VAD_WINDOW);
    frame.set(samples.subarray(k * VAD_WINDOW, (k + 1) * VAD_WINDOW));
    await frameDue(clock, endMs, !busy());
    // A frame a window late had the next queued behind it in a real microphone (see feedFrames).
    const heard = await turns.hear(frame, clock.now() - endMs > VAD_WINDOW_MS);
    turns.decide(heard, 'idle');
  }
  while (busy()) await sleep(1);
}

/** Wraps a detector to keep each check's cost (features + inference, as the detector measured them). */
export function recordingDetector(inner: TurnDetector, costs: Pick<TurnScore, 'featuresMs' | 'inferenceMs'>[]): TurnDetector {
  return {
    info: inner.info,
    async score(audio) {
      const s = await inner.score(audio);
      costs.push({ featuresMs: s.featuresMs, inferenceMs: s.inferenceMs });
      return s;
    },
    dispose: () => inner.dispose(),
  };
}

/**
 * One clip through a fresh TurnTaking under `settings`: the ends of turn decided while the clip
 * played. `onEnd` sees each ended turn as it comes (the sequential baseline answers it).
 */
export async function runTurnTaking(
  engines: TurnEngines,
  samples: Float32Array,
  settings: Settings,
  opts: { clock?: FastForwardClock; onEnd?: (turn: EndedTurn, turns: TurnTaking) => void; busy?: () => boolean } = {},
): Promise<DecidedEnd[]> {
  const clock = opts.clock ?? new FastForwardClock();
  const ends: DecidedEnd[] = [];
  const transcripts: Promise<unknown>[] = [];
  let playing = true;
  // Each clip is a fresh session: no VAD state carried over from the previous clip.
  engines.vad.reset();
  const turns: TurnTaking = new TurnTaking({ clock, settings: () => settings, events: new EventHub(), output: new TimelineOutput() }, engines, { gate: SILENT_GATE, onTurn: (e) => {
    if (e.type !== 'end-of-turn') return;
    transcripts.push(e.turn.transcript.catch(() => undefined));
    if (!playing) return;
    // The turn's times are on the pipeline clock; input time 0 is at timeline.toClock(0) there.
    ends.push({ atMs: turns.audioMs, speechEndMs: e.turn.speechEndMs - turns.timeline.toClock(0), reason: e.turn.reason });
    opts.onEnd?.(e.turn, turns);
  } });
  const busy = opts.busy ?? (() => false);
  await feedClip(turns, samples, clock, () => turns.busy || busy());
  playing = false;
  // A turn still open at the end of the clip was never ended: close it only to free the recognizer.
  turns.endTurnNow('input-ended');
  await Promise.all(transcripts);
  return ends;
}
