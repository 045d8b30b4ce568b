/**
 * The window's status (AppStatus in ipc-contract.ts) before the settings are read, and its models'
 * part at each step of a load: pure mappings, so the controller only decides when they apply.
 */
import type { AppStatus, LlmStatus, ModelKind, ModelStatus } from '../ipc-contract';
import type { LoadedEngines, ModelReport } from '../pipeline/load-engines';
import type { Settings } from '../settings/schema';
import { optionalMissingLine, WITHOUT_OPTIONAL } from '../../native-models/setup-plan';
import type { ModelEntry } from '../../native-models/types';

const KINDS: readonly ModelKind[] = ['vad', 'stt', 'tts', 'llm', 'turn'];

/** Before the settings are read (start() fills in the API key and the desktop). */
export function initialStatus(): AppStatus {
  return {
    phase: 'starting',
    setup: null,
    listening: true,
    models: waitingModels(),
    llm: null,
    apiKey: { stored: false, protection: '', for: null },
    desktop: { shell: false, shortcut: '', shortcutError: null },
    microphone: null,
    microphoneProblem: null,
    confirmation: null,
    tools: { builtIn: [], servers: [] },
    error: null,
  };
}

/** Every model before a load, in the order the window lists them. */
export function waitingModels(): ModelStatus[] {
  return KINDS.map((kind) => ({ kind, state: 'waiting' }));
}

/** A model's status as the load reports its progress. */
export function loadProgress(phase: 'loading' | 'ready', model: ModelReport | undefined): Partial<ModelStatus> {
  if (phase === 'loading') return { state: 'loading' };
  return {
    state: 'ready',
    id: model?.id,
    name: model?.name,
    loadMs: model?.loadMs,
    ...(typeof model?.layout === 'string' ? { layout: model.layout } : {}),
    ...(typeof model?.numSpeakers === 'number' ? { voices: model.numSpeakers } : {}),
  };
}

/** After a failed load: what had loaded stays ready, the rest failed. */
export function failedModels(models: readonly ModelStatus[]): ModelStatus[] {
  return models.map((m) => (m.state === 'ready' ? m : { ...m, state: 'error' }));
}

/**
 * The end-of-turn model is optional: missing, it is only explained; broken, it is reported (the
 * line to show), and the assistant runs without it. null when it loaded.
 */
export function turnModelStatus(engines: LoadedEngines, catalog: readonly ModelEntry[]): { status: Partial<ModelStatus>; error: string | null } | null {
  if (engines.turn) return null;
  if (engines.turnError) {
    const line = `${engines.turnError.message} The assistant runs without it: ${WITHOUT_OPTIONAL.turn}.`;
    return { status: { state: 'error', detail: line }, error: line };
  }
  return { status: { state: 'missing', detail: optionalMissingLine('turn', catalog) }, error: null };
}

/** Where the language model runs, as the models panel shows it. */
export function llmStatus(s: Settings, engines: LoadedEngines): LlmStatus {
  const info = engines.llm.info;
  return {
    backend: info.backend,
    gpuDevices: info.gpuDevices,
    gpuLayers: info.gpuLayers,
    totalLayers: info.totalLayers,
    contextSize: info.contextSize,
    softwareGpuSkipped: info.softwareGpuSkipped,
    cpuReason: info.cpuReason,
    ...(info.backend === 'server' ? { server: serverStatus(s, engines) } : {}),
  };
}

function serverStatus(s: Settings, engines: LoadedEngines): NonNullable<LlmStatus['server']> {
  const fallback = (engines.models.llm as { fallback?: { id: string } | null }).fallback;
  return { baseUrl: s.llm.server.baseUrl, model: s.llm.server.model, fallback: fallback?.id ?? null };
}
