/**
 * `npm run models -- lock [ID...] [--write]`: the release check of the catalog against the
 * publishers. Each model is downloaded into a temporary folder (with the downloader, told nothing
 * about sizes or hashes so that it keeps whatever the server sends), measured (size and sha256 of
 * every file; for an archive, of the archive and of each listed file after extraction), and every
 * difference from the catalog is reported, unknown values included.
 *
 * `--write` writes the measured values into a JSON catalog (`--catalog FILE`) only. The built-in
 * catalog is TypeScript whose comments say where each value came from; a tool rewriting it would
 * leave those comments stale, so for it the command prints the values to put there and a person
 * edits the source.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../electron/errors';
import { extract, fetchModel, sha256File, type FileProgress } from './downloader';
import type { ModelEntry, ModelFile } from './types';

export interface Measured {
  bytes: number;
  sha256: string;
}

/** What a model's files really are, as downloaded now. */
export interface ModelMeasurement {
  archive?: Measured;
  /** By catalog file name; null when the archive lacks the file. */
  files: Record<string, Measured | null>;
  /** The voice's data folder (e.g. espeak-ng-data) when the archive lacks it. */
  missingDataDir?: string;
}

export interface LockFinding {
  modelId: string;
  /** A file name, or `archive <name>`. */
  target: string;
  /**
   * differs / unknown: a catalog value is wrong / absent (`--write` fixes both); unconfirmed: the
   * values match but are still marked unconfirmed; missing: the archive lacks a listed file or
   * folder (only a person can fix the file list).
   */
  kind: 'differs' | 'unknown' | 'unconfirmed' | 'missing';
  field?: 'bytes' | 'sha256';
  catalog?: number | string;
  measured?: number | string;
}

export interface LockOptions {
  signal?: AbortSignal;
  onProgress?: (p: FileProgress) => void;
  /** Where the temporary download folder is made (default: the OS temp folder, TMPDIR). */
  tmpRoot?: string;
}

async function measure(file: string): Promise<Measured | null> {
  const s = await stat(file).catch(() => null);
  if (!s?.isFile()) return null;
  return { bytes: s.size, sha256: await sha256File(file) };
}

const archiveName = (url: string) => path.basename(new URL(url).pathname);

/** Downloads `entry` into a temporary folder, measures it and deletes the download. */
export async function measureModel(entry: ModelEntry, opts: LockOptions = {}): Promise<ModelMeasurement> {
  if (entry.local) throw new UserError(`${entry.id} is a local test model: it has no download to lock.`, 'model-not-downloadable');
  const tmp = await mkdtemp(path.join(opts.tmpRoot ?? os.tmpdir(), 'lva-lock-'));
  try {
    // A bare copy of the entry: no bytes or sha256, so the downloader checks nothing and keeps what it gets.
    const bare = (files: ModelFile[]): ModelEntry => ({ ...entry, dir: 'download', archive: undefined, files });
    const fetchOpts = { root: tmp, signal: opts.signal, onProgress: opts.onProgress };
    if (!entry.archive) {
      const got = await fetchModel(bare(entry.files.map((f) => ({ name: f.name, url: f.url }))), fetchOpts);
      const files: ModelMeasurement['files'] = {};
      for (const f of entry.files) files[f.name] = await measure(path.join(got.dir, f.name));
      return { files };
    }
    const name = archiveName(entry.archive.url);
    const got = await fetchModel(bare([{ name, url: entry.archive.url }]), fetchOpts);
    const archiveFile = path.join(got.dir, name);
    const archive = (await measure(archiveFile))!;
    const into = path.join(tmp, 'extracted');
    await mkdir(into);
    await extract(archiveFile, into, entry.archive.stripComponents ?? 0, opts.signal);
    const files: ModelMeasurement['files'] = {};
    for (const f of entry.files) files[f.name] = await measure(path.join(into, f.name));
    const dataDir = entry.engine.engine === 'sherpa-tts' ? entry.engine.dataDir : undefined;
    const hasDataDir = !dataDir || dataDir === 'system' || (await stat(path.join(into, dataDir)).catch(() => null))?.isDirectory();
    return { archive, files, ...(hasDataDir ? {} : { missingDataDir: dataDir }) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function compareValues(
  modelId: string,
  target: string,
  known: { bytes?: number; sha256?: string; unconfirmed?: boolean },
  got: Measured,
): LockFinding[] {
  const found: LockFinding[] = [];
  for (const field of ['bytes', 'sha256'] as const) {
    const catalog = field === 'sha256' ? known.sha256?.toLowerCase() : known.bytes;
    if (catalog === undefined) found.push({ modelId, target, kind: 'unknown', field, measured: got[field] });
    else if (catalog !== got[field]) found.push({ modelId, target, kind: 'differs', field, catalog, measured: got[field] });
  }
  if (found.length === 0 && known.unconfirmed) found.push({ modelId, target, kind: 'unconfirmed' });
  return found;
}

/** Every difference between the catalog entry and what was measured. */
export function compareModel(entry: ModelEntry, m: ModelMeasurement): LockFinding[] {
  const found: LockFinding[] = [];
  if (entry.archive && m.archive) found.push(...compareValues(entry.id, `archive ${archiveName(entry.archive.url)}`, entry.archive, m.archive));
  for (const f of entry.files) {
    const got = m.files[f.name];
    if (got) found.push(...compareValues(entry.id, f.name, f, got));
    else found.push({ modelId: entry.id, target: f.name, kind: 'missing' });
  }
  if (m.missingDataDir) found.push({ modelId: entry.id, target: `${m.missingDataDir}/`, kind: 'missing' });
  return found;
}

/** The entry with the measured values written in (and `unconfirmed` dropped where they were measured). */
export function applyMeasurement(entry: ModelEntry, m: ModelMeasurement): ModelEntry {
  const locked = <T extends { bytes?: number; sha256?: string; unconfirmed?: boolean }>(x: T, got: Measured): T => {
    const y = { ...x, bytes: got.bytes, sha256: got.sha256 };
    delete y.unconfirmed;
    return y;
  };
  return {
    ...entry,
    ...(entry.archive && m.archive ? { archive: locked(entry.archive, m.archive) } : {}),
    files: entry.files.map((f) => (m.files[f.name] ? locked(f, m.files[f.name]!) : f)),
  };
}

export function formatFinding(f: LockFinding): string {
  const where = `${f.modelId}  ${f.target}`;
  switch (f.kind) {
    case 'differs':
      return `${where}: ${f.field} differs: catalog ${f.catalog}, measured ${f.measured}`;
    case 'unknown':
      return `${where}: ${f.field} unknown in the catalog, measured ${f.measured}`;
    case 'unconfirmed':
      return `${where}: matches, but is marked unconfirmed in the catalog`;
    case 'missing':
      return `${where}: not in the archive`;
  }
}

/** The measured values as catalog.ts spells them, for pasting. */
function asSource(target: string, got: Measured): string {
  return `${target}: bytes: ${got.bytes.toLocaleString('en-US').replace(/,/g, '_')}, sha256: '${got.sha256}' (and no unconfirmed)`;
}

export interface LockRun {
  /** The whole catalog (a `--catalog` file's, or the built-in one). */
  catalog: readonly ModelEntry[];
  /** The models to lock; default every downloadable one. */
  entries?: readonly ModelEntry[];
  /** The JSON catalog the catalog came from; absent for the built-in one. */
  catalogFile?: string;
  write: boolean;
  log: (line: string) => void;
}

/**
 * Locks the models one at a time (each download is deleted once measured, so the temporary folder
 * needs room for the largest model only), reports every difference, and writes them with `write`.
 * Throws a UserError (exit status 1) when differences remain in the catalog.
 */
export async function lockCatalog(run: LockRun, opts: LockOptions = {}): Promise<LockFinding[]> {
  if (run.write && !run.catalogFile) {
    throw new UserError(
      '--write writes a JSON catalog: add --catalog FILE. The built-in catalog (native-models/catalog.ts) is edited by hand: run lock without --write and put the printed values there.',
      'usage',
    );
  }
  const entries = run.entries ?? run.catalog.filter((e) => !e.local);
  const local = entries.find((e) => e.local);
  if (local) throw new UserError(`${local.id} is a local test model: it has no download to lock.`, 'model-not-downloadable');
  const findings: LockFinding[] = [];
  const updated = new Map<string, ModelEntry>();
  const paste: string[] = [];
  for (const entry of entries) {
    const m = await measureModel(entry, opts);
    const found = compareModel(entry, m);
    if (found.length === 0) run.log(`${entry.id}: ok`);
    for (const f of found) run.log(formatFinding(f));
    findings.push(...found);
    if (found.some((f) => f.kind !== 'missing')) {
      updated.set(entry.id, applyMeasurement(entry, m));
      const targets = new Set(found.filter((f) => f.kind !== 'missing').map((f) => f.target));
      if (entry.archive && m.archive && targets.has(`archive ${archiveName(entry.archive.url)}`)) paste.push(`${entry.id}  ${asSource('archive', m.archive)}`);
      for (const f of entry.files) if (targets.has(f.name)) paste.push(`${entry.id}  ${asSource(f.name, m.files[f.name]!)}`);
    }
  }
  const missing = findings.filter((f) => f.kind === 'missing').length;
  const fixable = findings.length - missing;
  const missingNote = missing ? ` ${missing} listed file(s) or folder(s) are not in the archive: correct the file list by hand.` : '';
  if (findings.length === 0) {
    run.log(`The catalog matches what the publishers serve (${entries.length} model(s)).`);
    return findings;
  }
  if (run.write && run.catalogFile && fixable) {
    const next = run.catalog.map((e) => updated.get(e.id) ?? e);
    await writeFile(run.catalogFile, JSON.stringify(next, null, 2) + '\n');
    run.log(`Wrote ${fixable} value(s) to ${run.catalogFile}.`);
    if (missing) throw new UserError(`The catalog's file list does not match the archive.${missingNote}`, 'lock-differences');
    return findings;
  }
  if (!run.catalogFile && paste.length) {
    run.log('Measured values for native-models/catalog.ts:');
    for (const line of paste) run.log(`  ${line}`);
  }
  const fix = fixable ? (run.catalogFile ? ' Run it again with --write to write the measured values.' : ' Put the measured values above into native-models/catalog.ts.') : '';
  throw new UserError(`${findings.length} difference(s) from the catalog.${fix}${missingNote}`, 'lock-differences');
}
