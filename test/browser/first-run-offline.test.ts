/**
 * First run with no connection (the catalog's addresses on a port nothing listens on): the row of the
 * model being fetched says it is connecting, then why it failed and when it tries again, and at the
 * end which download failed and why, in one sentence without a URL. No row sits on "queued" for the
 * whole retry time.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AppEvent, FileProgress } from '../../electron/ipc-contract';
import { TEST_CATALOG } from '../../native-models/catalog';
import { connectionProblem } from '../../native-models/download-problem';
import type { ModelEntry } from '../../native-models/types';
import { downloadRow } from '../../renderer/model/download-state';
import { browserMissing, launchBrowser, startBridge } from '../browser-harness';
import { firstRunController } from '../first-run-helpers';
import { SPEECH, tempDir } from '../helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An address where nothing listens: a port that was just free. */
async function closedPort(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `127.0.0.1:${port}`;
}

/** What the window's store keeps: the latest progress of each file. */
function latest(progress: FileProgress[]): FileProgress[] {
  return [...new Map(progress.map((p) => [`${p.modelId}/${p.file}`, p])).values()];
}

function offlineCatalog(host: string): ModelEntry[] {
  return TEST_CATALOG.map(({ local: _local, ...e }) => ({ ...e, files: e.files.map((f) => ({ ...f, url: `http://${host}/${e.dir ?? e.id}/${f.name}` })) }));
}

describe('first run with no connection', () => {
  it('the row says it is retrying and why, then which download failed and why, in one sentence', async () => {
    const host = await closedPort();
    const { controller } = firstRunController(tempDir('lva-first-offline-'), offlineCatalog(host));
    const events: AppEvent[] = [];
    controller.on((e) => events.push(e));
    const progress = () => events.flatMap((e) => (e.type === 'download' ? [e.progress] : []));
    try {
      await controller.start();
      const status = () => controller.snapshot().status;
      const models = status().setup!.models.map((m) => m.id);
      const first = models[0]!;
      controller.command({ type: 'download-models' });
      // Within the first backoff (1 s), the first model's row already says what is happening.
      for (const end = Date.now() + 5_000; !progress().some((p) => p.phase === 'retrying'); await sleep(20)) assert.ok(Date.now() < end, 'no retry was reported');
      const upToRetry = progress().slice(0, progress().findIndex((p) => p.phase === 'retrying') + 1);
      const busyRow = downloadRow(latest(upToRetry), true, undefined);
      assert.match(busyRow.state, new RegExp(`^${host} refused the connection; trying again in 1 s \\(try 2 of 4\\)…$`));
      for (const end = Date.now() + 30_000; status().setup?.state !== 'failed'; await sleep(50)) assert.ok(Date.now() < end, `setup state ${status().setup?.state}`);

      const all = progress();
      assert.deepEqual(all.filter((p) => p.phase === 'retrying').map((p) => /try (\d) of 4/.exec(p.message ?? '')?.[1]), ['2', '3', '4']);
      assert.ok(all.every((p) => p.modelId === first), 'the others were not started');
      const row = downloadRow(latest(all), false, undefined);
      assert.equal(row.state, 'download failed');
      assert.equal(row.failure, `Download failed: ${host} refused the connection (4 tries).`);
      for (const other of models.slice(1)) assert.deepEqual(downloadRow([], false, status().setup!.checks[other]), { state: '', failure: null }, 'not "queued" once it has stopped');
      const error = status().setup!.error!;
      assert.match(error, new RegExp(`^Could not download \\S+ of model ${first}: ${host} refused the connection \\(4 tries\\)\\. Check the connection and try again`));
      assert.doesNotMatch(`${error} ${row.failure}`, /https?:\/\//, 'no raw URL');
    } finally {
      await controller.dispose();
    }
  });

  it('says no connection in words for the errors Node and Electron give', () => {
    const url = 'https://huggingface.co/x/resolve/abc/model.onnx';
    const node = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`getaddrinfo ${code} huggingface.co`), { code }) });
    assert.equal(connectionProblem(node('ENOTFOUND'), url), 'huggingface.co could not be found (no internet connection?)');
    assert.equal(connectionProblem(node('EAI_AGAIN'), url), 'huggingface.co could not be found (no internet connection?)');
    const several = Object.assign(new TypeError('fetch failed'), { cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]) });
    assert.equal(connectionProblem(several, url), 'huggingface.co refused the connection');
    assert.equal(connectionProblem(new Error('net::ERR_INTERNET_DISCONNECTED'), url), 'there is no network connection');
    assert.equal(connectionProblem(new Error('net::ERR_NAME_NOT_RESOLVED'), url), 'huggingface.co could not be found (no internet connection?)');
    assert.equal(connectionProblem(new Error('proxy refused the connection'), url), 'could not connect to huggingface.co (proxy refused the connection)');
  });

  it('a row that is connecting or retrying is never "queued"', () => {
    const p = (phase: FileProgress['phase'], message?: string): FileProgress => ({ modelId: 'm', file: 'f', phase, receivedBytes: 0, totalBytes: 10, bytesPerSecond: 0, etaSeconds: null, message });
    assert.equal(downloadRow([], true, undefined).state, 'queued');
    assert.equal(downloadRow([p('connecting', 'connecting to huggingface.co')], true, undefined).state, 'connecting to huggingface.co…');
    assert.equal(downloadRow([p('retrying', 'huggingface.co did not answer; trying again in 2 s (try 3 of 4)')], true, undefined).state, 'huggingface.co did not answer; trying again in 2 s (try 3 of 4)…');
  });

  it('in the browser: the first model\'s row says it is retrying, then that its download failed and why', { skip: process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false }, async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const host = await closedPort();
    const dir = tempDir('lva-first-offline-ui-');
    const catalogFile = path.join(dir, 'catalog.json');
    await writeFile(catalogFile, JSON.stringify(offlineCatalog(host)));
    const bridge = await startBridge({ extraArgs: ['--catalog', catalogFile], models: path.join(dir, 'models') });
    const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
    try {
      const page = await browser.newPage();
      await page.goto(bridge.url);
      await page.locator('[data-testid=first-run]').waitFor({ timeout: 20_000 });
      await page.locator('[data-testid=download-models]').click();
      const firstState = page.locator('[data-testid=download-item]').first().locator('[data-testid=download-state]');
      await firstState.filter({ hasText: /refused the connection; trying again in/ }).waitFor({ timeout: 10_000 });
      const failed = page.locator('[data-testid=download-item]').first().locator('[data-testid=download-failed]');
      await failed.waitFor({ timeout: 30_000 });
      assert.equal(await failed.textContent(), `Download failed: ${host} refused the connection (4 tries).`);
      assert.equal(await firstState.textContent(), 'download failed');
      assert.equal(await page.locator('[data-testid=download-failed]').count(), 1, 'only the model that was tried is marked');
      assert.doesNotMatch((await page.locator('[data-testid=first-run]').textContent()) ?? '', /http:\/\//, 'no raw URL on the screen');
    } finally {
      await browser.close();
      await bridge.stop();
    }
  });
});
