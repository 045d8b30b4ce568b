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
  /** What finish would give now: the stream's audio decoded afresh, ended the same way; the stream goes on. */
  | { type: 'peek'; id: number; request: number }
  | { type: 'abort'; id: number };

export type FromWorker =
  | { type: 'ready' }
  /** One `accept` message has been handled (decoded, or dropped for an ended stream). */
  | { type: 'decoded' }
  | { type: 'load-failed'; message: string }
  /** Raw decoder text, sent each time it changes. */
  | { type: 'partial'; id: number; text: string }
  | { type: 'final'; id: number; text: string }
  | { type: 'peeked'; request: number; text: string; error?: string }
  | { type: 'failed'; id: number; message: string };

export interface WorkerConfig {
  recognizer: OnlineRecognizerConfig;
  sampleRate: number;
}

const port = parentPort;
if (!port) throw new Error('stt-worker runs as a worker thread only');
const send = (m: FromWorker) => port.postMessage(m);
const { recognizer: config, sampleRate } = workerData as WorkerConfig;

let recognizer: OnlineRecognizer | null = null;
try {
  recognizer = new sherpa.OnlineRecognizer(config);
  send({ type: 'ready' });
} catch (e) {
  send({ type: 'load-failed', message: (e as Error).message });
}

/** Open streams; a stream that failed keeps its error until its turn's finish reports it. */
const streams = new Map<number, { stream: OnlineStream; text: string; audio: Float32Array[] } | { error: string }>();

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

function handle(rec: OnlineRecognizer, m: ToWorker): void {
  if (m.type === 'open') {
    streams.set(m.id, { stream: rec.createStream(), text: '', audio: [] });
    return;
  }
  if (m.type === 'peek') {
    const s = streams.get(m.id);
    if (!s || 'error' in s) {
      send({ type: 'peeked', request: m.request, text: '', error: s ? s.error : 'the turn has ended' });
      return;
    }
    // A fresh stream over the same audio, ended as finish ends it: the same decoding as the final.
    const copy = rec.createStream();
    for (const samples of s.audio) copy.acceptWaveform({ samples, sampleRate });
    send({ type: 'peeked', request: m.request, text: finishStream(rec, copy) });
    return;
  }
  const s = streams.get(m.id);
  if (m.type === 'abort' || m.type === 'finish') streams.delete(m.id);
  if (!s) return;
  if ('error' in s) {
    if (m.type === 'finish') send({ type: 'failed', id: m.id, message: s.error });
    return;
  }
  if (m.type === 'accept') {
    s.stream.acceptWaveform({ samples: m.samples, sampleRate });
    s.audio.push(m.samples);
    const text = drain(rec, s.stream);
    if (text !== s.text) send({ type: 'partial', id: m.id, text });
    s.text = text;
  } else if (m.type === 'finish') {
    send({ type: 'final', id: m.id, text: finishStream(rec, s.stream) });
  }
}

port.on('message', (m: ToWorker) => {
  if (!recognizer) return;
  try {
    handle(recognizer, m);
  } catch (e) {
    // A stream is unusable after a native failure: its turn fails at finish, the next turn starts clean.
    const message = (e as Error).message;
    if (m.type === 'finish') send({ type: 'failed', id: m.id, message });
    else if (m.type === 'peek') send({ type: 'peeked', request: m.request, text: '', error: message });
    else if (m.type !== 'abort') streams.set(m.id, { error: message });
  } finally {
    if (m.type === 'accept') send({ type: 'decoded' });
  }
});
