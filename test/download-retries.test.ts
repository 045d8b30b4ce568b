/**
 * Download retries: a flaky front on 127.0.0.1 before the local model server (test/model-server.ts)
 * answers 5xx or drops the connection as scripted, then passes requests through. The downloader
 * tries again with backoff, says why and which try is next, installs the verified model, and after
 * its last try fails in one sentence with nothing installed.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fetchModel, verifyModel, type FileProgress } from '../native-models/downloader';
import type { ModelEntry } from '../native-models/types';
import { tempDir } from './helpers';
import { startModelServer, type ModelServer } from './model-server';

/** What the front does with each request, in order; once the script is used up, it passes through. */
type Act = '503' | '500' | 'drop' | 'cut';

describe('download retries (5xx and dropped connections)', () => {
  let models: ModelServer;
  let front: http.Server;
  let base = '';
  let script: Act[] = [];
  const seen: (Act | 'pass')[] = [];

  before(async () => {
    models = await startModelServer();
    front = http.createServer((req, res) => {
      const act = script.shift() ?? 'pass';
      seen.push(act);
      if (act === '503' || act === '500') {
        res.writeHead(Number(act), act === '503' ? 'Service Unavailable' : 'Internal Server Error').end('try later');
        return;
      }
      if (act === 'drop') {
        // Closed before a byte of the answer: a reset connection.
        req.socket.destroy();
        return;
      }
      void (async () => {
        const upstream = await fetch(models.base + (req.url ?? '/').replace(/^\/+/, ''));
        const body = Buffer.from(await upstream.arrayBuffer());
        res.writeHead(upstream.status, { 'Content-Length': body.length });
        if (act === 'cut') {
          // A third of the file, then the connection breaks.
          res.write(body.subarray(0, Math.floor(body.length / 3)));
          setTimeout(() => res.socket?.destroy(), 30);
          return;
        }
        res.end(body);
      })();
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
  });
  after(async () => {
    front.closeAllConnections();
    front.close();
    await models.close();
  });

  /** The test VAD (one file, with size and sha256 in the catalog), fetched through the front. */
  function vadEntry(): ModelEntry {
    const e = models.catalog.find((m) => m.kind === 'vad' && m.files.length === 1 && m.files[0]!.sha256);
    assert.ok(e, 'the test catalog has a one-file VAD with a checksum');
    return { ...e, files: e.files.map((f) => ({ ...f, url: f.url!.replace(models.base, base) })) };
  }

  async function fetchThroughFront(acts: Act[], attempts = 4) {
    script = [...acts];
    seen.length = 0;
    const root = tempDir('lva-retry-');
    const progress: FileProgress[] = [];
    const entry = vadEntry();
    const result = await fetchModel(entry, { root, attempts, backoffMs: 5, onProgress: (p) => progress.push(p) }).then(
      (r) => ({ ok: true as const, r }),
      (e: Error) => ({ ok: false as const, e }),
    );
    return { root, entry, progress, result, retries: progress.filter((p) => p.phase === 'retrying').map((p) => p.message ?? '') };
  }

  it('503 twice, then the file: installed on the third try, each retry saying why and which try is next', async () => {
    const { root, entry, result, retries } = await fetchThroughFront(['503', '503']);
    assert.ok(result.ok, result.ok ? '' : result.e.message);
    assert.deepEqual(seen, ['503', '503', 'pass']);
    assert.equal(retries.length, 2, JSON.stringify(retries));
    assert.match(retries[0]!, /^127\.0\.0\.1:\d+ answered 503 Service Unavailable; trying again in .+ \(try 2 of 4\)$/);
    assert.match(retries[1]!, /\(try 3 of 4\)$/);
    assert.deepEqual(await verifyModel(entry, root), { id: entry.id, ok: true, problems: [] });
  });

  it('a connection reset before any byte, then one cut a third of the way: retried, installed whole', async () => {
    const { root, entry, result, retries } = await fetchThroughFront(['drop', 'cut']);
    assert.ok(result.ok, result.ok ? '' : result.e.message);
    assert.deepEqual(seen, ['drop', 'cut', 'pass']);
    assert.equal(retries.length, 2, JSON.stringify(retries));
    assert.match(retries[1]!, /connection to 127\.0\.0\.1:\d+ (was cut|closed after \d+ of \d+ bytes); trying again in .+ \(try 3 of 4\)$/);
    assert.deepEqual(await verifyModel(entry, root), { id: entry.id, ok: true, problems: [] });
    const dir = path.join(root, entry.dir ?? entry.id);
    assert.deepEqual(readdirSync(dir), [entry.files[0]!.name], 'no .partial or .lock left');
  });

  it('5xx on every try: fails after the last one in one sentence, nothing installed, what arrived kept for a resume', async () => {
    const { root, entry, result, progress, retries } = await fetchThroughFront(['500', 'cut', '500'], 3);
    assert.equal(result.ok, false);
    assert.deepEqual(seen, ['500', 'cut', '500'], 'three tries, no fourth');
    assert.equal(retries.length, 2);
    const message = result.ok ? '' : result.e.message;
    assert.match(message, /^Could not download .+ of model test-[\w-]+: 127\.0\.0\.1:\d+ answered 500 Internal Server Error \(3 tries\)\. Check the connection and try again; it resumes where it stopped\.$/);
    const failed = progress.at(-1)!;
    assert.equal(failed.phase, 'failed');
    assert.match(failed.message ?? '', /^Download failed: 127\.0\.0\.1:\d+ answered 500 Internal Server Error \(3 tries\)\.$/);
    assert.doesNotMatch(failed.message ?? '', /http:\/\//, 'the row names the host, not the URL');
    const file = path.join(root, entry.dir ?? entry.id, entry.files[0]!.name);
    assert.equal(existsSync(file), false, 'nothing installed');
    assert.equal(existsSync(`${file}.partial`), true, 'the third of the file that arrived is kept');
  });
});
