/**
 * Finds each model's files in the model folders: an explicit folder (command line / settings), the
 * user's models folder, then the app's bundled resources. Only sizes are checked here (hashing
 * gigabytes at every start is too slow); the downloader verifies sha256.
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../electron/errors';
import { ALL_MODELS } from './catalog';
import type { ModelEntry, ModelKind, ResolvedModel } from './types';

export const APP_NAME = 'local-voice-assistant';

export interface SearchDirs {
  /** A folder given with --models or in settings. */
  explicit?: string;
  /** The user's models folder (see defaultUserModelsDir). */
  user?: string;
  /** The app's bundled resources. */
  bundled?: string;
}

/** Absolute folders to search, most specific first, without duplicates or blanks. */
export function searchOrder(d: SearchDirs): string[] {
  const out: string[] = [];
  for (const dir of [d.explicit, d.user, d.bundled]) {
    if (!dir || !dir.trim()) continue;
    const abs = path.resolve(dir);
    if (!out.includes(abs)) out.push(abs);
  }
  return out;
}

export function modelDir(root: string, entry: ModelEntry): string {
  return path.join(root, entry.dir ?? entry.id);
}

/** Download leftovers (ours, browsers', ipull's); such a file is never the model itself. */
const TEMP_SUFFIXES = ['.partial', '.part', '.tmp', '.temp', '.download', '.crdownload', '.ipull'];

export function isTempFileName(name: string): boolean {
  const base = path.basename(name).toLowerCase();
  return base.endsWith('~') || TEMP_SUFFIXES.some((s) => base.endsWith(s));
}

/** The per-OS folder for downloaded models. */
export function defaultUserModelsDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') {
    const appData = env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, APP_NAME, 'models');
  }
  if (platform === 'darwin') {
    return path.posix.join(home, 'Library', 'Application Support', APP_NAME, 'models');
  }
  // XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  const dataHome = xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share');
  return path.posix.join(dataHome, APP_NAME, 'models');
}

/**
 * The per-OS folder for settings: where Electron's app.getPath('userData') points for this app, so
 * `dev:web` and the installed app share one settings file.
 */
export function defaultUserDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA || path.win32.join(home, 'AppData', 'Roaming'), APP_NAME);
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', APP_NAME);
  const xdg = env.XDG_CONFIG_HOME;
  return path.posix.join(xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.config'), APP_NAME);
}

/** native-models/bundled in a source checkout (the packaged app finds its copy under resources/). */
export const BUNDLED_MODELS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'bundled');

type Probe =
  | { status: 'ok'; model: ResolvedModel }
  | { status: 'missing'; dir: string; missing: string; present: number; leftover?: string }
  | { status: 'corrupt'; dir: string; file: string; expected: number; actual: number; unconfirmed: boolean };

async function statOrUndefined(p: string) {
  try {
    return await stat(p);
  } catch {
    return undefined;
  }
}

/** A catalog file name must stay inside its model folder and must not look like a download leftover. */
function checkCatalogName(entry: ModelEntry, name: string): void {
  const norm = path.normalize(name);
  if (path.isAbsolute(norm) || norm === '..' || norm.startsWith('..' + path.sep) || isTempFileName(norm)) {
    // A bug in the catalog, not something the user can fix.
    throw new Error(`catalog entry ${entry.id} has an invalid file name: ${name}`);
  }
}

async function findLeftover(filePath: string): Promise<string | undefined> {
  for (const suffix of TEMP_SUFFIXES) {
    const st = await statOrUndefined(filePath + suffix);
    if (st?.isFile()) return path.basename(filePath + suffix);
  }
  return undefined;
}

async function probe(entry: ModelEntry, root: string): Promise<Probe> {
  const dir = modelDir(root, entry);
  const paths: Record<string, string> = {};
  let present = 0;
  for (const file of entry.files) {
    checkCatalogName(entry, file.name);
    const p = path.join(dir, file.name);
    const st = await statOrUndefined(p);
    if (!st?.isFile()) {
      return { status: 'missing', dir, missing: file.name, present, leftover: await findLeftover(p) };
    }
    if (file.bytes !== undefined && st.size !== file.bytes) {
      return {
        status: 'corrupt',
        dir,
        file: p,
        expected: file.bytes,
        actual: st.size,
        unconfirmed: file.unconfirmed === true,
      };
    }
    paths[file.name] = p;
    present++;
  }
  // espeak-ng-data is a directory the engine needs but that is not listed as a file.
  const eng = entry.engine;
  if (eng.engine === 'sherpa-tts' && eng.dataDir && eng.dataDir !== 'system') {
    checkCatalogName(entry, eng.dataDir);
    const st = await statOrUndefined(path.join(dir, eng.dataDir));
    if (!st?.isDirectory()) return { status: 'missing', dir, missing: eng.dataDir + '/', present };
  }
  return { status: 'ok', model: { entry, dir, paths } };
}

function label(entry: ModelEntry): string {
  return `${entry.id} (${entry.name})`;
}

function howToGet(entry: ModelEntry): string {
  if (entry.local) {
    return `It is a local test model that is never downloaded: point --models DIR at the folder that holds "${entry.dir ?? entry.id}".`;
  }
  return `Download it with \`npm run models -- fetch ${entry.id}\`, or point to a folder that has it with --models DIR.`;
}

function bytesText(n: number): string {
  return `${n.toLocaleString('en-US')} bytes`;
}

function corruptError(entry: ModelEntry, p: Extract<Probe, { status: 'corrupt' }>): UserError {
  const fix = entry.local
    ? 'Replace it with a good copy.'
    : `Delete it and run \`npm run models -- fetch ${entry.id}\`.`;
  const note = p.unconfirmed
    ? ' (The expected size is not yet confirmed against the publisher: if this file is known to be good, the catalog is wrong; please report it.)'
    : '';
  return new UserError(
    `Model ${label(entry)} has a damaged or unfinished file: ${p.file} is ${bytesText(p.actual)} but should be ` +
      `${bytesText(p.expected)}. ${fix}${note}`,
    'model-corrupt',
  );
}

function missingError(entry: ModelEntry, probes: Probe[]): UserError {
  const missing = probes.filter((p): p is Extract<Probe, { status: 'missing' }> => p.status === 'missing');
  if (missing.length === 0) {
    return new UserError(
      `Model ${label(entry)} is not installed and there is no models folder to look in. ${howToGet(entry)}`,
      'model-missing',
    );
  }
  // Name the file missing from the most complete copy: that is the one the user is likely fixing.
  let best = missing[0]!;
  for (const m of missing) if (m.present > best.present) best = m;
  const looked = missing.map((m) => m.dir).join(', ');
  const leftover = best.leftover
    ? ` An unfinished download (${best.leftover}) is in ${best.dir}: fetch it again to finish it.`
    : '';
  return new UserError(
    `Model ${label(entry)} is not installed: ${best.missing} is missing (looked in ${looked}). ${howToGet(entry)}${leftover}`,
    'model-missing',
  );
}

async function probeAll(entry: ModelEntry, roots: string[]): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (const root of roots) {
    const p = await probe(entry, path.resolve(root));
    probes.push(p);
    if (p.status === 'ok') break; // the first complete copy wins
  }
  return probes;
}

function outcome(entry: ModelEntry, probes: Probe[]): ResolvedModel | UserError {
  const ok = probes.find((p) => p.status === 'ok');
  if (ok) return ok.model;
  // A damaged copy says more than "missing": report it when no good copy exists anywhere.
  const corrupt = probes.find((p) => p.status === 'corrupt');
  if (corrupt) return corruptError(entry, corrupt);
  return missingError(entry, probes);
}

/**
 * Where a model stands in one models folder, as `models list` and `verify` both report it:
 * installed (every file, right sizes), damaged (a file of the wrong size), unfinished (a download
 * leftover and no complete copy) or missing. Sizes only, as for resolveModel; `verify` adds sha256.
 */
export type ModelState = 'installed' | 'damaged' | 'unfinished' | 'missing';

export async function modelState(entry: ModelEntry, root: string): Promise<ModelState> {
  const p = await probe(entry, path.resolve(root));
  if (p.status === 'ok') return 'installed';
  if (p.status === 'corrupt') return 'damaged';
  return p.leftover ? 'unfinished' : 'missing';
}

/** The first root whose model folder has every file (with the right size) wins. */
export async function resolveModel(entry: ModelEntry, roots: string[]): Promise<ResolvedModel> {
  const result = outcome(entry, await probeAll(entry, roots));
  if (result instanceof UserError) throw result;
  return result;
}

async function tryAll(
  kind: ModelKind,
  roots: string[],
  catalog: readonly ModelEntry[],
): Promise<{ installed: ResolvedModel[]; errors: UserError[] }> {
  const entries = catalog.filter((e) => e.kind === kind);
  const results = await Promise.all(entries.map(async (e) => outcome(e, await probeAll(e, roots))));
  const installed: ResolvedModel[] = [];
  const errors: UserError[] = [];
  for (const r of results) {
    if (r instanceof UserError) errors.push(r);
    else installed.push(r);
  }
  return { installed, errors };
}

/** Every catalog entry of this kind that resolves, in catalog order. */
export async function installedModels(
  kind: ModelKind,
  roots: string[],
  catalog: readonly ModelEntry[] = ALL_MODELS,
): Promise<ResolvedModel[]> {
  return (await tryAll(kind, roots, catalog)).installed;
}

/**
 * The preferred model when given (it must exist and be installed), else the first installed model of
 * that kind in catalog order.
 */
export async function pickModel(
  kind: ModelKind,
  roots: string[],
  preferredId?: string,
  catalog: readonly ModelEntry[] = ALL_MODELS,
): Promise<ResolvedModel> {
  const ofKind = catalog.filter((e) => e.kind === kind);
  if (preferredId) {
    const entry = catalog.find((e) => e.id === preferredId);
    if (!entry || entry.kind !== kind) {
      const what = entry ? `"${preferredId}" is a ${entry.kind} model, not a ${kind} model.` : `Unknown ${kind} model "${preferredId}".`;
      const known = ofKind.map((e) => e.id).join(', ') || '(none)';
      throw new UserError(`${what} Known ${kind} models: ${known}.`, 'model-unknown');
    }
    return resolveModel(entry, roots);
  }
  const { installed, errors } = await tryAll(kind, roots, catalog);
  if (installed[0]) return installed[0];
  const corrupt = errors.find((e) => e.code === 'model-corrupt');
  if (corrupt) throw corrupt;
  const fallback = ofKind.find((e) => !e.local) ?? ofKind[0];
  const looked = roots.length ? `looked in ${roots.map((r) => path.resolve(r)).join(', ')}` : 'no models folder was given';
  const get = fallback
    ? `Fetch what this machine needs with \`npm run models -- fetch\` (only this one: \`npm run models -- fetch ${fallback.id}\`), or point to a models folder with --models DIR.`
    : 'The catalog has no model of this kind.';
  throw new UserError(`No ${kind} model is installed (${looked}). ${get}`, 'model-none-installed');
}
