/**
 * Fuzz: random and hostile settings.json, timers.json and history files (test/fuzz-inputs.ts) in a
 * fresh data folder; the real controller starts on them, on the real engines, hears one spoken
 * request, answers, lists and opens the history, and stops. No case may crash or hang it, lose a
 * valid setting or timer (or a broken file: it must be kept as a backup), or let an API key out of
 * the key store: not into a file, an event, the snapshot or the console.
 *
 * FUZZ_CASES (default 40, about 45 s on 2 cores; 1,000 for the full run in docs/testing.md) and FUZZ_SEED
 * choose the cases.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import { toMono16k } from '../electron/audio/resample';
import { readWavFile } from '../electron/audio/wav';
import type { AppEvent } from '../electron/ipc-contract';
import { FastForwardClock } from '../electron/pipeline/clock';
import { validateSettings, withoutSecrets } from '../electron/settings/schema';
import { TimerBook } from '../electron/timers/timer-book';
import { MODELS_DIR, SPEECH_DIR } from './engine-fixtures';
import { FuzzCase, type FuzzFiles } from './fuzz-inputs';
import { tempDir, within } from './helpers';
import { startHostileServer, type HostileServer } from './hostile-server';

const CASES = Number(process.env.FUZZ_CASES ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const CASE_LIMIT_MS = 60_000;
const CLIPS = ['commands/what_time.wav', 'commands/timer_5s.wav', 'weather.wav'];

let server: HostileServer;
let models: string;
const clips: Float32Array[] = [];
/** Anything thrown or rejected outside the test's own awaits. */
const stray: unknown[] = [];
const onStray = (e: unknown) => stray.push(e);

before(async () => {
  server = await startHostileServer();
  models = tempDir('lva-fuzz-models-');
  for (const kind of ['vad', 'stt', 'tts-synthetic', 'turn', 'llm']) await symlink(path.join(MODELS_DIR, kind), path.join(models, kind));
  for (const c of CLIPS) clips.push(toMono16k(await readWavFile(path.join(SPEECH_DIR, c))));
  process.on('uncaughtException', onStray);
  process.on('unhandledRejection', onStray);
});

after(async () => {
  process.off('uncaughtException', onStray);
  process.off('unhandledRejection', onStray);
  await server?.close();
});

async function plant(dir: string, f: FuzzFiles): Promise<void> {
  if (f.settings !== null) await writeFile(path.join(dir, 'settings.json'), f.settings);
  if (f.timers !== null) await writeFile(path.join(dir, 'timers.json'), f.timers);
  await mkdir(path.join(dir, 'history'));
  for (const [name, text] of Object.entries(f.history)) await writeFile(path.join(dir, 'history', name), text);
}

/** Every file under `dir` but the key store, as text. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await readdir(dir, { recursive: true })) {
    if (name === 'llm-api-key') continue;
    try {
      out.set(name, await readFile(path.join(dir, name), 'utf8'));
    } catch {
      // a folder
    }
  }
  return out;
}

/** The settings a valid file holds, as the app would keep them (no key: that goes to the key store). */
function validSettings(text: string | null): object | null {
  if (text === null) return null;
  try {
    const r = validateSettings(JSON.parse(text.replace(/^\ufeff/, '')));
    return r.ok ? withoutSecrets(r.value) : null;
  } catch {
    return null;
  }
}

/** Timers due more than a minute after the run: they must all still be there (at most the 100 soonest). */
function lastingTimers(text: string | null, now: number): string[] | null {
  if (text === null) return null;
  try {
    const book = TimerBook.fromJSON(JSON.parse(text));
    return book
      .all()
      .filter((t) => t.firedAtMs === null && t.cancelledAtMs === null && t.dueAtMs > now + 60_000)
      .map((t) => t.id);
  } catch {
    return null;
  }
}

interface Outcome {
  phase: string;
  turned: boolean;
  what: string;
}

async function runCase(n: number): Promise<Outcome> {
  const dir = tempDir(`lva-fuzz-${n}-`);
  const now = Date.now();
  const files = new FuzzCase(SEED + n * 7919, server.url('ok'), now).build();
  await plant(dir, files);
  // As the files read back (text with lone surrogates is written as U+FFFD).
  const planted = await filesOf(dir);
  const events: AppEvent[] = [];
  const console_: string[] = [];
  const clock = new FastForwardClock();
  const controller = new AssistantController({
    settingsFile: path.join(dir, 'settings.json'),
    modelRoots: () => [models],
    downloadRoot: path.join(dir, 'downloads'),
    audioSink: () => null,
    clock,
    detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
  });
  controller.on((e) => events.push(e));
  const saved = { log: console.log, error: console.error, warn: console.warn };
  console.log = console.error = console.warn = (...a: unknown[]) => void console_.push(a.map(String).join(' '));
  let turned = false;
  try {
    await within(controller.start(), CASE_LIMIT_MS, 'start');
    const phase = controller.snapshot().status.phase;
    if (phase === 'ready') {
      // A question for the language model only when the (well-behaved) server answers it: a local
      // story of hundreds of tokens would take minutes to play. Otherwise a local command.
      const server = controller.snapshot().settings.llm.provider === 'openai-compatible';
      const clip = clips[server && n % 2 === 0 ? 2 : n % 2]!;
      const all = new Float32Array(clip.length + 16000 * 3);
      all.set(clip);
      for (let i = 0; i < all.length; i += 320) controller.pushAudio(all.slice(i, i + 320));
      // The pipeline runs on the audio's own timeline; the clock is moved on for what waits on it.
      for (let i = 0; i < 400 && !turned; i++) {
        await new Promise((r) => setTimeout(r, 10));
        clock.skipTo(clock.now() + 100);
        turned = events.some((e) => e.type === 'pipeline' && e.event.type === 'turn');
      }
    }
    const sessions = await controller.request({ type: 'history-sessions' });
    if (sessions.ok) for (const s of sessions.sessions) await controller.request({ type: 'history-session', id: s.id });
    await controller.request({ type: 'history-summary' });
    events.push({ type: 'status', status: controller.snapshot().status });
    return { phase, turned, what: files.what };
  } finally {
    await within(controller.dispose(), CASE_LIMIT_MS, 'dispose');
    Object.assign(console, saved);
    await check(n, dir, files, planted, now, events, console_);
  }
}

async function check(n: number, dir: string, f: FuzzFiles, planted: Map<string, string>, now: number, events: AppEvent[], printed: string[]): Promise<void> {
  const where = `case ${n} (seed ${SEED}, ${f.what})`;
  assert.deepEqual(stray, [], `${where}: something was thrown outside any request`);
  const after = await filesOf(dir);
  // No leak: a key is only ever in the key store.
  const seen: [string, string][] = [...after.entries(), ['events', JSON.stringify(events)], ['console', printed.join('\n')]];
  for (const key of f.keys) {
    for (const form of new Set([key, JSON.stringify(key).slice(1, -1)])) {
      const leak = seen.find(([, text]) => text.includes(form));
      assert.ok(!leak, `${where}: a key left the key store, into ${leak?.[0]}`);
    }
  }
  const names = [...after.keys()];
  // No data loss: valid settings are kept as written; anything else is kept as a backup.
  const valid = validSettings(f.settings);
  if (valid) assert.deepEqual(validSettings(after.get('settings.json') ?? null), valid, `${where}: the settings changed`);
  else if (f.settings !== null && f.settings.replace(/^\ufeff/, '').trim() !== '') assert.ok(names.some((x) => x.startsWith('settings.json.corrupt-')), `${where}: no backup of the settings file`);
  const lasting = lastingTimers(f.timers, now);
  if (lasting) {
    const kept = new Set(lastingTimers(after.get('timers.json') ?? null, now) ?? []);
    const missing = lasting.filter((id) => !kept.has(id));
    assert.ok(missing.length === 0 || (lasting.length > 100 && kept.size >= 100 - 10), `${where}: timers lost: ${missing.length} of ${lasting.length}`);
  } else if (f.timers !== null) {
    assert.ok(names.some((x) => x.startsWith('timers.json.corrupt-')), `${where}: no backup of the timers file`);
  }
  for (const name of Object.keys(f.history)) {
    const before = planted.get(path.join('history', name))!;
    assert.ok(after.get(path.join('history', name))?.startsWith(before), `${where}: history ${name} changed`);
  }
  assert.ok(!names.some((x) => x.endsWith('.tmp')), `${where}: a temp file was left`);
}

describe(`fuzz: ${CASES} cases of hostile data files, each with the controller started and one turn`, () => {
  it('no crash, no hang, no data loss, no key outside the key store', async (t) => {
    const phases = new Map<string, number>();
    let turns = 0;
    let peakRss = 0;
    for (let n = 0; n < CASES; n++) {
      const t0 = performance.now();
      const r = await runCase(n);
      if (process.env.FUZZ_VERBOSE) t.diagnostic(`case ${n}: ${r.phase} ${r.turned ? 'turn' : 'no turn'} ${r.what} ${Math.round(performance.now() - t0)} ms`);
      phases.set(r.phase, (phases.get(r.phase) ?? 0) + 1);
      if (r.turned) turns++;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
    t.diagnostic(`seed ${SEED}: ${CASES} cases, phases ${JSON.stringify(Object.fromEntries(phases))}, ${turns} turns, peak ${Math.round(peakRss / 2 ** 20)} MB`);
    assert.ok(turns >= CASES * 0.8, `a turn in ${turns} of ${CASES} cases`);
    assert.ok(peakRss < 1.5 * 2 ** 30, `peak ${Math.round(peakRss / 2 ** 20)} MB`);
  });
});
