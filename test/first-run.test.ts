/**
 * First run for real: no model installed, the catalog's addresses on a local server publishing the
 * shared test models. The controller offers the plan, downloads and verifies every file, then loads
 * the engines; in Chromium the first-run screen shows the plan, the progress, and then the app.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { AppEvent, AppStatus } from '../electron/ipc-contract';
import { verifyModel } from '../native-models/downloader';
import { browserMissing, launchBrowser, startBridge } from './browser-harness';
import { SPEECH, tempDir } from './helpers';
import { startModelServer, type ModelServer } from './model-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('first run: download the models, then talk', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server?.close();
  });

  it('the controller offers the plan, downloads and verifies it, then loads the models', async () => {
    const dir = tempDir('lva-first-');
    const models = path.join(dir, 'models');
    const events: AppEvent[] = [];
    const controller = new AssistantController({
      settingsFile: path.join(dir, 'settings.json'),
      modelRoots: () => [models],
      audioSink: () => null,
      downloadRoot: models,
      catalog: server.catalog,
    });
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
      ]);
      assert.equal(setup.totalBytes, setup.models.reduce((a, m) => a + m.bytes!, 0));
      assert.equal(setup.folder, models);
      controller.command({ type: 'download-models' });
      await until('the models to load', () => status().phase === 'ready');
      for (const m of setup.models) {
        const entry = server.catalog.find((e) => e.id === m.id)!;
        assert.deepEqual(await verifyModel(entry, models), { id: m.id, ok: true, problems: [] }, 'installed and verified');
      }
      const progress = events.flatMap((e) => (e.type === 'download' ? [e.progress] : []));
      assert.ok(progress.some((p) => p.modelId === 'test-llm-stories260k' && p.phase === 'done'));
      assert.ok(progress.some((p) => p.phase === 'verifying'));
      assert.ok(events.some((e) => e.type === 'notice' && /downloaded and verified/.test(e.message)));
      assert.equal(status().models.every((m) => m.state === 'ready'), true);
    } finally {
      await controller.dispose();
    }
  });

  it('in the browser: the first-run screen shows the plan and the progress, then the assistant', { skip: process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false }, async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const dir = tempDir('lva-first-ui-');
    const catalogFile = path.join(dir, 'catalog.json');
    await writeFile(catalogFile, JSON.stringify(server.catalog));
    const models = path.join(dir, 'models');
    const bridge = await startBridge({ extraArgs: ['--catalog', catalogFile], models });
    const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
    try {
      const page = await browser.newPage();
      await page.goto(bridge.url);
      const screen = page.locator('[data-testid=first-run]');
      await screen.waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('[data-testid=download-item]').count(), 4);
      const text = (await screen.textContent()) ?? '';
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
