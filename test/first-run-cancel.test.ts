/**
 * First run: Cancel and Resume, through the controller's contract (the messages the first-run
 * screen's buttons send: `cancel-download`, then `download-models` again). Downloads come from the
 * local model server (test/model-server.ts) through a fetch that paces the body, so Cancel lands
 * in the middle of a file.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AssistantController } from '../electron/app/controller';
import type { AppEvent, SetupStatus } from '../electron/ipc-contract';
import { verifyModel, type FetchFunction } from '../native-models/downloader';
import { firstRunController } from './first-run-helpers';
import { tempDir } from './helpers';
import { modelServerForSuite } from './model-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `ok()` holds, checked after each event the controller sends and every 50 ms. */
function when(controller: AssistantController, what: string, ok: () => boolean, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => (clearTimeout(timer), clearInterval(poll), off());
    const timer = setTimeout(() => (stop(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const check = () => {
      if (ok()) (stop(), resolve());
    };
    const poll = setInterval(check, 50);
    const off = controller.on(check);
    check();
  });
}

/** Node's fetch, the body of `pace.url` handed on 16 KiB every 10 ms; every request's Range header recorded. */
function pacedFetch(requests: { url: string; range: string | null }[], pace: { url: string | null }): FetchFunction {
  return async (url, init) => {
    const range = new Headers(init.headers).get('range');
    requests.push({ url, range });
    const res = await fetch(url, init);
    if (!res.body || url !== pace.url) return res;
    const reader = res.body.getReader();
    const signal = init.signal ?? undefined;
    const paced = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        for (let at = 0; at < value.length; at += 16 * 1024) {
          if (signal?.aborted) return controller.error(signal.reason);
          await sleep(10);
          controller.enqueue(value.subarray(at, at + 16 * 1024));
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(paced, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

describe('first run: Cancel, then Resume', () => {
  const server = modelServerForSuite();

  it('Cancel stops in the middle of a file and installs nothing of it; Resume continues from the bytes kept, and the assistant starts', async () => {
    const requests: { url: string; range: string | null }[] = [];
    const pace: { url: string | null } = { url: null };
    const { controller, models } = firstRunController(tempDir('lva-first-cancel-'), server().catalog, { fetch: pacedFetch(requests, pace) });
    const events: AppEvent[] = [];
    controller.on((e) => events.push(e));
    const setup = (): SetupStatus | null => controller.snapshot().status.setup;
    try {
      await controller.start();
      assert.equal(controller.snapshot().status.phase, 'setup');
      const plan = setup()!.models;

      // The largest file of the plan, paced: Cancel comes once some of it, but not all, has arrived.
      const files = plan.flatMap((m) => server().catalog.find((e) => e.id === m.id)!.files.map((f) => ({ model: m.id, entry: server().catalog.find((e) => e.id === m.id)!, ...f })));
      const big = files.reduce((a, b) => ((b.bytes ?? 0) > (a.bytes ?? 0) ? b : a));
      pace.url = big.url!;
      controller.command({ type: 'download-models' });
      const progress = () => events.flatMap((e) => (e.type === 'download' ? [e.progress] : []));
      await when(controller, `${big.name} of ${big.model} to be under way`, () => progress().some((p) => p.file === big.name && p.modelId === big.model && p.receivedBytes >= 64 * 1024));
      controller.command({ type: 'cancel-download' });
      await when(controller, 'the setup to say cancelled', () => setup()?.state === 'cancelled', 10_000);
      assert.equal(controller.snapshot().status.phase, 'setup', 'the assistant does not start');
      assert.equal(setup()!.error, null, 'a cancel is no error');

      const dest = path.join(models, big.entry.dir ?? big.entry.id, big.name);
      assert.equal(existsSync(dest), false, 'the file cut short is not installed');
      const kept = statSync(`${dest}.partial`).size;
      assert.ok(kept > 0 && kept < big.bytes!, `${kept} of ${big.bytes} bytes kept`);
      const requestsBefore = requests.length;
      await sleep(200);
      assert.equal(requests.length, requestsBefore, 'nothing more is fetched after Cancel');

      // Resume: the same button, now "Resume download" (at full speed: only the cut is under test).
      pace.url = null;
      controller.command({ type: 'download-models' });
      await when(controller, 'the models to load', () => controller.snapshot().status.phase === 'ready', 300_000);
      const resumed = requests.slice(requestsBefore).find((r) => r.url === big.url);
      assert.ok(resumed, `${big.name} was asked for again`);
      const from = Number(/^bytes=(\d+)-$/.exec(resumed.range ?? '')?.[1]);
      assert.ok(from > 0 && from <= kept, `resumed with Range ${resumed.range}, ${kept} bytes were kept`);
      for (const m of plan) {
        const entry = server().catalog.find((e) => e.id === m.id)!;
        assert.deepEqual(await verifyModel(entry, models), { id: m.id, ok: true, problems: [] }, `${m.id} installed and verified`);
      }
    } finally {
      await controller.dispose();
    }
  });
});
