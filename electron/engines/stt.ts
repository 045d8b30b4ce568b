import { Worker } from 'node:worker_threads';
import sherpa, { type OfflineModelConfig, type OfflineRecognizer, type OnlineModelConfig, type OnlineRecognizerConfig } from 'sherpa-onnx-node';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import type { FromWorker, ToWorker, WorkerConfig } from './stt-worker';

export const STT_SAMPLE_RATE = 16000;
/**
 * Silence after the words before a pause's peek may cut the turn there: a dip inside a word (a stop
 * consonant's closure) is far shorter, so the cut lands in a gap between words.
 */
export const PAUSE_PEEK_QUIET_MS = 150;
/** How much more than half of PAUSE_PEEK_QUIET_MS the recognizer thread's stream since the last cut trails the audio (two VAD windows). */
const PEEK_TRAIL_SLACK_MS = 64;
/** How long a disposed recognizer's thread may take to finish its native call and exit before it is terminated. */
const CLOSE_WAIT_MS = 5000;
/** Audio messages (one per 32 ms window) in flight to the recognizer thread before it counts as behind. */
const BACKLOG_WINDOWS = 3;

/** What a peek is told of the audio fed so far (SttSession.peek). */
export interface PeekOptions {
  quietMs?: number;
}

/** One user turn being recognized. Audio goes in as it arrives; partials come out on the way. */
export interface SttSession {
  accept(samples: Float32Array): void;
  /** Ends the turn and resolves with the final transcript (trimmed, may be empty). */
  finish(): Promise<string>;
  /**
   * What finish() would give if the turn ended now, decoded the same way, without ending it: the
   * transcript an answer is prepared from while the user pauses. Absent where it cannot be had.
   * `quietMs`: the audio fed so far ends in this much silence after the words (PAUSE_PEEK_QUIET_MS at
   * least): a streaming recognizer then decodes up to the middle of it and keeps that point, so the
   * next peek decodes only the speech after it instead of the whole turn again.
   */
  peek?(opts?: PeekOptions): Promise<string>;
  /** Drops the turn: no more partials, finish() is never awaited. */
  abort(): void;
}

export interface SpeechRecognizer {
  readonly streaming: boolean;
  /** Audio wanted before the speech onset, on top of the user's prefix padding. */
  readonly leadInMs: number;
  readonly info: { id: string; kind: 'streaming' | 'offline'; loadMs: number };
  /**
   * Audio handed over is still waiting to be decoded. A fast clock (talk --fast, bench) must not
   * run ahead of it, or a long turn's final transcript waits on a backlog no real-time run has.
   */
  readonly busy: boolean;
  /** Time spent decoding so far, where the recognizer decodes on its own thread (the caller's clock cannot see it). */
  readonly decodeMs?: number;
  createSession(onPartial: (text: string) => void): SttSession;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function file(resolved: ResolvedModel, name: string | undefined, role: string): string {
  const p = name ? resolved.paths[name] : undefined;
  if (!p) throw new Error(`catalog entry ${resolved.entry.id} names no ${role} file`);
  return p;
}

function loadFailure(resolved: ResolvedModel, e: unknown): UserError {
  return new UserError(
    `Could not load the speech recognizer '${resolved.entry.id}' from ${resolved.dir}: ${(e as Error).message}. ` +
      `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
    'model-load',
  );
}

/**
 * Starts the recognizer thread. Built (scripts/build-electron.mjs), it is `stt-worker.cjs` next to
 * this code's bundle; from source (tsx: the CLI, the tests) it is the TypeScript file, with tsx
 * registered inside the thread first, since Node 20 does not apply `--import tsx` to a worker's entry.
 */
function startWorker(config: WorkerConfig): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./stt-worker.cjs', import.meta.url), { workerData: config });
  const entry = JSON.stringify(new URL('./stt-worker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => tsx.register()).then(() => import(${entry}))`, { eval: true, workerData: config });
}

/** The worker's first message: ready, or why the model did not load. */
function loaded(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      worker.off('message', onMessage).off('error', settle).off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (m: FromWorker) => settle(m.type === 'ready' ? undefined : new Error(m.type === 'load-failed' ? m.message : `unexpected '${m.type}'`));
    const onExit = (code: number) => settle(new Error(`the recognizer thread exited (code ${code})`));
    worker.on('message', onMessage).on('error', settle).on('exit', onExit);
  });
}

/** The sherpa OnlineRecognizer configuration the app runs a streaming model with (also `bench --calibrate`'s). */
export function onlineRecognizerConfig(resolved: ResolvedModel, numThreads = 1): OnlineRecognizerConfig {
  const spec = resolved.entry.engine;
  if (spec.engine !== 'sherpa-online') throw new Error(`${resolved.entry.id} is not a streaming recognizer`);
  const modelConfig: OnlineModelConfig = { tokens: file(resolved, spec.tokens, 'tokens'), numThreads, debug: false };
  if (spec.family === 'zipformer2-ctc') modelConfig.zipformer2Ctc = { model: file(resolved, spec.model, 'model') };
  else
    modelConfig.transducer = {
      encoder: file(resolved, spec.encoder, 'encoder'),
      decoder: file(resolved, spec.decoder, 'decoder'),
      joiner: file(resolved, spec.joiner, 'joiner'),
    };
  return {
    featConfig: { sampleRate: STT_SAMPLE_RATE, featureDim: 80 },
    modelConfig,
    decodingMethod: 'greedy_search',
    // Turn ends are decided by our own endpointer, not sherpa's.
    enableEndpoint: false,
  };
}

/**
 * Streaming recognizer (sherpa OnlineRecognizer). Decoding is incremental and cheap per chunk, so
 * partials come straight from the decoder as audio arrives. The recognizer lives in its own thread
 * (stt-worker.ts): building it takes the whole model load, which must not stall the app's event loop.
 */
export class StreamingRecognizer implements SpeechRecognizer {
  readonly streaming = true;
  /**
   * A causal encoder starting cold drops the first phoneme ("and" heard as "nd" with 0.3 s of
   * lead-in, right with 0.8 s): give it context from before the onset. Costs ~1 ms of decoding.
   */
  readonly leadInMs = 800;
  readonly info: SpeechRecognizer['info'];
  private nextId = 0;
  private readonly partials = new Map<number, (text: string) => void>();
  private readonly finals = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
  /** Peeks in flight, by request id (a session may peek more than once). */
  private readonly peeks = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
  private nextPeek = 0;
  /** The thread has ended. */
  private exited = false;
  /** Set once the thread is gone: every later finish() fails with it. */
  private stopped: Error | null = null;
  /** Audio messages posted to the thread and not yet decoded there. */
  private undecoded = 0;
  /** The thread's working time, as it reports it with each window decoded, peek and final. */
  decodeMs = 0;

  /** Behind by more than a few windows: one or two in flight is the normal round trip, not a backlog. */
  get busy(): boolean {
    return this.undecoded > BACKLOG_WINDOWS;
  }

  private constructor(
    private readonly worker: Worker,
    private readonly closing: SharedArrayBuffer,
    id: string,
    loadMs: number,
  ) {
    this.info = { id, kind: 'streaming', loadMs };
    worker.on('message', (m: FromWorker) => this.receive(m));
    worker.on('error', (e) => this.stop(e));
    worker.on('exit', (code) => {
      this.exited = true;
      this.stop(new Error(`the speech recognizer stopped (thread exit code ${code})`));
    });
    // Idle, the thread must not keep a CLI or a test process alive; a pending finish() holds it (see hold()).
    worker.unref();
  }

  static async load(resolved: ResolvedModel, numThreads = 1): Promise<StreamingRecognizer> {
    const recognizer = onlineRecognizerConfig(resolved, numThreads);
    const t0 = performance.now();
    const closing = new SharedArrayBuffer(4);
    const worker = startWorker({
      recognizer,
      sampleRate: STT_SAMPLE_RATE,
      // A peek's silence is measured a window or so apart from the audio the thread has been fed.
      trailSamples: Math.round((STT_SAMPLE_RATE * (PAUSE_PEEK_QUIET_MS / 2 + PEEK_TRAIL_SLACK_MS)) / 1000),
      closing,
    });
    try {
      await loaded(worker);
    } catch (e) {
      await worker.terminate();
      throw loadFailure(resolved, e);
    }
    return new StreamingRecognizer(worker, closing, resolved.entry.id, performance.now() - t0);
  }

  private post(m: ToWorker): void {
    if (this.stopped) return;
    if (m.type === 'accept') this.undecoded++;
    this.worker.postMessage(m);
  }

  private receive(m: FromWorker): void {
    if ('ms' in m) this.decodeMs += m.ms;
    if (m.type === 'decoded') this.undecoded = Math.max(0, this.undecoded - 1);
    if (m.type === 'partial') this.partials.get(m.id)?.(m.text);
    if (m.type === 'peeked') {
      const p = this.peeks.get(m.request);
      this.peeks.delete(m.request);
      this.release();
      if (m.error === undefined) p?.resolve(normalize(m.text));
      else p?.reject(new Error(`Speech recognition failed: ${m.error}`));
      return;
    }
    if (m.type !== 'final' && m.type !== 'failed') return;
    const pending = this.finals.get(m.id);
    this.finals.delete(m.id);
    this.release();
    if (m.type === 'final') pending?.resolve(normalize(m.text));
    else pending?.reject(new Error(`Speech recognition failed: ${m.message}`));
  }

  private stop(err: Error): void {
    if (this.stopped) return;
    this.stopped = err;
    this.undecoded = 0;
    for (const { reject } of [...this.finals.values(), ...this.peeks.values()]) reject(err);
    this.finals.clear();
    this.peeks.clear();
    this.partials.clear();
  }

  /** The thread is referenced while a finish() or a peek() waits on it, so the process stays up for the answer. */
  private hold(): void {
    if (this.finals.size === 0 && this.peeks.size === 0) this.worker.ref();
  }

  private release(): void {
    if (this.finals.size === 0 && this.peeks.size === 0) this.worker.unref();
  }

  createSession(onPartial: (text: string) => void): SttSession {
    const id = this.nextId++;
    let last = '';
    let done = false;
    // Partials stop at finish() or abort(): one arriving later would land on the next turn.
    const close = (): boolean => {
      this.partials.delete(id);
      const wasOpen = !done;
      done = true;
      return wasOpen;
    };
    this.partials.set(id, (raw) => {
      const text = normalize(raw);
      if (text && text !== last) {
        last = text;
        onPartial(text);
      }
    });
    this.post({ type: 'open', id });
    return {
      accept: (samples) => {
        if (!done) this.post({ type: 'accept', id, samples });
      },
      finish: () => {
        if (!close()) return Promise.resolve(last);
        if (this.stopped) return Promise.reject(this.stopped);
        return new Promise<string>((resolve, reject) => {
          this.hold();
          this.finals.set(id, { resolve, reject });
          this.post({ type: 'finish', id });
        });
      },
      peek: (opts) => {
        if (done) return Promise.resolve(last);
        if (this.stopped) return Promise.reject(this.stopped);
        const request = this.nextPeek++;
        return new Promise<string>((resolve, reject) => {
          this.hold();
          this.peeks.set(request, { resolve, reject });
          this.post({ type: 'peek', id, request, quietSamples: Math.round(((opts?.quietMs ?? 0) * STT_SAMPLE_RATE) / 1000) });
        });
      },
      abort: () => {
        if (close()) this.post({ type: 'abort', id });
      },
    };
  }

  /** Ends the recognizer's thread (and frees its model). */
  async dispose(): Promise<void> {
    this.stop(new Error('the speech recognizer was closed'));
    if (this.exited) return;
    // The thread ends itself after the native call it is in (see WorkerConfig.closing); terminate only one that hangs.
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    Atomics.store(new Int32Array(this.closing), 0, 1);
    this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), CLOSE_WAIT_MS)));
    if ((await Promise.race([exited, hung])) === 'hung') await this.worker.terminate();
    clearTimeout(timer);
  }
}

/**
 * VAD-segmented offline recognizer (sherpa OfflineRecognizer: Moonshine, Whisper, Parakeet...).
 * Partials come from re-decoding the growing segment off the main thread, at most one decode in
 * flight and no more often than `partialIntervalMs` of audio, so the cost stays bounded.
 */
export class OfflineSegmentRecognizer implements SpeechRecognizer {
  readonly streaming = false;
  readonly leadInMs = 0;
  /** Partials are at most one decode in flight, never a queue; the final decode is timed as STT. */
  readonly busy = false;
  readonly info: SpeechRecognizer['info'];

  private constructor(
    private readonly recognizer: OfflineRecognizer,
    id: string,
    loadMs: number,
    private readonly partialIntervalMs: () => number,
  ) {
    this.info = { id, kind: 'offline', loadMs };
  }

  static async load(
    resolved: ResolvedModel,
    partialIntervalMs: () => number,
    numThreads = 1,
  ): Promise<OfflineSegmentRecognizer> {
    const spec = resolved.entry.engine;
    if (spec.engine !== 'sherpa-offline') throw new Error(`${resolved.entry.id} is not an offline recognizer`);
    const modelConfig: OfflineModelConfig = { tokens: file(resolved, spec.tokens, 'tokens'), numThreads, debug: false };
    switch (spec.family) {
      case 'zipformer-ctc':
        modelConfig.zipformerCtc = { model: file(resolved, spec.model, 'model') };
        break;
      case 'nemo-ctc':
        modelConfig.nemoCtc = { model: file(resolved, spec.model, 'model') };
        break;
      case 'sense-voice':
        modelConfig.senseVoice = { model: file(resolved, spec.model, 'model'), useInverseTextNormalization: 1 };
        break;
      case 'transducer':
        modelConfig.transducer = {
          encoder: file(resolved, spec.encoder, 'encoder'),
          decoder: file(resolved, spec.decoder, 'decoder'),
          joiner: file(resolved, spec.joiner, 'joiner'),
        };
        if (/nemo|parakeet/i.test(resolved.entry.id)) modelConfig.modelType = 'nemo_transducer';
        break;
      case 'whisper':
        modelConfig.whisper = {
          encoder: file(resolved, spec.encoder, 'encoder'),
          decoder: file(resolved, spec.decoder, 'decoder'),
          language: 'en',
          task: 'transcribe',
        };
        break;
      case 'moonshine':
        modelConfig.moonshine = {
          preprocessor: spec.preprocessor ? file(resolved, spec.preprocessor, 'preprocessor') : undefined,
          encoder: file(resolved, spec.encoder, 'encoder'),
          uncachedDecoder: spec.uncachedDecoder ? file(resolved, spec.uncachedDecoder, 'uncachedDecoder') : undefined,
          cachedDecoder: spec.cachedDecoder ? file(resolved, spec.cachedDecoder, 'cachedDecoder') : undefined,
        };
        break;
    }
    const t0 = performance.now();
    try {
      const recognizer = await sherpa.OfflineRecognizer.createAsync({
        featConfig: { sampleRate: STT_SAMPLE_RATE, featureDim: 80 },
        modelConfig,
        decodingMethod: 'greedy_search',
      });
      return new OfflineSegmentRecognizer(recognizer, resolved.entry.id, performance.now() - t0, partialIntervalMs);
    } catch (e) {
      throw loadFailure(resolved, e);
    }
  }

  /** Nothing to end by hand: the native recognizer is freed with this object. */
  async dispose(): Promise<void> {}

  private async decode(samples: Float32Array): Promise<string> {
    const stream = this.recognizer.createStream();
    stream.acceptWaveform({ samples, sampleRate: STT_SAMPLE_RATE });
    return normalize((await this.recognizer.decodeAsync(stream)).text);
  }

  createSession(onPartial: (text: string) => void): SttSession {
    const chunks: Float32Array[] = [];
    let length = 0;
    let decodedUpTo = 0;
    let partialInFlight = false;
    let done = false;
    let last = '';
    const collect = (): Float32Array => {
      const all = new Float32Array(length);
      let o = 0;
      for (const c of chunks) {
        all.set(c, o);
        o += c.length;
      }
      return all;
    };
    return {
      accept: (samples) => {
        if (done) return;
        chunks.push(samples.slice());
        length += samples.length;
        const due = ((length - decodedUpTo) / STT_SAMPLE_RATE) * 1000 >= this.partialIntervalMs();
        if (!due || partialInFlight) return;
        partialInFlight = true;
        decodedUpTo = length;
        this.decode(collect())
          .then((text) => {
            if (!done && text && text !== last) {
              last = text;
              onPartial(text);
            }
          })
          .catch(() => {
            // A failed partial is not worth failing the turn for; the final decode reports errors.
          })
          .finally(() => {
            partialInFlight = false;
          });
      },
      finish: async () => {
        done = true;
        if (length === 0) return '';
        return this.decode(collect());
      },
      // The same decode as finish(), over the audio so far.
      peek: async () => (length === 0 ? '' : this.decode(collect())),
      abort: () => {
        done = true;
      },
    };
  }
}

/** A recognizer as loaded: whoever loads it disposes of it. */
export type LoadedRecognizer = SpeechRecognizer & { dispose(): Promise<void> };

export async function loadRecognizer(
  resolved: ResolvedModel,
  partialIntervalMs: () => number,
): Promise<LoadedRecognizer> {
  return resolved.entry.engine.engine === 'sherpa-online'
    ? StreamingRecognizer.load(resolved)
    : OfflineSegmentRecognizer.load(resolved, partialIntervalMs);
}
