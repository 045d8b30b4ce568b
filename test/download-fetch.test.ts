/**
 * Downloads go through the fetch function they are given (the app gives Electron's net.fetch, which
 * honours the system's proxy settings): checked against the local model server, for the downloader
 * and for the controller's first-run download.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchModel, type FetchFunction } from '../native-models/downloader';
import { firstRunController } from './first-run-helpers';
import { tempDir } from './helpers';
import { modelServerForSuite } from './model-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fetch that records each URL and hands the request to Node's fetch. */
function recordingFetch(): { fetch: FetchFunction; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (url, init) => {
      urls.push(url);
      return fetch(url, init);
    },
  };
}

describe('downloads use the injected fetch', () => {
  const server = modelServerForSuite();

  it('fetchModel sends every request through it', async () => {
    const entry = server().catalog.find((e) => e.id === 'test-stt-espeak-ctc-streaming')!;
    const { fetch: injected, urls } = recordingFetch();
    const served = server().requests.length;
    const r = await fetchModel(entry, { root: tempDir('lva-fetch-'), fetch: injected });
    assert.deepEqual(r.downloaded.sort(), entry.files.map((f) => f.name).sort());
    assert.deepEqual(urls.sort(), entry.files.map((f) => f.url!).sort());
    assert.equal(server().requests.length - served, urls.length, 'no request went around it');
  });

  it('a failing fetch fails the download with its own error', async () => {
    const entry = server().catalog.find((e) => e.id === 'test-vad-silero')!;
    const refused: FetchFunction = () => Promise.reject(new Error('proxy refused the connection'));
    const served = server().requests.length;
    await assert.rejects(fetchModel(entry, { root: tempDir('lva-fetch-'), fetch: refused, attempts: 1 }), /proxy refused the connection/);
    assert.equal(server().requests.length, served, 'Node fetch was not used instead');
  });

  it("the controller's first-run download goes through ControllerOptions.fetch", async () => {
    const { fetch: injected, urls } = recordingFetch();
    const { controller } = firstRunController(tempDir('lva-fetch-first-'), server().catalog, { fetch: injected });
    try {
      await controller.start();
      const status = () => controller.snapshot().status;
      assert.equal(status().phase, 'setup');
      const planned = status().setup!.models.map((m) => m.id);
      const served = server().requests.length;
      controller.command({ type: 'download-models' });
      for (const end = Date.now() + 60_000; status().phase !== 'ready'; await sleep(25)) {
        assert.ok(Date.now() < end, `timed out, phase ${status().phase}: ${status().setup?.error ?? status().error}`);
      }
      const expected = server().catalog.filter((e) => planned.includes(e.id)).flatMap((e) => e.files.map((f) => f.url!));
      assert.deepEqual(urls.sort(), expected.sort());
      assert.equal(server().requests.length - served, urls.length, 'no request went around it');
    } finally {
      await controller.dispose();
    }
  });
});
