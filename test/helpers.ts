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
