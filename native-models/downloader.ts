/**
 * Downloads a catalog model's files into a models folder, so that a half-written file is never taken
 * for a model: each file goes to `<name>.partial`, resumes from there with an HTTP Range request,
 * is checked (size, sha256) and only then renamed into place. Transient failures are retried with
 * backoff; a stalled server, a 404 or a wrong checksum end in one clear error naming the model and
 * URL. Two fetches of the same file (two windows, two terminals) take turns through a lock file.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../electron/errors';
import { modelDir } from './resolver';
import type { ModelEntry } from './types';

export interface FileProgress {
  modelId: string;
  /** File name inside the model folder (the archive's name for archive models). */
  file: string;
  phase: 'waiting' | 'downloading' | 'verifying' | 'extracting' | 'done';
  receivedBytes: number;
  /** Null when neither the catalog nor the server says. */
  totalBytes: number | null;
  bytesPerSecond: number;
  /** Null when unknown. */
  etaSeconds: number | null;
}

export interface FetchOptions {
  /** The models root: files go to `<root>/<entry.dir ?? entry.id>/`. */
  root: string;
  signal?: AbortSignal;
  onProgress?: (p: FileProgress) => void;
  /** Attempts per file for transient failures (network, 5xx, stalls). */
  attempts?: number;
  /** First retry delay; doubles each time. */
  backoffMs?: number;
  /** No byte for this long: the attempt is abandoned (and retried). */
  stallTimeoutMs?: number;
  /**
   * How requests reach the network (default: Node's fetch). The app passes Electron's `net.fetch`,
   * which goes through Chromium's network stack and so honours system, PAC and authenticating proxies.
   */
  fetch?: FetchFunction;
}

/** The part of `fetch` the downloader uses: Node's fetch and Electron's `net.fetch` both are one. */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface FetchResult {
  dir: string;
  /** Files actually downloaded (already-verified ones are skipped). */
  downloaded: string[];
}

const DEFAULTS = { attempts: 4, backoffMs: 1000, stallTimeoutMs: 30_000 };
const PARTIAL = '.partial';
const LOCK = '.lock';
/** A lock whose owner has not touched it for this long is abandoned (a crashed process). */
const LOCK_STALE_MS = 60_000;

/** A failure worth another attempt (network, server overload, stall), as opposed to a wrong URL or file. */
class TransientError extends Error {}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function cancelled(): UserError {
  return new UserError('The download was cancelled. Run it again to resume where it stopped.', 'download-cancelled');
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/**
 * The sha256 of a `.partial` file, kept in step as bytes are appended, so a finished download is
 * not read back whole to be checked: only a prefix an earlier run left behind is read, once.
 */
class PartialHash {
  private hash = createHash('sha256');
  private bytes = 0;

  /** Makes the hash cover exactly the first `n` bytes of `file`. */
  async syncTo(file: string, n: number): Promise<void> {
    if (n === this.bytes) return;
    this.hash = createHash('sha256');
    this.bytes = 0;
    if (n > 0) for await (const chunk of createReadStream(file, { start: 0, end: n - 1 })) this.update(chunk as Buffer);
  }

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Speed over the last few seconds, for "2.1 MB/s, 40 s left". */
class Rate {
  private samples: [number, number][] = [];
  add(bytes: number): void {
    const now = performance.now();
    this.samples.push([now, bytes]);
    while (this.samples.length > 2 && now - this.samples[0]![0] > 3000) this.samples.shift();
  }
  get bytesPerSecond(): number {
    if (this.samples.length < 2) return 0;
    const [t0, b0] = this.samples[0]!;
    const [t1, b1] = this.samples[this.samples.length - 1]!;
    return t1 > t0 ? ((b1 - b0) * 1000) / (t1 - t0) : 0;
  }
}

/**
 * Holds `<file>.lock` while `fn` runs. Another holder is waited for (it may be downloading the same
 * file right now); a lock left by a crashed process is taken over once stale.
 */
async function withLock<T>(file: string, signal: AbortSignal | undefined, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  const lock = file + LOCK;
  let handle: FileHandle | null = null;
  let waited = false;
  while (!handle) {
    try {
      handle = await open(lock, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const s = await stat(lock).catch(() => null);
      if (s && Date.now() - s.mtimeMs > LOCK_STALE_MS) {
        await unlink(lock).catch(() => undefined);
        continue;
      }
      if (!waited) onWait();
      waited = true;
      await sleep(200, signal);
    }
  }
  // The holder touches the lock while it works, so a live download is never taken for a crashed one.
  const keepAlive = setInterval(() => void handle?.utimes(new Date(), new Date()).catch(() => undefined), LOCK_STALE_MS / 4);
  try {
    return await fn();
  } finally {
    clearInterval(keepAlive);
    await handle.close().catch(() => undefined);
    await unlink(lock).catch(() => undefined);
  }
}

interface Target {
  modelId: string;
  name: string;
  url: string;
  bytes?: number;
  sha256?: string;
}

/** Whether `file` is already the right file (size and, when known, sha256). */
async function isComplete(file: string, t: Target): Promise<boolean> {
  const size = await sizeOf(file);
  if (size === null || (t.bytes !== undefined && size !== t.bytes)) return false;
  return t.sha256 === undefined || (await sha256File(file)) === t.sha256.toLowerCase();
}

/**
 * Downloads one file to `dest` (via `dest.partial`), resuming, retrying and verifying. Resolves
 * true when it downloaded, false when `dest` was already complete.
 */
async function downloadFile(dest: string, t: Target, opts: FetchOptions): Promise<boolean> {
  const o = { ...DEFAULTS, ...opts };
  const report = (p: Partial<FileProgress>) =>
    o.onProgress?.({ modelId: t.modelId, file: t.name, phase: 'downloading', receivedBytes: 0, totalBytes: t.bytes ?? null, bytesPerSecond: 0, etaSeconds: null, ...p });
  await mkdir(path.dirname(dest), { recursive: true });
  return withLock(dest, o.signal, () => report({ phase: 'waiting' }), async () => {
    // Someone may have finished it while we waited for the lock.
    if (await isComplete(dest, t)) {
      report({ phase: 'done', receivedBytes: t.bytes ?? (await sizeOf(dest)) ?? 0 });
      return false;
    }
    const partial = dest + PARTIAL;
    const hash = new PartialHash();
    for (let attempt = 1; ; attempt++) {
      try {
        await fetchToPartial(partial, t, o, hash, report);
        break;
      } catch (e) {
        if (o.signal?.aborted) throw cancelled();
        if (!(e instanceof TransientError) || attempt >= o.attempts) {
          if (e instanceof TransientError) {
            throw new UserError(`Could not download ${t.name} of model ${t.modelId} from ${t.url} after ${attempt} attempts: ${e.message}. Check the connection and run it again; it resumes where it stopped.`, 'download-failed');
          }
          throw e;
        }
        await sleep(o.backoffMs * 2 ** (attempt - 1), o.signal);
      }
    }
    report({ phase: 'verifying', receivedBytes: (await sizeOf(partial)) ?? 0 });
    const size = (await sizeOf(partial)) ?? 0;
    if (t.bytes !== undefined && size !== t.bytes) {
      await unlink(partial).catch(() => undefined);
      throw new UserError(`${t.name} of model ${t.modelId} from ${t.url} has ${size} bytes, the catalog says ${t.bytes}. The download was deleted; the catalog or the server is wrong.`, 'download-size-mismatch');
    }
    if (t.sha256 !== undefined) {
      await hash.syncTo(partial, size);
      const got = hash.digest();
      if (got !== t.sha256.toLowerCase()) {
        await unlink(partial).catch(() => undefined);
        throw new UserError(`${t.name} of model ${t.modelId} from ${t.url} has sha256 ${got}, the catalog says ${t.sha256}. The file was deleted: it is not the published model (or the catalog is out of date).`, 'download-checksum-mismatch');
      }
    }
    // The rename is the moment the file becomes the model: until then it is only `.partial`.
    await rename(partial, dest);
    report({ phase: 'done', receivedBytes: size, totalBytes: size });
    return true;
  });
}

/** One attempt: appends to `partial` from where it stops (Range), or starts over if the server ignores ranges. */
async function fetchToPartial(
  partial: string,
  t: Target,
  o: Required<Pick<FetchOptions, 'stallTimeoutMs'>> & FetchOptions,
  hash: PartialHash,
  report: (p: Partial<FileProgress>) => void,
): Promise<void> {
  let have = (await sizeOf(partial)) ?? 0;
  if (t.bytes !== undefined && have > t.bytes) {
    await unlink(partial);
    have = 0;
  }
  if (t.bytes !== undefined && have === t.bytes) return;
  const attempt = new AbortController();
  const onAbort = () => attempt.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let stalled = false;
  let stallTimer = setTimeout(() => ((stalled = true), attempt.abort()), o.stallTimeoutMs);
  const touch = () => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => ((stalled = true), attempt.abort()), o.stallTimeoutMs);
  };
  let file: FileHandle | null = null;
  try {
    let res: Response;
    try {
      res = await (o.fetch ?? fetch)(t.url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: attempt.signal, redirect: 'follow' });
    } catch (e) {
      if (o.signal?.aborted) throw cancelled();
      throw new TransientError(stalled ? `the server sent nothing for ${o.stallTimeoutMs / 1000} s` : `the connection failed (${(e as Error).message})`);
    }
    if (res.status === 416 && t.bytes === undefined) return; // nothing left to fetch
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new TransientError(`the server answered ${res.status} ${res.statusText}`);
    if (res.status !== 200 && res.status !== 206) {
      throw new UserError(`${t.name} of model ${t.modelId}: ${t.url} answered ${res.status} ${res.statusText}. The catalog's address may be out of date.`, 'download-http-error');
    }
    let from = 0;
    if (res.status === 206) {
      const m = /bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
      from = m ? Number(m[1]) : -1;
      if (from !== have) {
        // A range we did not ask for: start over rather than splice the wrong bytes together.
        await res.body?.cancel();
        await unlink(partial).catch(() => undefined);
        throw new TransientError('the server sent a different range than asked for');
      }
    }
    const length = Number(res.headers.get('content-length') ?? NaN);
    const total = t.bytes ?? (Number.isFinite(length) ? from + length : null);
    await hash.syncTo(partial, from);
    file = await open(partial, from > 0 ? 'a' : 'w');
    let received = from;
    const rate = new Rate();
    rate.add(received);
    let lastReport = 0;
    if (!res.body) throw new TransientError('the server sent no body');
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        touch();
        await file.write(chunk);
        hash.update(chunk);
        received += chunk.length;
        rate.add(received);
        const now = performance.now();
        if (now - lastReport > 100) {
          lastReport = now;
          const bps = rate.bytesPerSecond;
          report({ receivedBytes: received, totalBytes: total, bytesPerSecond: bps, etaSeconds: total !== null && bps > 0 ? (total - received) / bps : null });
        }
      }
    } catch (e) {
      if (o.signal?.aborted) throw cancelled();
      throw new TransientError(stalled ? `the server stopped sending for ${o.stallTimeoutMs / 1000} s` : `the connection broke (${(e as Error).message})`);
    }
    await file.sync();
    report({ receivedBytes: received, totalBytes: total, bytesPerSecond: rate.bytesPerSecond, etaSeconds: 0 });
    if (total !== null && received < total) throw new TransientError(`the connection closed after ${received} of ${total} bytes`);
  } finally {
    clearTimeout(stallTimer);
    o.signal?.removeEventListener('abort', onAbort);
    await file?.close();
  }
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
