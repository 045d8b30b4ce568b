/**
 * First run: which models must be downloaded before the assistant can start. For every kind with
 * nothing installed, the catalog's first downloadable model, except the LLM, whose size comes from
 * the hardware (recommend.ts). Optional kinds (the end-of-turn model) are offered along with the
 * others, but never make a plan on their own: the assistant starts without them.
 */
import { recommendLlm, type Hardware, type Recommendation } from './recommend';
import { installedModels } from './resolver';
import { downloadBytes, downloadSizeText } from './sizes';
import { isOptionalKind, OPTIONAL_KINDS, REQUIRED_KINDS, type ModelEntry, type ModelKind } from './types';

export interface PlannedModel {
  id: string;
  kind: ModelKind;
  name: string;
  licence: string;
  /** Download size (the archive's for archive models); null when the catalog does not know it. */
  bytes: number | null;
  /** The assistant works without it (a failed download or check is skipped, not fatal). */
  optional: boolean;
}

export interface SetupPlan {
  models: PlannedModel[];
  totalBytes: number | null;
  /** Why this LLM (null when an LLM is already installed). */
  recommendation: Recommendation | null;
}

export function plannedModel(e: ModelEntry): PlannedModel {
  return { id: e.id, kind: e.kind, name: e.name, licence: e.licence, bytes: downloadBytes(e), optional: isOptionalKind(e.kind) };
}

/** What the assistant does without a model of an optional kind. */
export const WITHOUT_OPTIONAL: Partial<Record<ModelKind, string>> = { turn: 'turn ends are decided by silence alone' };

/** One line for an optional kind with nothing installed: what that means, and the command that gets it. */
export function optionalMissingLine(kind: ModelKind, catalog: readonly ModelEntry[]): string {
  const entry = catalog.find((e) => e.kind === kind && downloadable(e));
  const get = entry
    ? ` To get it: \`npm run models -- fetch ${entry.id}\`${downloadBytes(entry) ? ` (${downloadSizeText(entry)})` : ''}, then restart the assistant.`
    : '';
  return `No ${kind === 'turn' ? 'end-of-turn' : kind} model is installed: ${WITHOUT_OPTIONAL[kind] ?? 'the assistant works without it'}.${get}`;
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

/**
 * The model this machine gets for a kind with nothing installed: the catalog's first downloadable
 * one, except the LLM, whose size suits the hardware (asked only when there is a size to choose).
 */
async function chooseForKind(
  catalog: readonly ModelEntry[],
  kind: ModelKind,
  hardware: () => Promise<Hardware>,
): Promise<{ entry: ModelEntry | undefined; recommendation?: Recommendation }> {
  const candidates = catalog.filter((e) => e.kind === kind && downloadable(e));
  if (kind !== 'llm' || candidates.filter((e) => e.memoryMiB !== undefined).length <= 1) return { entry: candidates[0] };
  const recommendation = recommendLlm(await hardware(), candidates);
  return { entry: candidates.find((e) => e.id === recommendation.id) ?? candidates[0], recommendation };
}

/** The defaults for this machine, one id per kind: what `models fetch` and the first-run screen get where nothing is installed. */
export async function machineDefaults(catalog: readonly ModelEntry[], hardware: () => Promise<Hardware>): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const kind of [...REQUIRED_KINDS, ...OPTIONAL_KINDS]) {
    const { entry } = await chooseForKind(catalog, kind, hardware);
    if (entry) ids.add(entry.id);
  }
  return ids;
}

/**
 * The plan, or null when every required kind already has a model installed (with `optionalAlone`, as
 * `models fetch` asks: null only when every kind, optional ones too, has one).
 */
export async function planSetup(
  catalog: readonly ModelEntry[],
  roots: string[],
  hardware: () => Promise<Hardware>,
  opts: { optionalAlone?: boolean; notNeeded?: readonly ModelKind[] } = {},
): Promise<SetupPlan | null> {
  const missing: ModelKind[] = [];
  for (const kind of [...REQUIRED_KINDS, ...OPTIONAL_KINDS]) {
    if (opts.notNeeded?.includes(kind)) continue;
    if ((await installedModels(kind, roots, catalog)).length === 0) missing.push(kind);
  }
  if (!missing.some((k) => opts.optionalAlone || !isOptionalKind(k))) return null;
  let recommendation: Recommendation | null = null;
  const models: PlannedModel[] = [];
  for (const kind of missing) {
    const choice = await chooseForKind(catalog, kind, hardware);
    recommendation = choice.recommendation ?? recommendation;
    const entry = choice.entry;
    if (!entry) {
      // A catalog (a mirror, a test) may leave an optional kind out.
      if (isOptionalKind(kind)) continue;
      throw new Error(`The catalog has no downloadable ${kind} model.`);
    }
    models.push(plannedModel(entry));
  }
  if (models.length === 0) return null;
  return { models, totalBytes: totalBytes(models), recommendation };
}
