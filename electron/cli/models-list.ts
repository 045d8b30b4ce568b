/**
 * `models list` and `models verify`: what is installed in a models folder, decided once (modelState)
 * so the two commands cannot disagree. `list` says it for every model; `verify` hashes the installed
 * (and damaged) ones. Test models (catalog entries marked `local`) are listed only with `--all`,
 * but a folder holding them says so, and `verify` checks them like any other installed model.
 */
import { verifyModel } from '../../native-models/downloader';
import type { Hardware } from '../../native-models/recommend';
import { modelState, type ModelState } from '../../native-models/resolver';
import { machineDefaults } from '../../native-models/setup-plan';
import { bytesOrUnknown, downloadBytes } from '../../native-models/sizes';
import type { ModelEntry } from '../../native-models/types';
import { UserError } from '../errors';

export interface ListedModel {
  id: string;
  kind: string;
  name: string;
  licence: string;
  state: ModelState;
  installed: boolean;
  /** What this machine gets for the kind when nothing of it is installed (`models fetch`, the first-run screen). */
  default: boolean;
  /** A small local model for the tests, never downloaded. */
  test: boolean;
  bytes: number | null;
  files: { name: string; url: string | null; bytes: number | null; sha256: string | null }[];
  archive?: { url: string; bytes: number | null; sha256: string | null };
}

/** Every catalog model's state in `dir`, in catalog order. */
export async function listedModels(catalog: readonly ModelEntry[], dir: string, hardware: () => Promise<Hardware>): Promise<ListedModel[]> {
  const defaults = await machineDefaults(catalog, hardware);
  const rows: ListedModel[] = [];
  for (const e of catalog) {
    const state = await modelState(e, dir);
    rows.push({
      id: e.id,
      kind: e.kind,
      name: e.name,
      licence: e.licence,
      state,
      installed: state === 'installed',
      default: defaults.has(e.id),
      test: e.local === true,
      bytes: downloadBytes(e),
      files: e.files.map((f) => ({ name: f.name, url: f.url ?? null, bytes: f.bytes ?? null, sha256: f.sha256 ?? null })),
      ...(e.archive ? { archive: { url: e.archive.url, bytes: e.archive.bytes ?? null, sha256: e.archive.sha256 ?? null } } : {}),
    });
  }
  return rows;
}

/** The table `models list` prints: a header, one row per model, and what the marks mean. */
export function listLines(rows: readonly ListedModel[], dir: string, all: boolean): string[] {
  const shown = rows.filter((r) => all || !r.test);
  const idWidth = Math.max(2, ...shown.map((r) => r.id.length + 2));
  const line = (state: string, kind: string, size: string, id: string, licence: string) =>
    `${state.padEnd(10)}  ${kind.padEnd(4)}  ${size.padStart(12)}  ${id.padEnd(idWidth)}  ${licence}`.trimEnd();
  const out = [`Models folder: ${dir}`, line('STATUS', 'KIND', 'DOWNLOAD', 'ID', 'LICENCE')];
  for (const r of shown) out.push(line(r.state, r.kind, bytesOrUnknown(r.bytes), `${r.id}${r.default ? ' *' : ''}${r.test ? ' t' : ''}`, r.licence));
  if (shown.some((r) => r.default)) out.push('* the default for this machine: what `npm run models -- fetch` gets for a kind with nothing installed');
  if (all && shown.some((r) => r.test)) out.push('t a test model (../shared/models): never downloaded, not for real conversations');
  const hiddenInstalled = rows.filter((r) => r.test && !all && r.state !== 'missing');
  if (hiddenInstalled.length) out.push(`${hiddenInstalled.length} test model(s) are installed here too (${hiddenInstalled.map((r) => r.id).join(', ')}): \`--all\` lists them.`);
  if (!rows.some((r) => r.state !== 'missing')) out.push('No model is installed in this folder.');
  return out;
}

/**
 * `verify`: the models named, or with none named every model `list` does not call missing (installed,
 * damaged or unfinished), checked for size and sha256. Returns those that passed.
 */
export async function verifyInstalled(entries: readonly ModelEntry[], dir: string, named: boolean, log: (line: string) => void): Promise<ModelEntry[]> {
  const verified: ModelEntry[] = [];
  let bad = 0;
  for (const e of entries) {
    // Models named on the command line are checked even when missing: the user asked about them.
    if (!named && (await modelState(e, dir)) === 'missing') continue;
    const r = await verifyModel(e, dir);
    const what = `${e.id}${e.local ? ' (test model)' : ''}`;
    log(`${r.ok ? 'ok     ' : 'FAILED '} ${what}${r.ok ? '' : `: ${r.problems.join('; ')}`}`);
    if (r.ok) verified.push(e);
    else bad++;
  }
  if (verified.length + bad === 0) log(`No model is installed in ${dir}.`);
  if (bad) throw new UserError(`${bad} model(s) failed verification; fetch them again with \`npm run models -- fetch ID\`.`, 'verify-failed');
  return verified;
}
