import sherpa, {
  type OfflineModelConfig,
  type OfflineRecognizer,
  type OnlineModelConfig,
  type OnlineRecognizer,
} from 'sherpa-onnx-node';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';

export const STT_SAMPLE_RATE = 16000;

/** One user turn being recognized. Audio goes in as it arrives; partials come out on the way. */
export interface SttSession {
  accept(samples: Float32Array): void;
  /** Ends the turn and resolves with the final transcript (trimmed, may be empty). */
  finish(): Promise<string>;
  /** Drops the turn: no more partials, finish() is never awaited. */
  abort(): void;
}

export interface SpeechRecognizer {
  readonly streaming: boolean;
  /** Audio wanted before the speech onset, on top of the user's prefix padding. */
  readonly leadInMs: number;
  readonly info: { id: string; kind: 'streaming' | 'offline'; loadMs: number };
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
 * Streaming recognizer (sherpa OnlineRecognizer). Decoding is incremental and cheap per chunk,
 * so partials come straight from the decoder as audio arrives.
 */
export class StreamingRecognizer implements SpeechRecognizer {
  readonly streaming = true;
  /**
   * A causal encoder starting cold drops the first phoneme ("and" heard as "nd" with 0.3 s of
   * lead-in, right with 0.8 s): give it context from before the onset. Costs ~1 ms of decoding.
   */
  readonly leadInMs = 800;
  readonly info: SpeechRecognizer['info'];

  private constructor(private readonly recognizer: OnlineRecognizer, id: string, loadMs: number) {
    this.info = { id, kind: 'streaming', loadMs };
  }

  static load(resolved: ResolvedModel, numThreads = 1): StreamingRecognizer {
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
    const t0 = performance.now();
    try {
      const recognizer = new sherpa.OnlineRecognizer({
        featConfig: { sampleRate: STT_SAMPLE_RATE, featureDim: 80 },
        modelConfig,
        decodingMethod: 'greedy_search',
        // Turn ends are decided by our own endpointer, not sherpa's.
        enableEndpoint: false,
      });
      return new StreamingRecognizer(recognizer, resolved.entry.id, performance.now() - t0);
    } catch (e) {
      throw loadFailure(resolved, e);
    }
  }

  createSession(onPartial: (text: string) => void): SttSession {
    const rec = this.recognizer;
    const stream = rec.createStream();
    let last = '';
    let done = false;
    const drain = (): string => {
      while (rec.isReady(stream)) rec.decode(stream);
      return normalize(rec.getResult(stream).text);
    };
    return {
      accept(samples) {
        if (done) return;
        stream.acceptWaveform({ samples, sampleRate: STT_SAMPLE_RATE });
        const text = drain();
        if (text && text !== last) {
          last = text;
          onPartial(text);
        }
      },
      async finish() {
        if (done) return last;
        done = true;
        // Trailing silence flushes the model's right context; without it the last word is lost.
        stream.acceptWaveform({ samples: new Float32Array(STT_SAMPLE_RATE / 2), sampleRate: STT_SAMPLE_RATE });
        stream.inputFinished();
        return drain();
      },
      abort() {
        done = true;
      },
    };
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
      abort: () => {
        done = true;
      },
    };
  }
}

export async function loadRecognizer(
  resolved: ResolvedModel,
  partialIntervalMs: () => number,
): Promise<SpeechRecognizer> {
  return resolved.entry.engine.engine === 'sherpa-online'
    ? StreamingRecognizer.load(resolved)
    : OfflineSegmentRecognizer.load(resolved, partialIntervalMs);
}
