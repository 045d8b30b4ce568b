import { ALL_MODELS } from '../../native-models/catalog';
import { pickModel } from '../../native-models/resolver';
import type { ModelEntry, ModelKind, ResolvedModel } from '../../native-models/types';
import { LlamaEngine, type LlmInfo } from '../engines/llm';
import { loadRecognizer } from '../engines/stt';
import { SherpaTts } from '../engines/tts';
import { SileroVad } from '../engines/vad';
import type { Settings } from '../settings/schema';
import type { PipelineEngines } from './voice-pipeline';

export interface ModelReport {
  id: string;
  name: string;
  dir: string;
  loadMs: number;
  [key: string]: unknown;
}

export interface LoadedEngines extends PipelineEngines {
  models: Record<ModelKind, ModelReport>;
  dispose(): Promise<void>;
}

export type LoadProgress = (kind: ModelKind, phase: 'loading' | 'ready', model?: ModelReport) => void;

function describe(r: ResolvedModel, info: object & { loadMs: number }): ModelReport {
  return { name: r.entry.name, dir: r.dir, ...info, id: r.entry.id, loadMs: Math.round(info.loadMs * 10) / 10 };
}

/**
 * Finds and loads the four engines. Models are resolved first (a missing one fails fast, before
 * anything heavy loads), then loaded; the LLM warms up its system prompt during the load.
 */
export async function loadEngines(
  settings: () => Settings,
  roots: string[],
  onProgress: LoadProgress = () => {},
  catalog: readonly ModelEntry[] = ALL_MODELS,
): Promise<LoadedEngines> {
  const s = settings();
  const [vadModel, sttModel, llmModel, ttsModel] = await Promise.all([
    pickModel('vad', roots, s.models.vad ?? undefined, catalog),
    pickModel('stt', roots, s.models.stt ?? undefined, catalog),
    pickModel('llm', roots, s.models.llm ?? undefined, catalog),
    pickModel('tts', roots, s.models.tts ?? undefined, catalog),
  ]);

  onProgress('vad', 'loading');
  const vad = await SileroVad.load(vadModel, s.endpointing.vadThreshold);
  const models = { vad: describe(vadModel, vad.info) } as Record<ModelKind, ModelReport>;
  onProgress('vad', 'ready', models.vad);

  onProgress('stt', 'loading');
  const stt = await loadRecognizer(sttModel, () => settings().stt.partialIntervalMs);
  models.stt = describe(sttModel, stt.info);
  onProgress('stt', 'ready', models.stt);

  onProgress('tts', 'loading');
  const tts = await SherpaTts.load(ttsModel);
  models.tts = describe(ttsModel, tts.info);
  onProgress('tts', 'ready', models.tts);

  onProgress('llm', 'loading');
  const llm = await LlamaEngine.load(llmModel, s.llm);
  models.llm = describe(llmModel, llm.info satisfies LlmInfo);
  onProgress('llm', 'ready', models.llm);

  return { vad, stt, llm, tts, models, dispose: async () => {
      await Promise.all([llm.dispose(), vad.dispose()]);
    },
  };
}
