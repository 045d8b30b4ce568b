import type { ToolSpec } from '../engines/tool-calls';
import { ALL_MODELS } from '../../native-models/catalog';
import { pickModel } from '../../native-models/resolver';
import type { ModelEntry, ModelKind, RequiredKind, ResolvedModel } from '../../native-models/types';
import type { FetchFunction } from '../../native-models/downloader';
import { LlamaEngine } from '../engines/llm';
import type { LanguageModel, LlmInfo } from '../engines/llm-types';
import { ServerWithFallback } from '../engines/llm-fallback';
import { OpenAiCompatibleLlm, type OpenAiLlmOptions } from '../engines/openai-llm';
import { loadRecognizer } from '../engines/stt';
import { SherpaTts } from '../engines/tts';
import { loadTurnDetector, type TurnDetector } from '../engines/turn-detector';
import { SileroVad } from '../engines/vad';
import { isUserError, UserError } from '../errors';
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
  /** The end-of-turn detector; null when none is installed, or when the one there could not be used (see turnError). */
  turn: TurnDetector | null;
  /** `turn` is null when no end-of-turn model was loaded. */
  models: Record<RequiredKind, ModelReport> & { turn?: ModelReport | null };
  /**
   * Why an installed or chosen end-of-turn model was not loaded (damaged, unknown id, fails to load).
   * Optional models never stop the app: the rest is loaded without it, and this says why.
   */
  turnError: UserError | null;
  /** With an LLM server: why the installed local model could not be loaded as its fallback (the server still answers). */
  llmError: UserError | null;
  dispose(): Promise<void>;
}

/** What loading needs that is not in the settings the window sees. */
export interface EngineSecrets {
  /** The LLM server's API key (the app keeps it outside settings.json); else `llm.server.apiKey` from a settings file. */
  apiKey?: string | null;
  /** How requests reach the LLM server (the app passes Electron's net.fetch). */
  fetch?: FetchFunction;
}

/**
 * Without a local model to switch to, a server gets this many turn budgets to its first token before
 * the turn gives up (it may be loading the model); the holding phrase covers the first budget.
 */
export const ALONE_BUDGETS = 4;

function serverOptions(s: Settings, secrets: EngineSecrets): OpenAiLlmOptions {
  const { baseUrl, model } = s.llm.server;
  if (!baseUrl || !model) {
    const missing = [!baseUrl && 'address (llm.server.baseUrl)', !model && 'model (llm.server.model)'].filter(Boolean);
    throw new UserError(`The language model is set to an OpenAI-compatible server, but its ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. Set it in Settings, or switch the language model back to this computer.`, 'llm-server-unset');
  }
  const apiKey = secrets.apiKey ?? s.llm.server.apiKey ?? undefined;
  return { baseUrl, model, contextSize: s.llm.contextSize, stallMs: s.llm.server.stallMs, ...(apiKey ? { apiKey } : {}), ...(secrets.fetch ? { fetch: secrets.fetch } : {}) };
}

/** The local model a server falls back to: loaded when installed; a broken one is reported, never fatal. */
async function loadFallback(pick: ResolvedModel | UserError | null, s: Settings, tools: readonly ToolSpec[]): Promise<{ llm: LanguageModel | null; report: ModelReport | null; error: UserError | null; loadMs: number }> {
  if (pick === null || pick instanceof UserError) return { llm: null, report: null, error: pick, loadMs: 0 };
  try {
    const local = await LlamaEngine.load(pick, { ...s.llm, tools });
    const report = describe(pick, local.info);
    return { llm: local, report, error: null, loadMs: report.loadMs };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { llm: null, report: null, error: new UserError(`The local language model ${pick.entry.id} could not be loaded as the server's fallback: ${why.replace(/\.$/, '')}.`, 'model-load-failed'), loadMs: 0 };
  }
}

export type LoadProgress = (kind: ModelKind, phase: 'loading' | 'ready', model?: ModelReport) => void;

function describe(r: ResolvedModel, info: object & { loadMs: number }): ModelReport {
  return { name: r.entry.name, dir: r.dir, ...info, id: r.entry.id, loadMs: Math.round(info.loadMs * 10) / 10 };
}

/**
 * All four models, or one error: a damaged or unknown model first (in kind order), else every kind
 * that is missing at once, with the one command that fetches them all (not one kind per attempt).
 */
type Four = [ResolvedModel, ResolvedModel, ResolvedModel | null, ResolvedModel];

async function resolveAll(picks: Promise<ResolvedModel | null>[], roots: string[]): Promise<Four> {
  const results = await Promise.allSettled(picks);
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  const missing = errors.filter((e) => isUserError(e) && e.code === 'model-none-installed');
  const other = errors.find((e) => !missing.includes(e));
  if (other) throw other;
  if (missing.length === 1) throw missing[0];
  if (missing.length > 1) {
    const kinds = results.flatMap((r, i) => (r.status === 'rejected' ? [KIND_NAMES[i]!] : []));
    const looked = roots.length ? `looked in ${roots.join(', ')}` : 'no models folder was given';
    throw new UserError(
      `No ${kinds.join(', ')} model is installed (${looked}). Fetch the set this machine needs with \`npm run models -- fetch\` ` +
        '(it shows what and how big first), or point to a models folder with --models DIR.',
      'model-none-installed',
    );
  }
  return results.map((r) => (r as PromiseFulfilledResult<ResolvedModel | null>).value) as Four;
}

const KIND_NAMES = ['voice activity (vad)', 'speech recognition (stt)', 'language (llm)', 'voice (tts)'];

/** An optional model: null when none is installed (not an error); a damaged, missing or unknown chosen one is returned as the error to report. */
async function pickOptional(kind: ModelKind, roots: string[], preferredId: string | undefined, catalog: readonly ModelEntry[]): Promise<ResolvedModel | UserError | null> {
  try {
    return await pickModel(kind, roots, preferredId, catalog);
  } catch (e) {
    if (!isUserError(e)) throw e; // a bug (a bad catalog name), not the user's model
    return e.code === 'model-none-installed' ? null : e;
  }
}

async function loadTurn(pick: ResolvedModel | UserError | null, onProgress: LoadProgress): Promise<{ turn: TurnDetector | null; report: ModelReport | null; error: UserError | null }> {
  if (pick === null || pick instanceof UserError) return { turn: null, report: null, error: pick };
  onProgress('turn', 'loading');
  try {
    const turn = await loadTurnDetector(pick);
    const report = describe(pick, turn.info);
    onProgress('turn', 'ready', report);
    return { turn, report, error: null };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const fix = pick.entry.local ? 'Replace it with a good copy.' : `Delete ${pick.dir} and fetch it again (\`npm run models -- fetch ${pick.entry.id}\`).`;
    return { turn: null, report: null, error: new UserError(`The end-of-turn model ${pick.entry.id} (in ${pick.dir}) could not be loaded: ${why.replace(/\.$/, '')}. ${fix}`, 'model-load-failed') };
  }
}

/**
 * Finds and loads the four engines, and the end-of-turn detector when one is installed. Models are
 * resolved first (a missing one fails fast, before anything heavy loads), then loaded; the LLM warms
 * up its system prompt during the load. The end-of-turn model is optional: without it (or with a
 * broken one, see turnError) the rest still loads.
 */
export async function loadEngines(
  settings: () => Settings,
  roots: string[],
  onProgress: LoadProgress = () => {},
  catalog: readonly ModelEntry[] = ALL_MODELS,
  secrets: EngineSecrets = {},
  /** The tools answers will offer (the built-ins): the local model describes them at load, not on the first turn. */
  tools: readonly ToolSpec[] = [],
): Promise<LoadedEngines> {
  const s = settings();
  const server = s.llm.provider === 'openai-compatible' ? serverOptions(s, secrets) : null;
  const [[vadModel, sttModel, llmModel, ttsModel], turnPick, localLlm] = await Promise.all([
    resolveAll(
      // With a server, a local LLM is not required: it is the fallback when one is installed.
      (['vad', 'stt', 'llm', 'tts'] as const).map((kind) => (kind === 'llm' && server ? Promise.resolve(null) : pickModel(kind, roots, s.models[kind] ?? undefined, catalog))),
      roots,
    ),
    pickOptional('turn', roots, s.models.turn ?? undefined, catalog),
    server ? pickOptional('llm', roots, s.models.llm ?? undefined, catalog) : Promise.resolve(null),
  ]);

  onProgress('vad', 'loading');
  const vad = await SileroVad.load(vadModel, s.endpointing.vadThreshold);
  const models = { vad: describe(vadModel, vad.info) } as LoadedEngines['models'];
  onProgress('vad', 'ready', models.vad);

  onProgress('stt', 'loading');
  const stt = await loadRecognizer(sttModel, () => settings().stt.partialIntervalMs);
  models.stt = describe(sttModel, stt.info);
  onProgress('stt', 'ready', models.stt);

  onProgress('tts', 'loading');
  const tts = await SherpaTts.load(ttsModel);
  models.tts = describe(ttsModel, tts.info);
  onProgress('tts', 'ready', models.tts);

  const { turn, report: turnReport, error: turnError } = await loadTurn(turnPick, onProgress);
  models.turn = turnReport;

  onProgress('llm', 'loading');
  let llm: LanguageModel;
  let llmError: UserError | null = null;
  if (server) {
    const fallback = await loadFallback(localLlm, s, tools);
    llmError = fallback.error;
    llm = new ServerWithFallback(new OpenAiCompatibleLlm(server), fallback.llm, {
      firstTokenMs: () => settings().turnBudgetMs,
      aloneFirstTokenMs: () => settings().turnBudgetMs * ALONE_BUDGETS,
    });
    models.llm = { id: llm.info.id, name: `${server.model} on ${server.baseUrl}`, dir: server.baseUrl, loadMs: fallback.loadMs, provider: 'openai-compatible', fallback: fallback.report };
  } else {
    const local = await LlamaEngine.load(llmModel!, { ...s.llm, tools });
    models.llm = describe(llmModel!, local.info satisfies LlmInfo);
    llm = local;
  }
  onProgress('llm', 'ready', models.llm);

  return { vad, stt, llm, tts, turn, models, turnError, llmError, dispose: async () => {
      await Promise.all([llm.dispose(), vad.dispose(), stt.dispose(), turn?.dispose()]);
    },
  };
}
