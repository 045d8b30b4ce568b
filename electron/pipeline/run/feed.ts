import { VAD_WINDOW, VAD_WINDOW_MS } from '../../engines/vad-window';
import { FastForwardClock, type Clock } from '../clock';
import type { AudioOutput } from '../speak/output';
import type { VoicePipeline } from '../voice-pipeline';

export interface FeedOptions {
  /** Skip idle time instead of waiting for it (see FastForwardClock). */
  fast: boolean;
  /** After the input, keep feeding silence until replies finish, at most this long. */
  maxTailMs?: number;
  /**
   * After the input, wait for a timeout (a timer, an alarm) only if it falls due within this long
   * of now (default: any); later ones do not keep the feed going.
   */
  wakeWithinMs?: number;
  /** Runs before each frame is waited for, between two frames (a key press, an activation at its time). */
  beforeFrame?: (frame: Float32Array, startMs: number) => void;
  /**
   * Alters each frame once it is due, before the pipeline hears it: what the speaker played during
   * it is known only then (an answer may have started meanwhile), so the echo simulation mixes here.
   */
  recordInto?: (frame: Float32Array, startMs: number) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Waits until the frame ending at `endMs` is due, as a microphone would deliver it: a fast clock
 * with nothing in flight (`skip`) jumps there; otherwise wall time passes (engine work keeps its
 * real latency).
 */
export async function frameDue(clock: Clock, endMs: number, skip: boolean): Promise<void> {
  if (skip && clock instanceof FastForwardClock) {
    clock.skipTo(endMs);
    await tick();
    return;
  }
  const wait = endMs - clock.now();
  if (wait > 0) await sleep(wait);
  else await tick();
}

/**
 * Streams a recording into the pipeline the way a microphone would: one 32 ms frame at a time,
 * on the pipeline's clock. Returns the input time at which feeding stopped.
 */
export function feedAudio(pipeline: VoicePipeline, samples: Float32Array, clock: Clock, output: AudioOutput, opts: FeedOptions): Promise<number> {
  const frames = Math.ceil(samples.length / VAD_WINDOW);
  return feedFrames(
    pipeline,
    (k) => {
      if (k >= frames) return null;
      const frame = new Float32Array(VAD_WINDOW);
      frame.set(samples.subarray(k * VAD_WINDOW, (k + 1) * VAD_WINDOW));
      return frame;
    },
    clock,
    output,
    opts,
  );
}

/**
 * The same from a frame source (frame k covers [k * 32, (k + 1) * 32) ms; null once the input
 * has ended), so an endless session need not be held in memory.
 */
export async function feedFrames(
  pipeline: VoicePipeline,
  source: (k: number) => Float32Array | null,
  clock: Clock,
  output: AudioOutput,
  opts: FeedOptions,
): Promise<number> {
  const maxTailMs = opts.maxTailMs ?? 120_000;
  let inputMs = Infinity;
  // Frames already a window late (the machine was busy) would have queued up behind each other in
  // a real microphone: they are handed over together, without waiting for each to be heard, so the
  // pipeline sees a backlog (a lag) and not a pause in the input that moves every later time.
  let queued: Promise<void> | null = null;
  for (let k = 0; ; k++) {
    const startMs = k * VAD_WINDOW_MS;
    const endMs = startMs + VAD_WINDOW_MS;
    let frame = startMs < inputMs ? source(k) : null;
    if (!frame) {
      // Whether the run is over depends on what the queued frames held.
      await queued;
      queued = null;
      inputMs = Math.min(inputMs, startMs);
      // A timeout still to come (nextWakeMs) runs on the windows fed until then.
      const wake = pipeline.nextWakeMs();
      const waiting = wake !== null && wake - clock.now() <= (opts.wakeWithinMs ?? Infinity);
      const finished = !pipeline.active && output.endMs <= startMs && !waiting;
      if (finished || startMs - inputMs > maxTailMs) return startMs;
      frame = new Float32Array(VAD_WINDOW);
    }
    opts.beforeFrame?.(frame, startMs);
    const overdue = clock.now() - endMs > VAD_WINDOW_MS;
    if (!overdue) await frameDue(clock, endMs, opts.fast && !pipeline.busy);
    opts.recordInto?.(frame, startMs);
    const heard = pipeline.pushAudio(frame);
    if (overdue) {
      queued = heard;
      heard.catch(() => undefined);
    } else {
      queued = null;
      await heard;
    }
  }
}
