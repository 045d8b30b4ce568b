/**
 * First run: which models must be downloaded before the assistant can start. For every kind with
 * nothing installed, the catalog's first downloadable model, except the LLM, whose size comes from
 * the hardware (recommend.ts).
 */
import { recommendLlm, type Hardware, type Recommendation } from './recommend';
import { downloadBytes, installedModels } from './resolver';
import type { ModelEntry, ModelKind } from './types';

export interface PlannedModel {
  id: string;
  kind: ModelKind;
  name: string;
  licence: string;
  /** Download size (the archive's for archive models); null when the catalog does not know it. */
  bytes: number | null;
}

export interface SetupPlan {
  models: PlannedModel[];
  totalBytes: number | null;
  /** Why this LLM (null when an LLM is already installed). */
  recommendation: Recommendation | null;
}

const KINDS: readonly ModelKind[] = ['vad', 'stt', 'llm', 'tts'];

export function plannedModel(e: ModelEntry): PlannedModel {
  return { id: e.id, kind: e.kind, name: e.name, licence: e.licence, bytes: downloadBytes(e) };
}

export function totalBytes(models: readonly PlannedModel[]): number | null {
  return models.every((m) => m.bytes !== null) ? models.reduce((a, m) => a + m.bytes!, 0) : null;
}

/** Download failures that say the published model is not the catalog's (changed or gone): another model of the kind may do. */
const REPLACEABLE_DOWNLOAD_ERRORS = new Set(['download-checksum-mismatch', 'download-size-mismatch', 'archive-mismatch', 'download-http-error']);

export function isReplaceableDownloadError(code: string): boolean {
  return REPLACEABLE_DOWNLOAD_ERRORS.has(code);
}

/**
 * Another model of the same kind to download when one cannot be used (its published file changed, or
 * it does not load): the next downloadable one in catalog order that was not tried yet.
 */
export function alternativeFor(catalog: readonly ModelEntry[], kind: ModelKind, tried: ReadonlySet<string>): ModelEntry | undefined {
  return catalog.find((e) => e.kind === kind && downloadable(e) && !tried.has(e.id));
}

function downloadable(e: ModelEntry): boolean {
  return !e.local && (e.archive !== undefined || e.files.every((f) => f.url !== undefined));
}

/** The plan, or null when every kind already has a model installed. */
export async function planSetup(catalog: readonly ModelEntry[], roots: string[], hardware: () => Promise<Hardware>): Promise<SetupPlan | null> {
  const missing: ModelKind[] = [];
  for (const kind of KINDS) if ((await installedModels(kind, roots, catalog)).length === 0) missing.push(kind);
  if (missing.length === 0) return null;
  let recommendation: Recommendation | null = null;
  const models: PlannedModel[] = [];
  for (const kind of missing) {
    const candidates = catalog.filter((e) => e.kind === kind && downloadable(e));
    let entry = candidates[0];
    if (kind === 'llm' && candidates.filter((e) => e.memoryMiB !== undefined).length > 1) {
      const rec = recommendLlm(await hardware(), candidates);
      recommendation = rec;
      entry = candidates.find((e) => e.id === rec.id) ?? entry;
    }
    if (!entry) throw new Error(`The catalog has no downloadable ${kind} model.`);
    models.push(plannedModel(entry));
  }
  return { models, totalBytes: totalBytes(models), recommendation };
}
