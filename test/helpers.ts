import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const SHARED = path.resolve(ROOT, '../shared');
export const MODELS = path.join(SHARED, 'models');
export const SPEECH = path.join(SHARED, 'speech');

export interface ManifestClip {
  file: string;
  sampleRate: number;
  channels: number;
  format: string;
  duration: number;
  speech: { text: string; start: number; end: number }[];
}
export const MANIFEST: Record<string, ManifestClip> = JSON.parse(readFileSync(path.join(SPEECH, 'manifest.json'), 'utf8'));

export function tempDir(prefix = 'lva-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function words(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z' ]/g, ' ').split(/\s+/).filter(Boolean);
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
