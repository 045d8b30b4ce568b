/**
 * First run for real: no model installed, the catalog's addresses on a local server publishing the
 * shared test models. The controller offers the plan, downloads and verifies every file, then loads
 * the engines; in Chromium the first-run screen shows the plan, the progress, and then the app.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AppEvent, AppStatus } from '../../electron/ipc-contract';
import { verifyModel } from '../../native-models/downloader';
import { planSetup } from '../../native-models/setup-plan';
import { browserMissing, launchBrowser, startBridge } from '../browser-harness';
import type { ModelEntry } from '../../native-models/types';
import { firstRunController } from '../first-run-helpers';
import { MODELS, SPEECH, tempDir } from '../helpers';
import { modelServerForSuite } from '../model-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function lastSetup(events: AppEvent[]) {
  const statuses = events.flatMap((e) => (e.type === 'status' && e.status.setup ? [e.status.setup] : []));
  return statuses.at(-1);
}

describe('first run: download the models, then talk', () => {
  const server = modelServerForSuite();

  it('the controller offers the plan, downloads and verifies it, then loads the models', async () => {
    const { controller, models } = firstRunController(tempDir('lva-first-'), server().catalog);
    const events: AppEvent[] = [];
    controller.on((e) => events.push(e));
    try {
      await controller.start();
      const status = (): AppStatus => controller.snapshot().status;
      assert.equal(status().phase, 'setup');
      const setup = status().setup!;
      assert.deepEqual(setup.models.map((m) => [m.kind, m.id]), [
        ['vad', 'test-vad-silero'],
        ['stt', 'test-stt-espeak-ctc-streaming'],
        ['llm', 'test-llm-stories260k'],
        ['tts', 'test-tts-formant'],
        ['turn', 'test-turn-eot-espeak'],
      ]);
      assert.deepEqual(setup.models.map((m) => m.optional), [false, false, false, false, true], 'the end-of-turn model is offered, as optional');
      assert.equal(setup.totalBytes, setup.models.reduce((a, m) => a + m.bytes!, 0));
      assert.equal(setup.folder, models);
      controller.command({ type: 'download-models' });
      await until('the models to load', () => status().phase === 'ready');
      for (const m of setup.models) {
        const entry = server().catalog.find((e) => e.id === m.id)!;
        assert.deepEqual(await verifyModel(entry, models), { id: m.id, ok: true, problems: [] }, 'installed and verified');
      }
      const progress = events.flatMap((e) => (e.type === 'download' ? [e.progress] : []));
      assert.ok(progress.some((p) => p.modelId === 'test-llm-stories260k' && p.phase === 'done'));
      assert.ok(progress.some((p) => p.phase === 'verifying'));
      assert.ok(events.some((e) => e.type === 'notice' && /downloaded, verified, and each one ran once/.test(e.message)));
      assert.equal(status().models.every((m) => m.state === 'ready'), true);
      // Each model was run once, in its own engine, before the assistant started.
      const checks = status().setup?.checks ?? lastSetup(events)!.checks;
      assert.deepEqual(Object.keys(checks).sort(), setup.models.map((m) => m.id).sort());
      for (const c of Object.values(checks)) assert.equal(c.state, 'ok', c.detail ?? '');
      assert.match(checks['test-stt-espeak-ctc-streaming']!.detail!, /what is the weather like today/);
    } finally {
      await controller.dispose();
    }
  });

  /** Only the voice is missing: the rest are the shared test models. */
  function voiceOnlyController(dir: string, voices: ModelEntry[]) {
    const catalog = [...server().catalog.filter((e) => e.kind !== 'tts'), ...voices];
    // The shared vad, stt, llm and turn folders, without the shared voices (they would count as installed).
    return firstRunController(dir, catalog, { otherRoots: [sharedExcept(dir, ['tts-synthetic'])] });
  }

  /** A models folder of links to the shared test models, less the folders named. */
  function sharedExcept(dir: string, leaveOut: string[]): string {
    const others = path.join(dir, 'others');
    mkdirSync(others);
    for (const sub of ['vad', 'stt', 'llm', 'tts-synthetic', 'turn']) if (!leaveOut.includes(sub)) symlinkSync(path.join(MODELS, sub), path.join(others, sub));
    return others;
  }

  /** A "voice" whose model file is really the VAD's onnx: right size and hash, but no voice. */
  function brokenVoice(): ModelEntry {
    const vad = server().catalog.find((e) => e.id === 'test-vad-silero')!.files[0]!;
    const tokens = server().catalog.find((e) => e.id === 'test-tts-formant')!.files.find((f) => f.name === 'tokens.txt')!;
    return {
      id: 'broken-voice',
      kind: 'tts',
      name: 'Broken voice',
      description: 'the VAD model published as a voice',
      licence: 'MIT',
      files: [{ ...vad, name: 'model.onnx' }, tokens],
      engine: { engine: 'sherpa-tts', family: 'vits', model: 'model.onnx', tokens: 'tokens.txt', dataDir: 'system' },
    };
  }

  it('a voice whose published file changed, then one that does not load, are replaced by the next voice', async () => {
    const dir = tempDir('lva-first-alt-');
    const formant = server().catalog.find((e) => e.id === 'test-tts-formant')!;
    const changed: ModelEntry = { ...formant, files: formant.files.map((f) => (f.name === 'formant-piper.onnx' ? { ...f, sha256: '0'.repeat(64) } : f)) };
    const echo = server().catalog.find((e) => e.id === 'test-tts-echo')!;
    const { controller, models } = voiceOnlyController(dir, [changed, brokenVoice(), echo]);
    const events: AppEvent[] = [];
    controller.on((e) => events.push(e));
    try {
      await controller.start();
      const status = (): AppStatus => controller.snapshot().status;
      assert.deepEqual(status().setup!.models.map((m) => m.id), ['test-tts-formant']);
      controller.command({ type: 'download-models' });
      await until('the assistant to start', () => status().phase === 'ready' || status().setup?.state === 'failed', 120_000);
      assert.equal(status().phase, 'ready', status().setup?.error ?? status().error ?? '');
      assert.equal(status().models.find((m) => m.kind === 'tts')!.id, 'test-tts-echo');
      const notices = events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
      assert.ok(notices.some((n) => /sha256/.test(n) && /Downloading Broken voice instead/.test(n)), notices.join('\n'));
      assert.ok(notices.some((n) => /broken-voice .*does not work: .*sample_rate.*Its files were removed\. Downloading Phoneme echo test model instead/.test(n)), notices.join('\n'));
      assert.equal(existsSync(path.join(models, 'broken-voice')), false, 'the voice that does not load is not left installed');
      const checks = lastSetup(events)!.checks;
      assert.equal(checks['broken-voice']?.state, 'failed');
      assert.equal(checks['test-tts-echo']?.state, 'ok');
    } finally {
      await controller.dispose();
    }
  });

  it('with no other voice to try, the first-run screen says which model failed and the assistant does not start', async () => {
    const dir = tempDir('lva-first-fail-');
    const { controller, models } = voiceOnlyController(dir, [brokenVoice()]);
    try {
      await controller.start();
      const status = (): AppStatus => controller.snapshot().status;
      controller.command({ type: 'download-models' });
      await until('the setup to fail', () => status().setup?.state === 'failed', 120_000);
      assert.equal(status().phase, 'setup');
      assert.match(status().setup!.error!, /^The voice broken-voice \(in .*\) does not work: .*sample_rate.* No other voice is in the catalog/);
      assert.equal(status().setup!.checks['broken-voice']?.state, 'failed');
      assert.equal(existsSync(path.join(models, 'broken-voice')), false);
      assert.equal(status().models.some((m) => m.state === 'ready'), false, 'no half-working assistant');
    } finally {
      await controller.dispose();
    }
  });

  it('the end-of-turn model never makes a plan alone; `models fetch` (optionalAlone) still gets it', async () => {
    const dir = tempDir('lva-first-plan-');
    const hardware = async () => { throw new Error('no LLM choice to make'); };
    assert.equal(await planSetup(server().catalog, [sharedExcept(dir, ['turn'])], hardware), null, 'every required kind is there: no first-run screen');
    const plan = await planSetup(server().catalog, [path.join(dir, 'others')], hardware, { optionalAlone: true });
    assert.deepEqual(plan?.models.map((m) => [m.id, m.optional]), [['test-turn-eot-espeak', true]]);
    // A catalog without any end-of-turn model still plans the required ones.
    const noTurn = await planSetup(server().catalog.filter((e) => e.kind !== 'turn'), [tempDir('lva-first-empty-')], hardware);
    assert.deepEqual(noTurn?.models.map((m) => m.kind), ['vad', 'stt', 'llm', 'tts']);
  });

  it('an end-of-turn model that does not work is skipped with a notice, and the assistant starts without it', async () => {
    const dir = tempDir('lva-first-turn-');
    const vad = server().catalog.find((e) => e.id === 'test-vad-silero')!.files[0]!;
    // The VAD's onnx published as an end-of-turn model: right size and hash, wrong model.
    const brokenTurn: ModelEntry = {
      id: 'broken-turn',
      kind: 'turn',
      name: 'Broken end-of-turn model',
      description: 'the VAD model published as an end-of-turn model',
      licence: 'MIT',
      files: [{ ...vad, name: 'model.onnx' }],
      engine: { engine: 'smart-turn', model: 'model.onnx' },
    };
    const catalog = [...server().catalog.filter((e) => e.kind !== 'turn'), brokenTurn];
    const { controller, models } = firstRunController(dir, catalog, { otherRoots: [sharedExcept(dir, ['tts-synthetic', 'turn'])] });
    const events: AppEvent[] = [];
    controller.on((e) => events.push(e));
    try {
      await controller.start();
      const status = (): AppStatus => controller.snapshot().status;
      assert.deepEqual(status().setup!.models.map((m) => [m.id, m.optional]), [['test-tts-formant', false], ['broken-turn', true]]);
      controller.command({ type: 'download-models' });
      await until('the assistant to start', () => status().phase === 'ready' || status().setup?.state === 'failed', 120_000);
      assert.equal(status().phase, 'ready', status().setup?.error ?? status().error ?? '');
      const notices = events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
      assert.ok(notices.some((n) => /^The end-of-turn model broken-turn \(in .*\) does not work: .*Its files were removed\. The assistant starts without it: turn ends are decided by silence alone\.$/.test(n)), notices.join('\n'));
      assert.ok(notices.some((n) => /each one ran once \(Broken end-of-turn model skipped\)/.test(n)), notices.join('\n'));
      assert.equal(lastSetup(events)!.checks['broken-turn']?.state, 'skipped');
      assert.equal(existsSync(path.join(models, 'broken-turn')), false);
      const turn = status().models.find((m) => m.kind === 'turn')!;
      assert.equal(turn.state, 'missing');
      assert.match(turn.detail!, /^No end-of-turn model is installed: turn ends are decided by silence alone\. To get it: `npm run models -- fetch broken-turn`/);
      assert.ok(status().models.filter((m) => m.kind !== 'turn').every((m) => m.state === 'ready'));
    } finally {
      await controller.dispose();
    }
  });

  it('in the browser: the first-run screen shows the plan and the progress, then the assistant', { skip: process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false }, async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const dir = tempDir('lva-first-ui-');
    const catalogFile = path.join(dir, 'catalog.json');
    await writeFile(catalogFile, JSON.stringify(server().catalog));
    const models = path.join(dir, 'models');
    const bridge = await startBridge({ extraArgs: ['--catalog', catalogFile], models });
    const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
    try {
      const page = await browser.newPage();
      await page.goto(bridge.url);
      const screen = page.locator('[data-testid=first-run]');
      await screen.waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('[data-testid=download-item]').count(), 5);
      const text = (await screen.textContent()) ?? '';
      assert.match(text, /End of turn \(optional\)/);
      assert.match(text, /Silero VAD v5 test fixture/);
      assert.match(text, /2\.2 MB/);
      assert.match(text, new RegExp(models.replace(/[/\\]/g, '.')));
      await page.locator('[data-testid=download-models]').click();
      await page.locator('[data-testid=assistant-state][data-state=listening]').waitFor({ timeout: 60_000 });
      assert.equal(await screen.count(), 0, 'the first-run screen is gone');
      assert.ok(existsSync(path.join(models, 'llm')));
    } finally {
      await browser.close();
      await bridge.stop();
    }
  });
});
