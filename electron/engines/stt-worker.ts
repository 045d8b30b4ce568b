/**
 * The streaming recognizer's own thread. sherpa-onnx builds an OnlineRecognizer synchronously (it
 * has no async factory, unlike OfflineRecognizer and OfflineTts), which would stall the app's main
 * event loop for the whole model load; so it is built here, and decodes here too, since a native
 * handle cannot cross threads. StreamingRecognizer (stt.ts) is the other end of these messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import sherpa, { type OnlineRecognizer, type OnlineRecognizerConfig, type OnlineStream } from 'sherpa-onnx-node';

export type ToWorker =
  | { type: 'open'; id: number }
  | { type: 'accept'; id: number; samples: Float32Array }
  | { type: 'finish'; id: number }
  /**
   * What finish would give now, decoded afresh from the last cut and ended the same way; the stream
   * goes on. `quietSamples`: how many of the last samples fed are the silence after the words (0:
   * unknown); when known, a new cut is made in its middle.
   */
  | { type: 'peek'; id: number; request: number; quietSamples: number }
  | { type: 'abort'; id: number }
  /** The recognizer is being disposed: the thread ends itself between native calls. */
  | { type: 'close' };

/** `ms`: the thread's working time since its last report, so the benchmark can count it (the caller's clock cannot). */
export type FromWorker =
  | { type: 'ready' }
  /** One `accept` message has been handled (decoded, or dropped for an ended stream). */
  | { type: 'decoded'; ms: number }
  | { type: 'load-failed'; message: string }
  /** Raw decoder text, sent each time it changes. */
  | { type: 'partial'; id: number; text: string }
  | { type: 'final'; id: number; text: string; ms: number }
  | { type: 'peeked'; request: number; text: string; error?: string; ms: number }
  | { type: 'failed'; id: number; message: string; ms: number };

export interface WorkerConfig {
  recognizer: OnlineRecognizerConfig;
  sampleRate: number;
  /**
   * How far the stream from the last cut trails the audio fed (half of PAUSE_PEEK_QUIET_MS and a little
   * more): a pause's cut falls in the middle of its silence, and audio already decoded cannot be taken back.
   */
  trailSamples: number;
  /**
   * Set (to 1) when the recognizer is disposed: every message still queued is skipped and the thread
   * exits. Terminating it from outside during a native decode aborts the whole process (sherpa-onnx's
   * addon throws a C++ exception no one catches).
   */
  closing: SharedArrayBuffer;
}

const port = parentPort;
if (!port) throw new Error('stt-worker runs as a worker thread only');
const send = (m: FromWorker) => port.postMessage(m);
/** Working time not yet reported, and when the message being handled began. */
let carriedMs = 0;
let startedAt = 0;
/** The working time since the last report, for a message that reports it. */
function spent(): number {
  const now = performance.now();
  const ms = carriedMs + now - startedAt;
  carriedMs = 0;
  startedAt = now;
  return ms;
}
const { recognizer: config, sampleRate, trailSamples, closing } = workerData as WorkerConfig;
const closed = new Int32Array(closing);

let recognizer: OnlineRecognizer | null = null;
try {
  recognizer = new sherpa.OnlineRecognizer(config);
  send({ type: 'ready' });
} catch (e) {
  send({ type: 'load-failed', message: (e as Error).message });
}

/**
 * Open streams; a stream that failed keeps its error until its turn's finish reports it. `cut`: a
 * point inside a pause a peek has decoded up to, and the words before it, so the next peek (and the
 * final) decodes only the audio after it: a long turn costs no more than its last stretch of speech.
 * The turn's own stream gives the interim words, and the final of a turn never cut.
 *
 * `sinceCut` decodes the audio from the last cut as it comes, `trailSamples` behind the turn's own
 * stream, so that a pause's peek is left only that trail and the closing silence to decode: decoding
 * the stretch since the cut afresh at the pause (the whole turn, for a short one) held every end of
 * turn by about its length times the recognizer's real-time factor.
 */
interface Open {
  stream: OnlineStream;
  text: string;
  audio: Float32Array[];
  samples: number;
  cut: { at: number; text: string } | null;
  sinceCut: { stream: OnlineStream; from: number; fed: number };
}
const streams = new Map<number, Open | { error: string }>();

/** The end a stream is given at finish: trailing silence flushes the model's right context (without it the last word is lost). */
function finishStream(rec: OnlineRecognizer, stream: OnlineStream): string {
  stream.acceptWaveform({ samples: new Float32Array(sampleRate / 2), sampleRate });
  stream.inputFinished();
  return drain(rec, stream);
}

function drain(rec: OnlineRecognizer, stream: OnlineStream): string {
  while (rec.isReady(stream)) rec.decode(stream);
  return rec.getResult(stream).text;
}

/** Samples `[from, to)` of a stream's audio, kept as the chunks it was fed in. */
function samplesBetween(audio: readonly Float32Array[], from: number, to: number): Float32Array {
  const out = new Float32Array(Math.max(0, to - from));
  let at = 0;
  for (const a of audio) {
    const lo = Math.max(from - at, 0);
    const hi = Math.min(to - at, a.length);
    if (hi > lo) out.set(a.subarray(lo, hi), at + lo - from);
    at += a.length;
    if (at >= to) break;
  }
  return out;
}

/**
 * The words up to sample `to`: those before the last cut as decoded then, and a fresh stream over the
 * audio since, ended as finish ends it. Without a cut, the whole turn decoded afresh.
 */
function decodeFromCut(rec: OnlineRecognizer, s: Open, to: number): string {
  const from = s.cut?.at ?? 0;
  const copy = rec.createStream();
  copy.acceptWaveform({ samples: samplesBetween(s.audio, from, to), sampleRate });
  return afterCut(s, finishStream(rec, copy));
}

/** The words before the last cut, then `text`. */
function afterCut(s: Open, text: string): string {
  return [s.cut?.text ?? '', text].map((t) => t.trim()).filter(Boolean).join(' ');
}

/** A stream over the audio from sample `from` on, fed up to where it trails the turn's own stream. */
function streamFrom(rec: OnlineRecognizer, s: Pick<Open, 'audio' | 'samples'>, from: number): Open['sinceCut'] {
  const sinceCut = { stream: rec.createStream(), from, fed: from };
  feedUpTo(rec, s, sinceCut, s.samples - trailSamples);
  return sinceCut;
}

function feedUpTo(rec: OnlineRecognizer, s: Pick<Open, 'audio'>, sinceCut: Open['sinceCut'], to: number): void {
  if (to <= sinceCut.fed) return;
  sinceCut.stream.acceptWaveform({ samples: samplesBetween(s.audio, sinceCut.fed, to), sampleRate });
  sinceCut.fed = to;
  drain(rec, sinceCut.stream);
}

/**
 * The words up to sample `to`: those before the last cut, and the stream since it ended as finish ends
 * it (decoded afresh only where that stream has already been fed past `to`).
 */
function wordsUpTo(rec: OnlineRecognizer, s: Open, to: number): string {
  if (s.sinceCut.fed > to) return decodeFromCut(rec, s, to);
  feedUpTo(rec, s, s.sinceCut, to);
  return afterCut(s, finishStream(rec, s.sinceCut.stream));
}

function handle(rec: OnlineRecognizer, m: Exclude<ToWorker, { type: 'close' }>): void {
  if (m.type === 'open') {
    const audio = { audio: [], samples: 0 };
    streams.set(m.id, { stream: rec.createStream(), text: '', ...audio, cut: null, sinceCut: streamFrom(rec, audio, 0) });
    return;
  }
  if (m.type === 'peek') {
    const s = streams.get(m.id);
    if (!s || 'error' in s) {
      send({ type: 'peeked', request: m.request, text: '', error: s ? s.error : 'the turn has ended', ms: spent() });
      return;
    }
    if (m.quietSamples <= 0) {
      send({ type: 'peeked', request: m.request, text: decodeFromCut(rec, s, s.samples), ms: spent() });
      return;
    }
    // With the silence after the words known, this peek decodes only up to the middle of it (a word
    // beginning at its end, not yet caught by the VAD, is left whole for later) and marks a cut there.
    const to = Math.max(s.cut?.at ?? 0, s.samples - Math.floor(Math.min(m.quietSamples, s.samples) / 2));
    const text = wordsUpTo(rec, s, to);
    s.cut = { at: to, text };
    s.sinceCut = streamFrom(rec, s, to);
    send({ type: 'peeked', request: m.request, text, ms: spent() });
    return;
  }
  const s = streams.get(m.id);
  if (m.type === 'abort' || m.type === 'finish') streams.delete(m.id);
  if (!s) return;
  if ('error' in s) {
    if (m.type === 'finish') send({ type: 'failed', id: m.id, message: s.error, ms: spent() });
    return;
  }
  if (m.type === 'accept') {
    s.stream.acceptWaveform({ samples: m.samples, sampleRate });
    s.audio.push(m.samples);
    s.samples += m.samples.length;
    const text = drain(rec, s.stream);
    if (text !== s.text) send({ type: 'partial', id: m.id, text });
    s.text = text;
    // After the interim words are out: a "stop" over the answer must not wait for this.
    feedUpTo(rec, s, s.sinceCut, s.samples - trailSamples);
  } else if (m.type === 'finish') {
    // Cut at a pause, the final is decoded as the peeks were (from the cut), so a prepared answer's
    // words and the final agree; uncut, the turn's own stream has decoded it all already.
    send({ type: 'final', id: m.id, text: s.cut ? wordsUpTo(rec, s, s.samples) : finishStream(rec, s.stream), ms: spent() });
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'close') process.exit(0);
  // Disposed: what is still queued is not wanted (the 'close' behind it ends the thread).
  if (Atomics.load(closed, 0) === 1) return;
  if (!recognizer) return;
  startedAt = performance.now();
  try {
    handle(recognizer, m);
  } catch (e) {
    // A stream is unusable after a native failure: its turn fails at finish, the next turn starts clean.
    const message = (e as Error).message;
    if (m.type === 'finish') send({ type: 'failed', id: m.id, message, ms: spent() });
    else if (m.type === 'peek') send({ type: 'peeked', request: m.request, text: '', error: message, ms: spent() });
    else if (m.type !== 'abort') streams.set(m.id, { error: message });
  } finally {
    if (m.type === 'accept') send({ type: 'decoded', ms: spent() });
    else carriedMs += performance.now() - startedAt;
  }
});
