/**
 * Downloads a catalog model's files into a models folder (each file as download-file.ts does it:
 * resumable, retried, verified, renamed into place only when right), extracts archive models, and
 * checks installed ones. A stalled server, a 404 or a wrong checksum end in one clear error naming
 * the model; each file's progress, retries and failure are reported as they happen.
 */
import { spawn } from 'node:child_process';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../electron/errors';
import { cancelled, downloadFile, sha256File, sizeOf, type Target } from './download-file';
import type { FetchOptions } from './download-types';
import { modelDir } from './resolver';
import type { ModelEntry } from './types';

export { sha256File };
export type { FetchFunction, FetchOptions, FileProgress } from './download-types';

export interface FetchResult {
  dir: string;
  /** Files actually downloaded (already-verified ones are skipped). */
  downloaded: string[];
}

/** Extracts a .tar.bz2/.tar.gz/.tar.xz/.tar archive with the system's tar (GNU tar, bsdtar, Windows 10+ tar.exe). */
export function extract(archive: string, into: string, stripComponents: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = ['-xf', archive, '-C', into];
    if (stripComponents > 0) args.push(`--strip-components=${stripComponents}`);
    const child = spawn('tar', args, { stdio: ['ignore', 'ignore', 'pipe'], signal });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => reject(signal?.aborted ? cancelled() : new UserError(`Could not run tar to extract ${path.basename(archive)}: ${e.message}`, 'extract-failed')));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new UserError(`Extracting ${path.basename(archive)} failed (tar exit ${code}): ${err.trim().slice(0, 300)}`, 'extract-failed')),
    );
  });
}

/**
 * Downloads (or completes) every file of `entry` into `root` and verifies it. An archive model is
 * downloaded whole, extracted next to its final folder and moved into place only when every catalog
 * file is there with the right size.
 */
export async function fetchModel(entry: ModelEntry, opts: FetchOptions): Promise<FetchResult> {
  if (entry.local) throw new UserError(`${entry.id} is a local test model: it is not downloadable.`, 'model-not-downloadable');
  const dir = modelDir(opts.root, entry);
  const downloaded: string[] = [];
  if (entry.archive) {
    if (await filesPresent(entry, dir)) return { dir, downloaded };
    const name = path.basename(new URL(entry.archive.url).pathname);
    const archive = path.join(opts.root, '.downloads', name);
    const t: Target = { modelId: entry.id, name, url: entry.archive.url, bytes: entry.archive.bytes, sha256: entry.archive.sha256 };
    if (await downloadFile(archive, t, opts)) downloaded.push(name);
    opts.onProgress?.({ modelId: entry.id, file: name, phase: 'extracting', receivedBytes: 0, totalBytes: null, bytesPerSecond: 0, etaSeconds: null });
    const staging = `${dir}.extracting-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    try {
      await extract(archive, staging, entry.archive.stripComponents ?? 0, opts.signal);
      if (!(await filesPresent(entry, staging))) {
        const missing = await missingFiles(entry, staging);
        throw new UserError(`The archive of model ${entry.id} (${entry.archive.url}) does not hold the files the catalog lists: ${missing.join(', ')} missing or of another size.`, 'archive-mismatch');
      }
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await rm(archive, { force: true });
    return { dir, downloaded };
  }
  for (const f of entry.files) {
    if (!f.url) throw new UserError(`Model ${entry.id} has no download address for ${f.name} in the catalog.`, 'model-not-downloadable');
    const t: Target = { modelId: entry.id, name: f.name, url: f.url, bytes: f.bytes, sha256: f.sha256 };
    if (await downloadFile(path.join(dir, f.name), t, opts)) downloaded.push(f.name);
  }
  return { dir, downloaded };
}

async function missingFiles(entry: ModelEntry, dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (const f of entry.files) {
    const size = await sizeOf(path.join(dir, f.name));
    if (size === null || (f.bytes !== undefined && size !== f.bytes)) missing.push(f.name);
  }
  return missing;
}

async function filesPresent(entry: ModelEntry, dir: string): Promise<boolean> {
  return (await missingFiles(entry, dir)).length === 0;
}

export interface VerifyResult {
  id: string;
  ok: boolean;
  problems: string[];
}

/** Checks an installed model's files: present, right size, right sha256 (where the catalog has them). */
export async function verifyModel(entry: ModelEntry, root: string): Promise<VerifyResult> {
  const dir = modelDir(root, entry);
  const problems: string[] = [];
  for (const f of entry.files) {
    const file = path.join(dir, f.name);
    const size = await sizeOf(file);
    if (size === null) problems.push(`${f.name} is missing`);
    else if (f.bytes !== undefined && size !== f.bytes) problems.push(`${f.name} has ${size} bytes, expected ${f.bytes}`);
    else if (f.sha256 !== undefined && (await sha256File(file)) !== f.sha256.toLowerCase()) problems.push(`${f.name} has the wrong sha256`);
  }
  return { id: entry.id, ok: problems.length === 0, problems };
}
