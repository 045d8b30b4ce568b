/**
 * Engines that keep account of their own processing time, for the benchmark's real-time factors.
 * They wrap the real engines and change nothing else: the pipeline under test is the app's.
 */
import type { LanguageModel } from '../engines/llm-types';
import type { PeekOptions, SpeechRecognizer, SttSession } from '../engines/stt';
import type { SpeechSynthesizer } from '../engines/tts';
import type { VoiceActivityDetector } from '../engines/vad';
import { VAD_SAMPLE_RATE } from '../engines/vad-window';
import type { PipelineEngines } from '../pipeline/voice-pipeline';

export interface EngineAccount {
  /** Processing time (ms) and the audio it concerned (ms). */
  vad: { ms: number; audioMs: number };
  stt: { ms: number; audioMs: number };
  /** LLM generation time against the duration of the answers' speech (added by the caller from `audio` events). */
  llm: { ms: number; audioMs: number };
  tts: { ms: number; audioMs: number };
}

export function newAccount(): EngineAccount {
  return { vad: { ms: 0, audioMs: 0 }, stt: { ms: 0, audioMs: 0 }, llm: { ms: 0, audioMs: 0 }, tts: { ms: 0, audioMs: 0 } };
}

const now = () => performance.now();

function vad(inner: VoiceActivityDetector, a: EngineAccount): VoiceActivityDetector {
  return {
    get info() {
      return inner.info;
    },
    async accept(window) {
      const t0 = now();
      try {
        return await inner.accept(window);
      } finally {
        a.vad.ms += now() - t0;
        a.vad.audioMs += (window.length / VAD_SAMPLE_RATE) * 1000;
      }
    },
    setThreshold: (t) => inner.setThreshold(t),
    reset: () => inner.reset(),
    dispose: () => inner.dispose(),
  };
}

function stt(inner: SpeechRecognizer, a: EngineAccount): SpeechRecognizer {
  // A recognizer on its own thread reports its decoding time; the waits seen here would count only
  // its peeks and finals (the caller's accept returns at once).
  let reported = inner.decodeMs ?? 0;
  const waited = (ms: number) => {
    if (inner.decodeMs === undefined) {
      a.stt.ms += ms;
      return;
    }
    a.stt.ms += inner.decodeMs - reported;
    reported = inner.decodeMs;
  };
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const t0 = now();
    try {
      return await work();
    } finally {
      waited(now() - t0);
    }
  };
  const wrap = (s: SttSession): SttSession => ({
    accept(samples) {
      const t0 = now();
      s.accept(samples);
      waited(now() - t0);
      a.stt.audioMs += (samples.length / 16000) * 1000;
    },
    finish: () => timed(() => s.finish()),
    abort: () => s.abort(),
    // A prepared answer's transcript: recognizer work too, counted like the final decode.
    ...(s.peek ? { peek: (opts?: PeekOptions) => timed(() => s.peek!(opts)) } : {}),
  });
  return {
    streaming: inner.streaming,
    leadInMs: inner.leadInMs,
    info: inner.info,
    get busy() {
      return inner.busy;
    },
    createSession: (onPartial) => wrap(inner.createSession(onPartial)),
  };
}

function llm(inner: LanguageModel, a: EngineAccount): LanguageModel {
  return {
    get info() {
      return inner.info;
    },
    async generate(messages, opts) {
      const t0 = now();
      try {
        return await inner.generate(messages, opts);
      } finally {
        a.llm.ms += now() - t0;
      }
    },
    countTokens: (text) => inner.countTokens(text),
    ...(inner.tokenUsage ? { tokenUsage: () => inner.tokenUsage!() } : {}),
    ...(inner.prefill ? { prefill: (messages, tools) => inner.prefill!(messages, tools) } : {}),
    dispose: () => inner.dispose(),
  };
}

function tts(inner: SpeechSynthesizer, a: EngineAccount): SpeechSynthesizer {
  return {
    get sampleRate() {
      return inner.sampleRate;
    },
    get info() {
      return inner.info;
    },
    async synthesize(text, opts) {
      const t0 = now();
      const samples = await inner.synthesize(text, opts);
      a.tts.ms += now() - t0;
      if (samples) {
        const ms = (samples.length / inner.sampleRate) * 1000;
        a.tts.audioMs += ms;
      }
      return samples;
    },
  };
}

export function instrument(engines: PipelineEngines, account: EngineAccount): PipelineEngines {
  // The end-of-turn model passes through as it is: its cost is measured per check by `bench --turns`.
  return { vad: vad(engines.vad, account), stt: stt(engines.stt, account), llm: llm(engines.llm, account), tts: tts(engines.tts, account), turn: engines.turn ?? null };
}
