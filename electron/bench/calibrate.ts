/**
 * `bench --calibrate`: each real-size stand-in run alone, configured as the app runs it, and
 * its speed set beside the figure published for the real model. A published figure was measured on
 * some other machine, so one ratio says little; what says whether a stand-in is right is that the
 * stand-ins measured against the same reference machine (the Raspberry Pi 4 rows) come out the same
 * number of times faster here. The table in docs/benchmarks.md is this command's output.
 */
import type { ResolvedModel } from '../../native-models/types';
import { SherpaTts } from '../engines/tts';
import sherpa from 'sherpa-onnx-node';
import { loadRecognizer, onlineRecognizerConfig } from '../engines/stt';
import { loadTurnDetector, measureTurnCost } from '../engines/turn-detector';
import { pickBackend } from '../engines/llm';
import { percentile } from '../stats';

export type Figure = 'rtf' | 'ms' | 'tokensPerSecond';

export interface Published {
  figure: Figure;
  value: number;
  threads: number | null;
  /** The machine it was measured on; rows that share one should agree with each other. */
  machine: string;
  /** What was measured, where the figure comes from. */
  note: string;
}

const PI4 = 'Raspberry Pi 4 (Cortex-A72)';

/** What is published for each real model (docs/benchmarks.md names the sources). */
export const PUBLISHED: Readonly<Record<string, Published | null>> = {
  'sherpa-onnx-streaming-zipformer-en-2023-06-26': { figure: 'rtf', value: 0.062, threads: 2, machine: 'the machine of its sherpa-onnx page (not named)', note: 'int8 encoder' },
  'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8': { figure: 'rtf', value: 0.118, threads: 2, machine: 'the machine of its own sherpa-onnx page (not named)', note: 'int8' },
  'vits-piper-en_US-libritts_r-medium': { figure: 'rtf', value: 0.79, threads: 1, machine: PI4, note: 'piper medium, fp32' },
  'vits-piper-en_US-libritts_r-medium-int8': null,
  'kokoro-en-v0_19': { figure: 'rtf', value: 6.6, threads: 1, machine: PI4, note: '2.8 on four threads' },
  'smart-turn-v3.2-cpu': { figure: 'ms', value: 60, threads: null, machine: 'a small cloud instance', note: '12 ms on a modern desktop CPU' },
  'qwen2.5-1.5b-instruct-q4_k_m': { figure: 'tokensPerSecond', value: 24, threads: 4, machine: 'a 4-thread x86 CPU', note: 'generation, same size class' },
  'qwen3-4b-instruct-2507-q4_k_m': null,
};

export interface Calibration {
  id: string;
  kind: string;
  threads: number;
  figure: Figure;
  /** Median of the repeats. */
  measured: number;
  repeats: number[];
  /** Generation figures also give the prompt's speed (tokens/s). */
  promptTokensPerSecond?: number;
  /** A streaming recognizer through the app's own recognizer (two streams a turn; see recognizer()). */
  appRtf?: number;
  /** Synthesis: characters of text a second of audio (the stand-in's speaking rate, calibrated to real speech). */
  charsPerSecond?: number;
  published: Published | null;
  /** How many times the published speed this is (over 1: faster here); null without a figure. */
  timesPublished: number | null;
}

/** The text every voice speaks: a typical answer's first sentences. */
export const CALIBRATION_TEXT = 'Sure. Tomorrow looks mild and mostly dry, with a light wind from the west and a high of about fourteen degrees in the afternoon.';

const median = (xs: number[]) => percentile(xs, 0.5) ?? NaN;

function timesPublished(figure: Figure, measured: number, p: Published | null): number | null {
  if (!p || !(measured > 0)) return null;
  return figure === 'tokensPerSecond' ? measured / p.value : p.value / measured;
}

async function voice(resolved: ResolvedModel, repeats: number): Promise<Pick<Calibration, 'measured' | 'repeats' | 'charsPerSecond' | 'threads'>> {
  const tts = await SherpaTts.load(resolved, 1);
  await tts.synthesize('Hello there.', { speakerId: 0, speed: 1 });
  const rtfs: number[] = [];
  let seconds = 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const audio = await tts.synthesize(CALIBRATION_TEXT, { speakerId: 0, speed: 1 });
    const ms = performance.now() - t0;
    seconds = (audio?.length ?? 0) / tts.sampleRate;
    if (seconds > 0) rtfs.push(ms / 1000 / seconds);
  }
  return { measured: median(rtfs), repeats: rtfs, threads: 1, charsPerSecond: seconds > 0 ? CALIBRATION_TEXT.length / seconds : undefined };
}

/**
 * The model alone, one stream fed 100 ms at a time as the published figures decode; a streaming
 * model also through the app's recognizer (appRtf), which decodes each turn twice: its own stream
 * and one trailing from the last pause cut, so that a pause's words are ready at once.
 */
async function recognizer(resolved: ResolvedModel, clip: Float32Array, repeats: number): Promise<Pick<Calibration, 'measured' | 'repeats' | 'threads' | 'appRtf'>> {
  const seconds = clip.length / 16000;
  const app = await loadRecognizer(resolved, () => 1e9);
  const appRtfs: number[] = [];
  const rtfs: number[] = [];
  try {
    for (let i = 0; i < repeats; i++) {
      const before = app.decodeMs ?? 0;
      const t0 = performance.now();
      const session = app.createSession(() => {});
      for (let at = 0; at < clip.length; at += 1600) session.accept(clip.subarray(at, at + 1600));
      await session.finish();
      // A streaming recognizer reports its thread's working time; an offline one decodes at finish.
      appRtfs.push(((app.decodeMs !== undefined ? app.decodeMs - before : performance.now() - t0) / 1000) / seconds);
    }
  } finally {
    await app.dispose();
  }
  if (!app.streaming) return { measured: median(appRtfs), repeats: appRtfs, threads: 1 };
  const rec = new sherpa.OnlineRecognizer(onlineRecognizerConfig(resolved, 1));
  for (let i = 0; i < repeats; i++) {
    const stream = rec.createStream();
    const t0 = performance.now();
    for (let at = 0; at < clip.length; at += 1600) {
      stream.acceptWaveform({ sampleRate: 16000, samples: clip.subarray(at, at + 1600) });
      while (rec.isReady(stream)) rec.decode(stream);
    }
    stream.inputFinished();
    while (rec.isReady(stream)) rec.decode(stream);
    rtfs.push((performance.now() - t0) / 1000 / seconds);
  }
  return { measured: median(rtfs), repeats: rtfs, threads: 1, appRtf: median(appRtfs) };
}

async function turnModel(resolved: ResolvedModel): Promise<Pick<Calibration, 'measured' | 'repeats' | 'threads'>> {
  const detector = await loadTurnDetector(resolved);
  const cost = await measureTurnCost(detector, { runs: 20 });
  return { measured: cost.inferenceMs.median, repeats: [cost.inferenceMs.median, cost.inferenceMs.p95, cost.inferenceMs.max], threads: 1 };
}

/** llama.cpp alone, as the published figures are taken: a 300-token prompt, then 64 tokens generated, on one thread. */
async function languageModel(resolved: ResolvedModel, repeats: number): Promise<Pick<Calibration, 'measured' | 'repeats' | 'threads' | 'promptTokensPerSecond'>> {
  const { llama } = await pickBackend('cpu');
  const spec = resolved.entry.engine;
  const modelPath = spec.engine === 'llama-gguf' ? resolved.paths[spec.model] : undefined;
  if (!modelPath) throw new Error(`${resolved.entry.id}: no model file`);
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 1024, threads: 1 });
  const gen: number[] = [];
  const prompt: number[] = [];
  try {
    const words = 'the quick brown fox jumps over the lazy dog while the weather turns mild and dry '.repeat(30);
    const tokens = model.tokenize(words).slice(0, 300);
    for (let i = 0; i < repeats; i++) {
      const sequence = context.getSequence();
      try {
        let t0 = performance.now();
        await sequence.evaluateWithoutGeneratingNewTokens(tokens);
        prompt.push(tokens.length / ((performance.now() - t0) / 1000));
        let n = 0;
        t0 = performance.now();
        for await (const token of sequence.evaluate([tokens[tokens.length - 1]!], { temperature: 0 })) {
          void token;
          if (++n >= 64) break;
        }
        gen.push(n / ((performance.now() - t0) / 1000));
      } finally {
        sequence.dispose();
      }
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return { measured: median(gen), repeats: gen, threads: 1, promptTokensPerSecond: median(prompt) };
}

/** Runs one stand-in alone and sets it beside its published figure. */
export async function calibrate(resolved: ResolvedModel, clip: Float32Array, repeats = 3): Promise<Calibration> {
  const { id, kind } = resolved.entry;
  const published = PUBLISHED[id] ?? null;
  const run =
    kind === 'tts'
      ? { figure: 'rtf' as const, ...(await voice(resolved, repeats)) }
      : kind === 'stt'
        ? { figure: 'rtf' as const, ...(await recognizer(resolved, clip, repeats)) }
        : kind === 'turn'
          ? { figure: 'ms' as const, ...(await turnModel(resolved)) }
          : kind === 'llm'
            ? { figure: 'tokensPerSecond' as const, ...(await languageModel(resolved, repeats)) }
            : null;
  if (!run) throw new Error(`${id}: nothing to calibrate for a ${kind} model`);
  return { id, kind, published, ...run, timesPublished: timesPublished(run.figure, run.measured, published) };
}

/** Rows against the same reference machine should be the same number of times faster here: their spread (max/min), per machine. */
export function agreement(rows: readonly Calibration[]): { machine: string; ids: string[]; spread: number }[] {
  const by = new Map<string, Calibration[]>();
  for (const r of rows) if (r.published && r.timesPublished !== null) by.set(r.published.machine, [...(by.get(r.published.machine) ?? []), r]);
  return [...by].filter(([, rs]) => rs.length > 1).map(([machine, rs]) => {
    const t = rs.map((r) => r.timesPublished!);
    return { machine, ids: rs.map((r) => r.id), spread: Math.max(...t) / Math.min(...t) };
  });
}

const UNIT: Record<Figure, string> = { rtf: 'RTF', ms: 'ms', tokensPerSecond: 'tokens/s' };

export function calibrationTable(rows: readonly Calibration[]): string {
  const fmt = (f: Figure, v: number) => (f === 'rtf' ? v.toFixed(3) : v.toFixed(1));
  const lines = rows.map((r) => {
    const here = `${fmt(r.figure, r.measured)} ${UNIT[r.figure]}, ${r.threads} thread`;
    const extra = [r.appRtf !== undefined ? `the app's recognizer ${r.appRtf.toFixed(3)} RTF, decoding each turn twice` : '', r.promptTokensPerSecond !== undefined ? `prompt ${r.promptTokensPerSecond.toFixed(1)} tokens/s` : '', r.charsPerSecond !== undefined ? `${r.charsPerSecond.toFixed(1)} characters a second of audio` : ''].filter(Boolean).join('; ');
    const p = r.published;
    const pub = p ? `${fmt(p.figure, p.value)} ${UNIT[p.figure]}${p.threads ? `, ${p.threads} thread${p.threads > 1 ? 's' : ''}` : ''} on ${p.machine}` : 'nothing published';
    const times = r.timesPublished === null ? '' : `  => ${r.timesPublished.toFixed(1)}x the published speed`;
    return `${r.id}\n  here: ${here}${extra ? ` (${extra})` : ''}\n  published: ${pub}${times}`;
  });
  for (const a of agreement(rows)) lines.push(`against ${a.machine}: ${a.ids.join(' and ')} agree within ${a.spread.toFixed(2)}x (a factor of 2 is the issue's bound)`);
  return lines.join('\n');
}
