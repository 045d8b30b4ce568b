import { ALL_MODELS } from '../../native-models/catalog';
import { pickModel } from '../../native-models/resolver';
import type { ModelEntry, ModelKind, RequiredKind, ResolvedModel } from '../../native-models/types';
import { LlamaEngine, type LlmInfo } from '../engines/llm';
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
  dispose(): Promise<void>;
}

export type LoadProgress = (kind: ModelKind, phase: 'loading' | 'ready', model?: ModelReport) => void;

function describe(r: ResolvedModel, info: object & { loadMs: number }): ModelReport {
  return { name: r.entry.name, dir: r.dir, ...info, id: r.entry.id, loadMs: Math.round(info.loadMs * 10) / 10 };
}

/**
 * All four models, or one error: a damaged or unknown model first (in kind order), else every kind
 * that is missing at once, with the one command that fetches them all (not one kind per attempt).
 */
type Four = [ResolvedModel, ResolvedModel, ResolvedModel, ResolvedModel];

async function resolveAll(picks: Promise<ResolvedModel>[], roots: string[]): Promise<Four> {
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
  return results.map((r) => (r as PromiseFulfilledResult<ResolvedModel>).value) as Four;
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
): Promise<LoadedEngines> {
  const s = settings();
  const [[vadModel, sttModel, llmModel, ttsModel], turnPick] = await Promise.all([
    resolveAll(
      (['vad', 'stt', 'llm', 'tts'] as const).map((kind) => pickModel(kind, roots, s.models[kind] ?? undefined, catalog)),
      roots,
    ),
    pickOptional('turn', roots, s.models.turn ?? undefined, catalog),
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
  const llm = await LlamaEngine.load(llmModel, s.llm);
  models.llm = describe(llmModel, llm.info satisfies LlmInfo);
  onProgress('llm', 'ready', models.llm);

  return { vad, stt, llm, tts, turn, models, turnError, dispose: async () => {
      await Promise.all([llm.dispose(), vad.dispose(), stt.dispose(), turn?.dispose()]);
    },
  };
}
