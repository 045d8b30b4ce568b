/**
 * End-to-end harness: starts `dev:web` (the WebSocket bridge and the same controller as the app) as
 * a child process, and opens the renderer in Debian's Chromium whose microphone is a WAV file.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { BRIDGE_PATH } from '../electron/bridge-protocol';
import { DEFAULT_SETTINGS, mergeSettings } from '../electron/settings/schema';
import { MemoryBook } from '../electron/memory/memory-book';
import { MEMORY_FILE } from '../electron/memory/memory-store';
import { MODELS, ROOT, tempDir } from './helpers';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

let built = false;
/** Builds dist/renderer once per test process, as `npm run dev:web` does. */
export function buildRenderer(): void {
  if (built) return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-electron.mjs'), '--renderer'], { cwd: ROOT, stdio: 'pipe' });
  built = true;
}

export interface Bridge {
  url: string;
  settingsFile: string;
  output(): string;
  /**
   * Back to the test settings through the bridge, as the UI would send them (between pages only:
   * the bridge serves one connection at a time), so one test's changes never leak into the next.
   */
  resetSettings(): Promise<void>;
  stop(): Promise<void>;
}

/** Sends requests over the bridge's WebSocket, as the page would, then disconnects. */
async function requestOverBridge(url: string, requests: unknown[]): Promise<unknown[]> {
  const origin = new URL(url).origin;
  const ws = new WebSocket(`${origin.replace('http', 'ws')}${BRIDGE_PATH}`, { origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const answers: unknown[] = [];
  try {
    for (const [i, request] of requests.entries()) {
      answers.push(
        await new Promise((resolve) => {
          const onMessage = (data: Buffer, isBinary: boolean) => {
            if (isBinary) return;
            const m = JSON.parse(data.toString()) as { kind: string; id?: number; response?: unknown };
            if (m.kind === 'response' && m.id === i) {
              ws.off('message', onMessage);
              resolve(m.response);
            }
          };
          ws.on('message', onMessage);
          ws.send(JSON.stringify({ kind: 'request', id: i, request }));
        }),
      );
    }
  } finally {
    ws.close();
  }
  return answers;
}

/** Settings every browser test starts from: short answers and two LLM threads keep runs quick on 2 cores. */
export const TEST_SETTINGS = { llm: { threads: 2, maxTokens: 16 } };

/**
 * Starts `dev:web` on a free port with the shared test models. `settings` is written to the settings
 * file first (a string as is, e.g. a corrupt file; null keeps the file as it is).
 */
export async function startBridge(opts: { settings?: object | string | null; settingsFile?: string; models?: string; extraArgs?: string[] } = {}): Promise<Bridge> {
  buildRenderer();
  const file = opts.settingsFile ?? path.join(tempDir('lva-e2e-'), 'settings.json');
  const settings = opts.settings === undefined ? TEST_SETTINGS : opts.settings;
  if (settings !== null) await writeFile(file, typeof settings === 'string' ? settings : JSON.stringify(settings));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'electron', 'cli', 'dev-web.ts'), '--port', '0', '--models', opts.models ?? MODELS, '--settings', file, ...(opts.extraArgs ?? [])],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev:web did not start within 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dev:web exited (${code}):\n${out}`));
    });
  });
  // Ready means the models are loaded (the CLI prints which), or that first run waits for downloads.
  await waitFor(() => /models loaded|needs its models|! /.test(out), 60_000, () => `dev:web never loaded its models:\n${out}`);
  return {
    url,
    settingsFile: file,
    output: () => out,
    async resetSettings() {
      // One complete settings object: the fields that reload the models (threads...) never change
      // on the way, so no test starts while the models are reloading.
      const [answer] = (await requestOverBridge(url, [{ type: 'update-settings', patch: mergeSettings(DEFAULT_SETTINGS, TEST_SETTINGS) }])) as { ok: boolean }[];
      if (!answer?.ok) throw new Error(`could not reset the settings: ${JSON.stringify(answer)}`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function waitFor(ok: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(why());
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Writes memory.json into the data folder `dir` as the app would have kept these facts (said at the given times), before it starts. */
export async function seedMemory(dir: string, facts: readonly { text: string; said: Date }[]): Promise<void> {
  const book = new MemoryBook();
  for (const f of facts) book.remember(f.text, f.said.toISOString());
  await writeFile(path.join(dir, MEMORY_FILE), book.toFileText());
}

/** Headless Chromium whose microphone plays `wav` once (then silence). */
export function launchBrowser(wav: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Opens the app and waits until it is connected, its models are ready and the microphone runs:
 * the state `readyState` ('listening'; 'idle' in one-shot mode).
 */
export async function openApp(browser: Browser, url: string, readyState = 'listening'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as Page & { errors?: string[] }).errors = errors;
  await page.goto(url);
  await page.locator(`[data-testid=assistant-state][data-state=${readyState}]`).waitFor({ timeout: 30_000 });
  return page;
}

export function pageErrors(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}
