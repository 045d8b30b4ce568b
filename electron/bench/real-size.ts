/**
 * `bench --real-size`: the benchmark on real-size stand-ins of the default models of one tier
 * (native-models/standins), so its figures are those of the models users download: the
 * stand-ins are written once into a cache folder, loaded through the app's own resolver and
 * engines, and given real words by the bench-only wrappers in scripted-words.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CATALOG } from '../../native-models/catalog';
import { writeStandins, type StandinRecord } from '../../native-models/standins/index';
import type { ModelEntry, ModelKind } from '../../native-models/types';
import { autoThreads } from '../engines/llm';
import type { LanguageModel } from '../engines/llm-types';
import type { SpeechRecognizer } from '../engines/stt';
import type { Clock } from '../pipeline/clock';
import type { PipelineEngines } from '../pipeline/voice-pipeline';
import { mergeSettings, type Settings } from '../settings/schema';
import { distribution, type Distribution } from '../stats';
import { manifestWordsRecognizer, scriptedTextModel, type SpokenSegment } from './scripted-words';

export type Tier = 'cpu' | 'gpu';

/** Where the gigabytes go unless --standins DIR says otherwise. */
export function defaultStandinsDir(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'local-voice-assistant', 'standins');
}

/** The models a machine of this tier gets by default: the catalog's first of each kind, the tier's language model. */
export function tierDefaults(tier: Tier, catalog: readonly ModelEntry[] = DEFAULT_CATALOG): Record<ModelKind, ModelEntry> {
  const first = (kind: ModelKind) => {
    const e = catalog.find((x) => x.kind === kind && (kind !== 'llm' || x.defaultFor === tier));
    if (!e) throw new Error(`the catalog has no default ${kind} model${kind === 'llm' ? ` for the ${tier} tier` : ''}`);
    return e;
  };
  return { vad: first('vad'), stt: first('stt'), llm: first('llm'), tts: first('tts'), turn: first('turn') };
}

export interface RealSizeSetup {
  tier: Tier;
  root: string;
  catalog: ModelEntry[];
  records: StandinRecord[];
  /** The settings with the tier's models chosen. */
  settings: Settings;
}

/** Writes (or keeps) the tier's stand-ins in `root` and chooses them in the settings. */
export async function prepareRealSize(tier: Tier, root: string, base: Settings, log: (line: string) => void): Promise<RealSizeSetup> {
  const models = tierDefaults(tier);
  const { records, catalog } = await writeStandins(root, { ids: Object.values(models).map((e) => e.id), scale: 'full', log });
  const settings = mergeSettings(base, { models: { dir: null, vad: models.vad.id, stt: models.stt.id, llm: models.llm.id, tts: models.tts.id, turn: models.turn.id } });
  return { tier, root, catalog, records, settings };
}

/** The prompt tokens the language model evaluated (what the KV cache did not already hold). */
export interface PromptTokenCounts {
  /** Per answer asked (a prepared one too): evaluated once the model was asked, mostly after the turn ended. */
  perAnswer: number[];
  /** Fed ahead while the user spoke (ListenAhead), over the whole run. */
  prefilled: number;
}

export function countingPromptTokens(inner: LanguageModel, counts: PromptTokenCounts): LanguageModel {
  if (!inner.tokenUsage) return inner;
  const input = () => inner.tokenUsage!().input;
  return {
    get info() {
      return inner.info;
    },
    tokenUsage: () => inner.tokenUsage!(),
    async generate(messages, opts) {
      const before = input();
      try {
        return await inner.generate(messages, opts);
      } finally {
        counts.perAnswer.push(input() - before);
      }
    },
    ...(inner.prefill
      ? {
          async prefill(messages, tools) {
            const before = input();
            try {
              await inner.prefill!(messages, tools);
            } finally {
              counts.prefilled += input() - before;
            }
          },
        }
      : {}),
    countTokens: (text) => inner.countTokens(text),
    dispose: () => inner.dispose(),
  };
}

/** The language model for every clip: real generation of `tokens` tokens an answer, scripted words, prompt tokens counted. */
export function realSizeModel(llm: LanguageModel, tokens: number, counts: PromptTokenCounts): LanguageModel {
  return scriptedTextModel(countingPromptTokens(llm, counts), tokens);
}

/** One clip's engines: the recognizer hears the clip's manifest words on its clock. */
export function realSizeClipEngines<E extends PipelineEngines>(engines: E, segments: readonly SpokenSegment[], clock: Clock): E {
  return { ...engines, stt: manifestWordsRecognizer(engines.stt as SpeechRecognizer, segments, clock) };
}

export interface RealSizeReport {
  tier: Tier;
  standinsDir: string;
  /** What is real and what is scripted, as printed. */
  note: string;
  standins: { id: string; parameters: number | null; publishedParameters: number | null; bytes: number }[];
  threads: { llm: number; stt: number; tts: number };
  /** Tokens each answer generated (fixed), the prompt tokens evaluated per answer asked, and those fed ahead while the user spoke. */
  llm: { tokensPerAnswer: number; promptTokensPerTurn: Distribution; prefilledTokens: number };
  /** The first turn after the models loaded, apart from the later ones. */
  firstTurn: { voiceToVoiceMs: number | null };
  laterTurns: { voiceToVoiceMs: Distribution };
  /** The sequential cascade (bench/sequential.ts) on the same engines and clips. */
  sequential: { voiceToVoiceMs: Distribution; turns: number };
  /** Later turns' median voice-to-voice over the sequential cascade's. */
  ratioToSequential: number | null;
}

export const REAL_SIZE_NOTE =
  'real-size stand-ins with random weights: every engine computes for real; the recognizer\'s words are the clip manifest\'s and the language model\'s words are scripted answers cut to the tokens it generated (bench only)';

export function realSizeReport(
  setup: RealSizeSetup,
  v2v: readonly (number | null)[],
  promptTokens: PromptTokenCounts,
  sequential: readonly number[],
): RealSizeReport {
  const later = distribution(v2v.slice(1));
  const seq = distribution(sequential);
  const s = setup.settings;
  return {
    tier: setup.tier,
    standinsDir: setup.root,
    note: REAL_SIZE_NOTE,
    standins: setup.records.map((r) => ({ id: r.id, parameters: r.parameters, publishedParameters: r.publishedParameters, bytes: r.files.reduce((n, f) => n + f.bytes, 0) })),
    // The recognizer and the voice run on one thread each (electron/engines/stt.ts, tts.ts).
    threads: { llm: s.llm.threads > 0 ? s.llm.threads : autoThreads(), stt: 1, tts: 1 },
    llm: { tokensPerAnswer: s.llm.maxTokens, promptTokensPerTurn: distribution(promptTokens.perAnswer), prefilledTokens: promptTokens.prefilled },
    firstTurn: { voiceToVoiceMs: v2v[0] ?? null },
    laterTurns: { voiceToVoiceMs: later },
    sequential: { voiceToVoiceMs: seq, turns: sequential.length },
    ratioToSequential: later.median !== null && seq.median ? later.median / seq.median : null,
  };
}

export function realSizeTable(r: RealSizeReport): string {
  const f = (v: number | null, d = 0) => (v === null ? '—' : v.toFixed(d));
  const d = (x: Distribution) => `median ${f(x.median)}  p95 ${f(x.p95)}  max ${f(x.max)}  (n ${x.n})`;
  return [
    `real size, ${r.tier} tier: ${r.note}`,
    `threads: llm ${r.threads.llm}, stt ${r.threads.stt}, tts ${r.threads.tts}; ${r.llm.tokensPerAnswer} tokens an answer; prompt tokens evaluated per answer asked: ${d(r.llm.promptTokensPerTurn)}; fed ahead while the user spoke: ${r.llm.prefilledTokens}`,
    `voice to voice, first turn after loading: ${f(r.firstTurn.voiceToVoiceMs)} ms`,
    `voice to voice, later turns (ms):        ${d(r.laterTurns.voiceToVoiceMs)}`,
    `sequential cascade, same models (ms):    ${d(r.sequential.voiceToVoiceMs)}`,
    `streaming / sequential (medians):        ${f(r.ratioToSequential, 2)}`,
  ].join('\n');
}
