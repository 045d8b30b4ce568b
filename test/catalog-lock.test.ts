/**
 * `npm run models -- lock` against the local model server (real downloads over HTTP on 127.0.0.1):
 * a matching model, a wrong sha256, unknown values filled by --write, a value still marked
 * unconfirmed, an archive measured whole and file by file, and the exit status a release gates on.
 * Expected values are measured here from the served files, independently of the lock code.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isUserError } from '../electron/errors';
import { loadCatalogFile } from '../native-models/catalog-file';
import { lockCatalog } from '../native-models/catalog-lock';
import type { ModelEntry } from '../native-models/types';
import { MODELS_DIR } from './engine-fixtures';
import { runCli, tempDir } from './helpers';
import { startModelServer, type ModelServer } from './model-server';

const measured = (file: string) => ({ bytes: statSync(file).size, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') });
const VOICE_FILES = ['echo-piper.onnx', 'tokens.txt'];

describe('models lock (local HTTP server)', () => {
  const work = tempDir('lva-lock-test-');
  const tgz = path.join(work, 'voice.tar.gz');
  let server: ModelServer;
  let catalogFile = '';
  let original: ModelEntry[] = [];

  const byId = (c: ModelEntry[], id: string) => c.find((e) => e.id === id)!;
  const lockCli = (...args: string[]) => runCli('electron/cli/models.ts', ['lock', ...args]);

  before(async () => {
    // An archive laid out like sherpa's voices: one top folder with the model, tokens and espeak-ng-data/.
    const top = path.join(work, 'src', 'voice-top');
    mkdirSync(path.join(top, 'espeak-ng-data'), { recursive: true });
    for (const f of VOICE_FILES) cpSync(path.join(MODELS_DIR, 'tts-synthetic', f), path.join(top, f));
    writeFileSync(path.join(top, 'espeak-ng-data', 'phontab'), 'stand-in');
    execFileSync('tar', ['-czf', tgz, '-C', path.join(work, 'src'), 'voice-top']);
    server = await startModelServer({ 'archives/voice.tar.gz': tgz });

    const vad = byId(server.catalog, 'test-vad-silero');
    const llm = byId(server.catalog, 'test-llm-stories260k');
    const stt = byId(server.catalog, 'test-stt-espeak-ctc');
    original = [
      vad,
      // A wrong sha256: the publisher's file changed, or the catalog is wrong.
      { ...llm, files: [{ ...llm.files[0]!, sha256: '0'.repeat(64) }] },
      // model.onnx: nothing known; tokens.txt: right values, still marked unconfirmed.
      { ...stt, files: [{ name: 'model.onnx', url: stt.files[0]!.url, unconfirmed: true }, { ...stt.files[1]!, unconfirmed: true }] },
      {
        id: 'test-voice-archive',
        kind: 'tts',
        name: 'archive voice',
        description: 'test archive',
        licence: 'MIT',
        archive: { url: `${server.base}archives/voice.tar.gz`, stripComponents: 1, unconfirmed: true },
        files: VOICE_FILES.map((name) => ({ name, unconfirmed: true })),
        engine: { engine: 'sherpa-tts', family: 'vits', model: 'echo-piper.onnx', tokens: 'tokens.txt', dataDir: 'espeak-ng-data' },
      },
    ];
    catalogFile = path.join(work, 'catalog.json');
    writeFileSync(catalogFile, JSON.stringify(original, null, 2));
  });
  after(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('reports every difference and unknown value, changes nothing and exits 1', async () => {
    const before = readFileSync(catalogFile, 'utf8');
    const r = await lockCli('--catalog', catalogFile);
    assert.equal(r.code, 1, r.stderr);
    const gguf = measured(path.join(MODELS_DIR, 'llm', 'stories260K.gguf'));
    const onnx = measured(path.join(MODELS_DIR, 'stt', 'espeak-ctc-en', 'model.onnx'));
    const archive = measured(tgz);
    assert.match(r.stdout, /^test-vad-silero: ok$/m);
    assert.ok(r.stdout.includes(`test-llm-stories260k  stories260K.gguf: sha256 differs: catalog ${'0'.repeat(64)}, measured ${gguf.sha256}\n`), r.stdout);
    assert.ok(r.stdout.includes(`test-stt-espeak-ctc  model.onnx: bytes unknown in the catalog, measured ${onnx.bytes}\n`), r.stdout);
    assert.ok(r.stdout.includes(`test-stt-espeak-ctc  model.onnx: sha256 unknown in the catalog, measured ${onnx.sha256}\n`), r.stdout);
    assert.match(r.stdout, /^test-stt-espeak-ctc {2}tokens\.txt: matches, but is marked unconfirmed in the catalog$/m);
    assert.ok(r.stdout.includes(`test-voice-archive  archive voice.tar.gz: bytes unknown in the catalog, measured ${archive.bytes}\n`), r.stdout);
    for (const f of VOICE_FILES) {
      const m = measured(path.join(MODELS_DIR, 'tts-synthetic', f));
      assert.ok(r.stdout.includes(`test-voice-archive  ${f}: sha256 unknown in the catalog, measured ${m.sha256}\n`), r.stdout);
    }
    // 1 sha256 + 2 for model.onnx + 1 unconfirmed + 2 archive + 2 per voice file.
    assert.match(r.stderr, /^error: 10 difference\(s\) from the catalog\. Run it again with --write to write the measured values\.$/m);
    assert.equal(readFileSync(catalogFile, 'utf8'), before, 'nothing written without --write');
  });

  it('--write fills in the measured values; the next lock finds the catalog matching and exits 0', async () => {
    const w = await lockCli('--catalog', catalogFile, '--write');
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /Wrote 10 value\(s\) to /);
    const locked = await loadCatalogFile(catalogFile);
    assert.deepEqual(locked.map((e) => e.id), original.map((e) => e.id));
    assert.deepEqual(byId(locked, 'test-vad-silero'), original[0], 'a matching model is left as it was');
    assert.deepEqual(byId(locked, 'test-llm-stories260k').files[0], { ...original[1]!.files[0], ...measured(path.join(MODELS_DIR, 'llm', 'stories260K.gguf')) });
    const stt = byId(locked, 'test-stt-espeak-ctc');
    assert.deepEqual(stt.files, [
      { name: 'model.onnx', url: original[2]!.files[0]!.url, ...measured(path.join(MODELS_DIR, 'stt', 'espeak-ctc-en', 'model.onnx')) },
      { name: 'tokens.txt', url: original[2]!.files[1]!.url, ...measured(path.join(MODELS_DIR, 'stt', 'espeak-ctc-en', 'tokens.txt')) },
    ]);
    const voice = byId(locked, 'test-voice-archive');
    assert.deepEqual(voice.archive, { url: original[3]!.archive!.url, stripComponents: 1, ...measured(tgz) });
    assert.deepEqual(voice.files, VOICE_FILES.map((name) => ({ name, ...measured(path.join(MODELS_DIR, 'tts-synthetic', name)) })));

    const again = await lockCli('--catalog', catalogFile);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /The catalog matches what the publishers serve \(4 model\(s\)\)\./);
  });

  it('given ids, locks only those', async () => {
    const r = await lockCli('test-vad-silero', '--catalog', catalogFile);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['test-vad-silero: ok', 'The catalog matches what the publishers serve (1 model(s)).']);
  });

  it('the built-in catalog: --write is refused before any download; a local model has nothing to lock', async () => {
    const w = await lockCli('--write');
    assert.equal(w.code, 1);
    assert.match(w.stderr, /^error: --write writes a JSON catalog: add --catalog FILE\. The built-in catalog \(native-models\/catalog\.ts\) is edited by hand/m);
    const l = await lockCli('test-vad-silero');
    assert.equal(l.code, 1);
    assert.match(l.stderr, /^error: test-vad-silero is a local test model: it has no download to lock\.$/m);
  });

  it('without a catalog file, prints the values to put into catalog.ts', async () => {
    const lines: string[] = [];
    const llm = { ...byId(server.catalog, 'test-llm-stories260k') };
    llm.files = [{ name: llm.files[0]!.name, url: llm.files[0]!.url, unconfirmed: true }];
    await assert.rejects(lockCatalog({ catalog: [llm], write: false, log: (l) => lines.push(l) }), /: 2 difference\(s\) from the catalog\. Put the measured values above into native-models\/catalog\.ts\./);
    const m = measured(path.join(MODELS_DIR, 'llm', 'stories260K.gguf'));
    const bytes = m.bytes.toLocaleString('en-US').replace(/,/g, '_');
    assert.deepEqual(lines.slice(-2), [
      'Measured values for native-models/catalog.ts:',
      `  test-llm-stories260k  stories260K.gguf: bytes: ${bytes}, sha256: '${m.sha256}' (and no unconfirmed)`,
    ]);
  });

  it('an archive without a listed file or data folder: reported, not fixable by --write, temporary files removed', async () => {
    const tmpRoot = path.join(work, 'tmp');
    mkdirSync(tmpRoot);
    const file = path.join(work, 'missing.json');
    const entry: ModelEntry = {
      ...original[3]!,
      id: 'voice-missing',
      files: [...original[3]!.files, { name: 'MODEL_CARD', unconfirmed: true }],
      engine: { engine: 'sherpa-tts', family: 'vits', model: 'echo-piper.onnx', tokens: 'tokens.txt', dataDir: 'espeak-data' },
    };
    writeFileSync(file, JSON.stringify([entry]));
    const lines: string[] = [];
    await assert.rejects(lockCatalog({ catalog: [entry], catalogFile: file, write: true, log: (l) => lines.push(l) }, { tmpRoot }), (e: Error) => {
      assert.ok(isUserError(e) && e.code === 'lock-differences', String(e));
      assert.match(e.message, /2 listed file\(s\) or folder\(s\) are not in the archive: correct the file list by hand\./);
      return true;
    });
    assert.ok(lines.includes('voice-missing  MODEL_CARD: not in the archive'), lines.join('\n'));
    assert.ok(lines.includes('voice-missing  espeak-data/: not in the archive'), lines.join('\n'));
    // The values it could measure were still written.
    const written = await loadCatalogFile(file);
    assert.deepEqual(written[0]!.archive, { url: entry.archive!.url, stripComponents: 1, ...measured(tgz) });
    assert.deepEqual(written[0]!.files.at(-1), { name: 'MODEL_CARD', unconfirmed: true });
    assert.deepEqual(readdirSync(tmpRoot), [], 'the temporary download folder is removed');
  });
});
