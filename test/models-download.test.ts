/**
 * The model downloader against a real HTTP server on 127.0.0.1 (started here) serving fixture
 * bytes: complete download, resume after a cut, checksum mismatch, 404, a stalled server, cancel,
 * two fetches at once, an archive model, and the `models` CLI with its progress bar.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fetchModel, verifyModel, type FileProgress } from '../native-models/downloader';
import { progressLine } from '../native-models/progress-bar';
import { recommendLlm, type Hardware } from '../native-models/recommend';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import type { ModelEntry } from '../native-models/types';
import { runCli, tempDir } from './helpers';

const SIZE = 1024 * 1024 + 123;
const DATA = randomBytes(SIZE);
const SHA = createHash('sha256').update(DATA).digest('hex');
const HALF = 512 * 1024;

interface Served {
  path: string;
  range: string | undefined;
  bytes: number;
}

/** Routes: /ok, /cut (the first full request breaks off halfway), /stall, /slow, /404, /archive.tar.gz. */
function startServer(archive: Buffer) {
  const log: Served[] = [];
  let cutDone = false;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const entry: Served = { path: url, range: req.headers.range, bytes: 0 };
    log.push(entry);
    const body = url.startsWith('/archive') ? archive : DATA;
    if (url.startsWith('/404')) {
      res.writeHead(404, 'Not Found').end('no such model');
      return;
    }
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    const part = body.subarray(from);
    const headers: Record<string, string | number> = { 'Content-Length': part.length, 'Accept-Ranges': 'bytes' };
    if (m) headers['Content-Range'] = `bytes ${from}-${body.length - 1}/${body.length}`;
    res.writeHead(m ? 206 : 200, headers);
    const send = (chunk: Buffer) => {
      entry.bytes += chunk.length;
      res.write(chunk);
    };
    if (url.startsWith('/cut') && !cutDone && from === 0) {
      cutDone = true;
      send(part.subarray(0, HALF));
      // Let the bytes leave, then break the connection as a flaky network would.
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (url.startsWith('/stall')) {
      send(part.subarray(0, 1000)); // then nothing, forever
      return;
    }
    if (url.startsWith('/slow')) {
      let o = 0;
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        send(part.subarray(o, o + 32 * 1024));
        o += 32 * 1024;
        if (o >= part.length) {
          clearInterval(tick);
          res.end();
        }
      }, 20);
      return;
    }
    send(part);
    res.end();
  });
  return { server, log };
}

function entry(id: string, url: string, extra: Partial<ModelEntry['files'][number]> = {}): ModelEntry {
  return {
    id,
    kind: 'vad',
    name: `fixture ${id}`,
    description: 'test fixture',
    licence: 'MIT',
    files: [{ name: 'model.bin', url, bytes: SIZE, sha256: SHA, ...extra }],
    engine: { engine: 'silero-vad', model: 'model.bin' },
  };
}

describe('model downloader (local HTTP server)', () => {
  let base = '';
  let log: Served[] = [];
  let server: http.Server;
  const work = tempDir('lva-dl-');
  const archiveFiles = { 'tokens.txt': 'a 1\nb 2\n', 'model.onnx': 'onnx bytes here' };
  let archiveEntry: ModelEntry;

  before(async () => {
    // A real .tar.gz laid out like sherpa's archives (one top folder), made with the system tar.
    const src = path.join(work, 'archive-src', 'voice-top');
    mkdirSync(src, { recursive: true });
    for (const [n, text] of Object.entries(archiveFiles)) writeFileSync(path.join(src, n), text);
    const tgz = path.join(work, 'voice.tar.gz');
    execFileSync('tar', ['-czf', tgz, '-C', path.join(work, 'archive-src'), 'voice-top']);
    const archive = readFileSync(tgz);
    const s = startServer(archive);
    server = s.server;
    log = s.log;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    archiveEntry = {
      id: 'fixture-voice',
      kind: 'tts',
      name: 'fixture voice',
      description: 'archive fixture',
      licence: 'MIT',
      files: Object.entries(archiveFiles).map(([name, text]) => ({ name, bytes: Buffer.byteLength(text) })),
      archive: { url: `${base}/archive/voice.tar.gz`, bytes: archive.length, sha256: createHash('sha256').update(archive).digest('hex'), stripComponents: 1 },
      engine: { engine: 'sherpa-tts', family: 'vits', model: 'model.onnx', tokens: 'tokens.txt' },
    };
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const served = (prefix: string) => log.filter((l) => l.path.startsWith(prefix));

  it('downloads, verifies and installs a model, reporting progress', async () => {
    const root = path.join(work, 'ok');
    const progress: FileProgress[] = [];
    const r = await fetchModel(entry('m-ok', `${base}/ok/model.bin`), { root, onProgress: (p) => progress.push(p) });
    assert.deepEqual(r.downloaded, ['model.bin']);
    assert.ok(readFileSync(path.join(root, 'm-ok', 'model.bin')).equals(DATA));
    assert.deepEqual(readdirSync(path.join(root, 'm-ok')), ['model.bin'], 'no .partial or .lock left');
    assert.deepEqual([progress[0]!.phase, progress[1]!.phase, progress.at(-1)!.phase], ['connecting', 'downloading', 'done']);
    assert.match(progress[0]!.message!, /^connecting to 127\.0\.0\.1:\d+$/);
    assert.ok(progress.some((p) => p.phase === 'verifying'));
    assert.equal(progress.at(-1)!.receivedBytes, SIZE);
    assert.deepEqual(await verifyModel(entry('m-ok', ''), root), { id: 'm-ok', ok: true, problems: [] });
    // Again: already there, verified, nothing downloaded.
    const before = served('/ok').length;
    assert.deepEqual((await fetchModel(entry('m-ok', `${base}/ok/model.bin`), { root })).downloaded, []);
    assert.equal(served('/ok').length, before);
  });

  it('a connection cut halfway is resumed with a Range request, without fetching the first half again', async () => {
    const root = path.join(work, 'cut');
    await fetchModel(entry('m-cut', `${base}/cut/model.bin`), { root, backoffMs: 10 });
    assert.ok(readFileSync(path.join(root, 'm-cut', 'model.bin')).equals(DATA));
    const reqs = served('/cut');
    assert.equal(reqs.length, 2);
    assert.equal(reqs[0]!.range, undefined);
    assert.ok(reqs[0]!.bytes >= HALF && reqs[0]!.bytes < SIZE);
    // Resumed from what arrived: bytes the server wrote just before the cut may still have been in
    // flight (the CI once saw 150 of them lost), never from past what was sent.
    const start = Number(/^bytes=(\d+)-$/.exec(reqs[1]!.range ?? '')?.[1]);
    assert.ok(start <= reqs[0]!.bytes && start >= HALF - 256 * 1024, `resumed at ${reqs[1]!.range}, ${reqs[0]!.bytes} sent`);
    assert.equal(start + reqs[1]!.bytes, SIZE, 'the rest fetched once');
  });

  it('a checksum mismatch installs nothing, deletes the download and names the model and URL', async () => {
    const root = path.join(work, 'bad');
    const url = `${base}/ok/bad.bin`;
    await assert.rejects(fetchModel(entry('m-bad', url, { sha256: '0'.repeat(64) }), { root }), (e: Error) => {
      assert.match(e.message, /model\.bin of model m-bad from http:\/\/127\.0\.0\.1:\d+\/ok\/bad\.bin has sha256 [0-9a-f]{64}, the catalog says 0{64}\. The file was deleted/);
      return true;
    });
    assert.deepEqual(readdirSync(path.join(root, 'm-bad')), []);
  });

  it('a 404 is a clear error at once (no retries)', async () => {
    const t0 = Date.now();
    await assert.rejects(fetchModel(entry('m-404', `${base}/404/model.bin`), { root: path.join(work, '404') }), /m-404: http:\/\/127\.0\.0\.1:\d+\/404\/model\.bin answered 404 Not Found/);
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(served('/404').length, 1);
  });

  it('a server that stalls gives a clear error within a bounded time', async () => {
    const root = path.join(work, 'stall');
    const t0 = Date.now();
    await assert.rejects(
      fetchModel(entry('m-stall', `${base}/stall/model.bin`), { root, stallTimeoutMs: 300, attempts: 2, backoffMs: 10 }),
      /Could not download model\.bin of model m-stall: 127\.0\.0\.1:\d+ stopped sending for 0\.3 s \(2 tries\)\. Check the connection/,
    );
    assert.ok(Date.now() - t0 < 3000, `gave up after ${Date.now() - t0} ms`);
    assert.equal(existsSync(path.join(root, 'm-stall', 'model.bin')), false);
  });

  it('cancel leaves no installed file; the next fetch resumes from the partial download', async () => {
    const root = path.join(work, 'cancel');
    const e = entry('m-cancel', `${base}/slow/model.bin`);
    const controller = new AbortController();
    const run = fetchModel(e, {
      root,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.receivedBytes > 200_000) controller.abort();
      },
    });
    await assert.rejects(run, /cancelled/);
    assert.equal(existsSync(path.join(root, 'm-cancel', 'model.bin')), false, 'nothing installed');
    assert.ok(existsSync(path.join(root, 'm-cancel', 'model.bin.partial')));
    assert.equal(existsSync(path.join(root, 'm-cancel', 'model.bin.lock')), false, 'the lock is released');
    await fetchModel(e, { root });
    assert.ok(readFileSync(path.join(root, 'm-cancel', 'model.bin')).equals(DATA));
    assert.match(served('/slow').at(-1)!.range ?? '', /^bytes=\d+-$/);
  });

  it('two fetches of the same model at once do not corrupt each other', async () => {
    const root = path.join(work, 'twice');
    const e = entry('m-twice', `${base}/slow/twice.bin`);
    const waits: string[] = [];
    // Either may take the lock first; the other must wait for it.
    const onProgress = (p: FileProgress) => p.phase === 'waiting' && waits.push(p.file);
    const [a, b] = await Promise.all([fetchModel(e, { root, onProgress }), fetchModel(e, { root, onProgress })]);
    assert.ok(readFileSync(path.join(root, 'm-twice', 'model.bin')).equals(DATA));
    assert.equal(a.downloaded.length + b.downloaded.length, 1, 'downloaded once');
    assert.deepEqual(waits, ['model.bin'], 'one waited for the other');
    assert.equal(served('/slow/twice').length, 1);
  });

  it('an archive model is downloaded, checked, extracted into place, and the archive removed', async () => {
    const root = path.join(work, 'archive');
    const r = await fetchModel(archiveEntry, { root });
    assert.deepEqual(r.downloaded, ['voice.tar.gz']);
    for (const [n, text] of Object.entries(archiveFiles)) assert.equal(readFileSync(path.join(root, 'fixture-voice', n), 'utf8'), text);
    assert.deepEqual(readdirSync(path.join(root, '.downloads')), []);
    assert.deepEqual(readdirSync(root).sort(), ['.downloads', 'fixture-voice']);
  });

  describe('npm run models', () => {
    let catalogFile = '';
    before(() => {
      catalogFile = path.join(work, 'catalog.json');
      writeFileSync(catalogFile, JSON.stringify([entry('cli-model', `${base}/slow/cli.bin`), entry('cli-bad', `${base}/ok/cli-bad.bin`, { sha256: 'f'.repeat(64) })]));
    });

    it('fetch prints a progress bar and installs a verified model, then runs it once; list and verify see it', async () => {
      const dir = path.join(work, 'cli');
      const r = await runCli('electron/cli/models.ts', ['fetch', 'cli-model', '--dir', dir, '--catalog', catalogFile]);
      // Right size and sha256, but random bytes: the load check catches it, in one line.
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /\nerror: The voice activity model cli-model \(in .*cli-model\) does not work: Could not load the VAD model 'cli-model'.*Delete .* and fetch it again/);
      assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('error:')).length, 1);
      assert.match(r.stderr, /cli-model\/model\.bin {2}\[#{3,}-*\] +\d+% {2}[\d.]+ [KM]B \/ 1\.0 MB/);
      assert.match(r.stderr, /\[#{30}\] 100% {2}1\.0 MB \/ 1\.0 MB {2}done/);
      assert.match(r.stdout, /cli-model: downloaded and verified in /);
      assert.match(r.stdout, /FAILED cli-model/);
      const list = await runCli('electron/cli/models.ts', ['list', '--json', '--dir', dir, '--catalog', catalogFile]);
      const rows = JSON.parse(list.stdout) as { id: string; kind: string; licence: string; installed: boolean; files: { name: string; url: string; bytes: number; sha256: string }[] }[];
      assert.deepEqual(rows.map((x) => [x.id, x.kind, x.licence, x.installed]), [['cli-model', 'vad', 'MIT', true], ['cli-bad', 'vad', 'MIT', false]]);
      assert.deepEqual(rows[0]!.files, [{ name: 'model.bin', url: `${base}/slow/cli.bin`, bytes: SIZE, sha256: SHA }]);
      const verify = await runCli('electron/cli/models.ts', ['verify', '--dir', dir, '--catalog', catalogFile]);
      assert.equal(verify.code, 0, verify.stderr);
      assert.match(verify.stdout, /ok +cli-model/);
    });

    it('a wrong checksum exits non-zero with one error line; a bad catalog names its problems', async () => {
      const dir = path.join(work, 'cli-bad');
      const r = await runCli('electron/cli/models.ts', ['fetch', 'cli-bad', '--dir', dir, '--catalog', catalogFile]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^error: model\.bin of model cli-bad from .* has sha256/m);
      // The published file changed: the same line names another model of the kind to fetch instead.
      assert.match(r.stderr, /^error: .* has sha256 .* Another vad model works instead: `npm run models -- fetch cli-model`\.$/m);
      assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('error:')).length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      const broken = path.join(work, 'broken.json');
      writeFileSync(broken, JSON.stringify([{ id: 'x y', kind: 'asr', defaultFor: 'tpu', files: [{ name: 'a', sha256: 'nope' }] }]));
      const b = await runCli('electron/cli/models.ts', ['list', '--catalog', broken]);
      assert.equal(b.code, 1);
      assert.match(b.stderr, /\[0\]\.id must be a name.*\[0\]\.kind must be one of vad, stt, llm, tts, turn.*\[0\]\.files\[0\]\.sha256 must be 64 hex digits.*\[0\]\.defaultFor must be "cpu" or "gpu"/);
      const unknown = await runCli('electron/cli/models.ts', ['fetch', 'nope', '--catalog', catalogFile]);
      assert.match(unknown.stderr, /error: Unknown model "nope"\. Known: cli-model, cli-bad\./);
    });
  });
});

describe('LLM recommendation', () => {
  const hw = (h: Partial<Hardware>): Hardware => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 16384, ...h });

  it('CPU only: the CPU default; a GPU it fits: the GPU default; too little VRAM: the CPU default; a model that is no default is never offered', () => {
    assert.equal(recommendLlm(hw({})).id, 'qwen2.5-1.5b-instruct-q4_k_m');
    assert.match(recommendLlm(hw({})).reason, /No usable GPU/);
    const big = recommendLlm(hw({ backend: 'cuda', gpuNames: ['NVIDIA GeForce RTX 4070'], vramMiB: 12282 }));
    assert.equal(big.id, 'qwen3-4b-instruct-2507-q4_k_m', 'a 12 GB GPU gets the GPU default, not the 7B that also fits');
    assert.match(big.reason, /12 GB on NVIDIA GeForce RTX 4070 \(cuda\) fits this model .*, the largest default\.$/);
    assert.equal(recommendLlm(hw({ backend: 'vulkan', gpuNames: ['iGPU'], vramMiB: 4096 })).id, 'qwen3-4b-instruct-2507-q4_k_m');
    const small = recommendLlm(hw({ backend: 'vulkan', gpuNames: ['iGPU'], vramMiB: 3072 }));
    assert.equal(small.id, 'qwen2.5-1.5b-instruct-q4_k_m');
    assert.match(small.reason, /the next size up needs about 2\.\d GB of memory/);
    assert.match(recommendLlm(hw({ backend: 'vulkan', vramMiB: 1024 })).reason, /less than even the smallest model needs/);
    // Apple silicon: the GPU shares RAM.
    assert.equal(recommendLlm(hw({ backend: 'metal', unifiedMemory: true, ramMiB: 16384, vramMiB: 10923 })).id, 'qwen3-4b-instruct-2507-q4_k_m');
    assert.equal(recommendLlm(hw({ backend: 'metal', unifiedMemory: true, ramMiB: 6144, vramMiB: 4096 })).id, 'qwen2.5-1.5b-instruct-q4_k_m');
    assert.ok(DEFAULT_CATALOG.some((e) => e.id === big.id));
    // One default per tier, each downloadable; Qwen2.5 7B stays in the catalog, selectable.
    const llms = DEFAULT_CATALOG.filter((e) => e.kind === 'llm');
    assert.deepEqual(llms.filter((e) => e.defaultFor).map((e) => e.defaultFor).sort(), ['cpu', 'gpu']);
    assert.ok(llms.some((e) => e.id === 'qwen2.5-7b-instruct-q4_k_m' && !e.defaultFor));
  });

  it('a catalog that marks no defaults offers the largest size that fits', () => {
    const plain = DEFAULT_CATALOG.map(({ defaultFor: _d, ...e }) => e);
    assert.equal(recommendLlm(hw({ backend: 'cuda', vramMiB: 12282 }), plain).id, 'qwen2.5-7b-instruct-q4_k_m');
    assert.match(recommendLlm(hw({ backend: 'cuda', vramMiB: 12282 }), plain).reason, /the largest in the catalog\.$/);
    assert.equal(recommendLlm(hw({}), plain).id, 'qwen2.5-1.5b-instruct-q4_k_m');
  });

  it('the progress line shows bar, bytes, speed and time left', () => {
    const line = progressLine({ modelId: 'm', file: 'f.gguf', phase: 'downloading', receivedBytes: 512 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024, bytesPerSecond: 10 * 1024 * 1024, etaSeconds: 51.2 }, 10);
    assert.equal(line, 'm/f.gguf  [#####-----]  50%  512 MB / 1.0 GB  10 MB/s  52 s left');
  });
});
