/** Helpers for tests that run this project's commands (talk, ...). Clip and model fixtures live in engine-fixtures. */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { MANIFEST, MODELS_DIR as MODELS, SPEECH_DIR as SPEECH, words } from './engine-fixtures';

export const ROOT = path.resolve(import.meta.dirname, '..');

export function tempDir(prefix = 'lva-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI entry point of this project with tsx, as `npm run ...` does. */
export function runCli(script: string, args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, script), ...args],
      { cwd: ROOT, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `p`, or a rejection saying `what` did not settle within `ms` (a bound on a hang, not a timing). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** Polls `get` every 20 ms until it gives a value (not undefined or false); fails after `timeoutMs`. */
export async function until<T>(what: string, get: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a process with this id is running (a server a test started, say). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
