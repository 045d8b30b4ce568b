/** How the history names the models a turn ran on: the catalog id and the start of its sha256. Pure. */
import type { ModelEntry } from '../../native-models/types';
import { LOGGED_MODEL_KINDS, type LoggedModelKind, type LoggedTurn } from './log-format';

/**
 * The sha256 that identifies the model: its main file's (the one the engine loads), else the
 * archive's it comes in, else the first file's that has one.
 */
export function modelSha256(entry: ModelEntry): string | undefined {
  const spec = entry.engine as { model?: string; encoder?: string };
  const main = spec.model ?? spec.encoder;
  return entry.files.find((f) => f.name === main)?.sha256 ?? entry.archive?.sha256 ?? entry.files.find((f) => f.sha256)?.sha256;
}

/** "id@<first 8 hex>", or the id alone when the catalog has no hash for it (a model on a server). */
export function modelTag(id: string, catalog: readonly ModelEntry[]): string {
  const entry = catalog.find((e) => e.id === id);
  const sha = entry && modelSha256(entry);
  return sha ? `${id}@${sha.slice(0, 8)}` : id;
}

/** The tags of the loaded models, by kind (a kind not loaded is left out). */
export function modelTags(models: Partial<Record<LoggedModelKind, { id: string } | null | undefined>>, catalog: readonly ModelEntry[]): LoggedTurn['models'] {
  const tags: LoggedTurn['models'] = {};
  for (const kind of LOGGED_MODEL_KINDS) {
    const model = models[kind];
    if (model) tags[kind] = modelTag(model.id, catalog);
  }
  return tags;
}
