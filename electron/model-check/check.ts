/**
 * Runs a model once in a separate process (child.ts) and says whether it works. Separate, because
 * sherpa-onnx ends the process on some files it cannot load (a voice without piper metadata exits
 * with status 255) instead of throwing: a check must never take the app or the CLI down with it.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ModelKind, ResolvedModel } from '../../native-models/types';

/** What the checker process sends back. */
export type ChildMessage = { ok: true; loadMs: number; detail: string } | { ok: false; reason: string };

export type ModelCheck =
  | { id: string; kind: ModelKind; ok: true; loadMs: number; detail: string; ms: number }
  | { id: string; kind: ModelKind; ok: false; reason: string; ms: number };

export const KIND_NOUN: Record<ModelKind, string> = {
  vad: 'voice activity model',
  stt: 'speech recognizer',
  llm: 'language model',
  tts: 'voice',
  turn: 'end-of-turn model',
};

/** A 7B model from a slow disk can take minutes to load; a check that hangs longer is a failure. */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** Source runs (tsx: CLI, tests, dev:web) start the TypeScript child; the built app its bundle. */
function childScript(): { script: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { script: fileURLToPath(new URL('./child.ts', here)), execArgv: ['--import', 'tsx'] };
  return { script: fileURLToPath(new URL('./model-check.js', here)), execArgv: [] };
}

/** The last meaningful line a crashing engine printed, without its source-file prefix. */
export function lastErrorLine(stderr: string): string | null {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const last = lines.at(-1);
  if (!last) return null;
  // sherpa-onnx prefixes "/path/file.cc:Function:123 ".
  return last.replace(/^\S+\.(cc|cpp|h):\S+:\d+\s+/, '').slice(0, 300);
}

export function checkModel(model: ResolvedModel, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ModelCheck> {
  const { id, kind } = model.entry;
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  const { script, execArgv } = childScript();
  return new Promise((resolve) => {
    const child = fork(script, [JSON.stringify(model)], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    let stderr = '';
    let message: ChildMessage | null = null;
    let why: string | null = null;
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4096);
    });
    child.on('message', (m) => {
      message = m as ChildMessage;
    });
    const stop = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`it did not finish within ${Math.round((opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const onAbort = () => stop('the check was cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => stop(`the checker could not start: ${e.message}`));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const m = message as ChildMessage | null;
      if (m?.ok) resolve({ id, kind, ok: true, loadMs: m.loadMs, detail: m.detail, ms: elapsed() });
      else if (m) resolve({ id, kind, ok: false, reason: m.reason, ms: elapsed() });
      else {
        const said = lastErrorLine(stderr);
        const how = signal ? `signal ${signal}` : `status ${code}`;
        resolve({ id, kind, ok: false, reason: why ?? `the engine ended the process (${how})${said ? `: ${said}` : ''}`, ms: elapsed() });
      }
    });
  });
}

/** One line for a failed check: which model, what failed, what to do. */
export function failureLine(check: Extract<ModelCheck, { ok: false }>, model: ResolvedModel, fix: string): string {
  return `The ${KIND_NOUN[check.kind]} ${check.id} (in ${model.dir}) does not work: ${check.reason.replace(/\.$/, '')}. ${fix}`;
}
