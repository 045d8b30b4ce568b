/**
 * One file over HTTP, so that a half-written file is never taken for a model: it goes to
 * `<name>.partial`, resumes from there with a Range request, is checked (size, sha256) and only then
 * renamed into place. Transient failures (network, 5xx, stalls) are retried with backoff, each retry
 * and the final failure reported in words (download-problem.ts), so a window never shows "queued"
 * while nothing can be reached. Two fetches of the same file take turns through a lock file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../electron/errors';
import { connectionProblem, hostOf } from './download-problem';
import type { FetchOptions, FileProgress } from './download-types';
import { formatSeconds } from './progress-bar';

const DEFAULTS = { attempts: 4, backoffMs: 1000, stallTimeoutMs: 30_000 };
const PARTIAL = '.partial';
const LOCK = '.lock';
/** A lock whose owner has not touched it for this long is abandoned (a crashed process). */
const LOCK_STALE_MS = 60_000;

/** A failure worth another attempt (network, server overload, stall), as opposed to a wrong URL or file. Its message is a clause. */
class TransientError extends Error {}

/** A download that failed for good; `reason` is the clause the window shows under the model (no URL). */
class DownloadError extends UserError {
  constructor(
    message: string,
    code: string,
    readonly reason: string,
  ) {
    super(message, code);
  }
}

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

export function cancelled(): UserError {
  return new UserError('The download was cancelled. Run it again to resume where it stopped.', 'download-cancelled');
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function sizeOf(file: string): Promise<number | null> {
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

export interface Target {
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
export async function downloadFile(dest: string, t: Target, opts: FetchOptions): Promise<boolean> {
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
    let size: number;
    try {
      await fetchWithRetries(partial, t, o, hash, report);
      size = await checkPartial(partial, t, hash, report);
    } catch (e) {
      // The window marks this file's row with the reason, in one sentence, before the error ends the run.
      if (e instanceof DownloadError) report({ phase: 'failed', message: `Download failed: ${e.reason}.` });
      throw e;
    }
    // The rename is the moment the file becomes the model: until then it is only `.partial`.
    await rename(partial, dest);
    report({ phase: 'done', receivedBytes: size, totalBytes: size });
    return true;
  });
}

type Options = FetchOptions & typeof DEFAULTS;
type Report = (p: Partial<FileProgress>) => void;

/** Attempts until the whole file is in `partial`, saying why and when it tries again. */
async function fetchWithRetries(partial: string, t: Target, o: Options, hash: PartialHash, report: Report): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fetchToPartial(partial, t, o, hash, report);
      return;
    } catch (e) {
      if (o.signal?.aborted) throw cancelled();
      if (!(e instanceof TransientError)) throw e;
      if (attempt >= o.attempts) {
        const reason = `${e.message} (${attempt} ${attempt === 1 ? 'try' : 'tries'})`;
        throw new DownloadError(`Could not download ${t.name} of model ${t.modelId}: ${reason}. Check the connection and try again; it resumes where it stopped.`, 'download-failed', reason);
      }
      const wait = o.backoffMs * 2 ** (attempt - 1);
      report({ phase: 'retrying', receivedBytes: (await sizeOf(partial)) ?? 0, message: `${e.message}; trying again in ${formatSeconds(wait / 1000)} (try ${attempt + 1} of ${o.attempts})` });
      await sleep(wait, o.signal);
    }
  }
}

/** Checks size and sha256 of the finished `partial` (a wrong one is deleted); its size. */
async function checkPartial(partial: string, t: Target, hash: PartialHash, report: Report): Promise<number> {
  const size = (await sizeOf(partial)) ?? 0;
  report({ phase: 'verifying', receivedBytes: size });
  const host = hostOf(t.url);
  if (t.bytes !== undefined && size !== t.bytes) {
    await unlink(partial).catch(() => undefined);
    throw new DownloadError(
      `${t.name} of model ${t.modelId} from ${t.url} has ${size} bytes, the catalog says ${t.bytes}. The download was deleted; the catalog or the server is wrong.`,
      'download-size-mismatch',
      `the file from ${host} has ${size} bytes, not the ${t.bytes} the catalog lists`,
    );
  }
  if (t.sha256 === undefined) return size;
  await hash.syncTo(partial, size);
  const got = hash.digest();
  if (got !== t.sha256.toLowerCase()) {
    await unlink(partial).catch(() => undefined);
    throw new DownloadError(
      `${t.name} of model ${t.modelId} from ${t.url} has sha256 ${got}, the catalog says ${t.sha256}. The file was deleted: it is not the published model (or the catalog is out of date).`,
      'download-checksum-mismatch',
      `the file from ${host} is not the one the catalog lists (its sha256 differs)`,
    );
  }
  return size;
}

/** One attempt: appends to `partial` from where it stops (Range), or starts over if the server ignores ranges. */
async function fetchToPartial(
  partial: string,
  t: Target,
  o: Options,
  hash: PartialHash,
  report: Report,
): Promise<void> {
  let have = (await sizeOf(partial)) ?? 0;
  if (t.bytes !== undefined && have > t.bytes) {
    await unlink(partial);
    have = 0;
  }
  if (t.bytes !== undefined && have === t.bytes) return;
  const host = hostOf(t.url);
  report({ phase: 'connecting', receivedBytes: have, message: `connecting to ${host}` });
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
      throw new TransientError(stalled ? `${host} sent nothing for ${o.stallTimeoutMs / 1000} s` : connectionProblem(e, t.url));
    }
    if (res.status === 416 && t.bytes === undefined) return; // nothing left to fetch
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new TransientError(`${host} answered ${res.status} ${res.statusText}`.trim());
    if (res.status !== 200 && res.status !== 206) {
      throw new DownloadError(
        `${t.name} of model ${t.modelId}: ${t.url} answered ${res.status} ${res.statusText}. The catalog's address may be out of date.`,
        'download-http-error',
        `${host} answered ${res.status} ${res.statusText}; the catalog's address may be out of date`,
      );
    }
    let from = 0;
    if (res.status === 206) {
      const m = /bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
      from = m ? Number(m[1]) : -1;
      if (from !== have) {
        // A range we did not ask for: start over rather than splice the wrong bytes together.
        await res.body?.cancel();
        await unlink(partial).catch(() => undefined);
        throw new TransientError(`${host} sent a different range than asked for`);
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
    if (!res.body) throw new TransientError(`${host} sent no body`);
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
      throw new TransientError(stalled ? `${host} stopped sending for ${o.stallTimeoutMs / 1000} s` : connectionProblem(e, t.url));
    }
    await file.sync();
    report({ receivedBytes: received, totalBytes: total, bytesPerSecond: rate.bytesPerSecond, etaSeconds: 0 });
    if (total !== null && received < total) throw new TransientError(`the connection to ${host} closed after ${received} of ${total} bytes`);
  } finally {
    clearTimeout(stallTimer);
    o.signal?.removeEventListener('abort', onAbort);
    await file?.close();
  }
}

