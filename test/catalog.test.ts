import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isUserError, UserError } from '../electron/errors';
import { ALL_MODELS, DEFAULT_CATALOG, findEntry, TEST_CATALOG } from '../native-models/catalog';
import {
  defaultUserModelsDir,
  installedModels,
  isTempFileName,
  modelDir,
  pickModel,
  resolveModel,
  searchOrder,
} from '../native-models/resolver';
import { isOptionalKind, REQUIRED_KINDS, type EngineSpec } from '../native-models/types';
import { runCli } from './helpers';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedModels = path.resolve(repoRoot, '../shared/models');
const roots = [sharedModels];

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'lva-catalog-'));
  tempDirs.push(d);
  return d;
}
after(async () => {
  for (const d of tempDirs) await rm(d, { recursive: true, force: true });
});

/** File names an engine spec refers to (every string field except the non-file ones). */
function engineFileRefs(spec: EngineSpec): string[] {
  const notFiles = new Set(['engine', 'family', 'dataDir', 'modelType']);
  return Object.entries(spec)
    .filter(([k, v]) => !notFiles.has(k) && typeof v === 'string')
    .map(([, v]) => v as string);
}

async function rejectsUserError(p: Promise<unknown>, code: string): Promise<UserError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isUserError(e), `expected a UserError, got ${String(e)}`);
    assert.equal(e.code, code);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('catalog', () => {
  test('ids are unique and findEntry finds each', () => {
    const ids = ALL_MODELS.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const e of ALL_MODELS) assert.equal(findEntry(e.id), e);
    assert.equal(findEntry('no-such-model'), undefined);
    assert.deepEqual(ALL_MODELS, [...DEFAULT_CATALOG, ...TEST_CATALOG]);
  });

  test('defaults cover every kind, with the stt streaming model first', () => {
    for (const kind of ['vad', 'stt', 'llm', 'tts', 'turn'] as const) {
      assert.ok(DEFAULT_CATALOG.some((e) => e.kind === kind), kind);
    }
    const stt = DEFAULT_CATALOG.filter((e) => e.kind === 'stt');
    assert.equal(stt[0]?.engine.engine, 'sherpa-online');
    assert.ok(stt.some((e) => e.engine.engine === 'sherpa-offline'));
    // The CPU default first (the llm default where none is chosen), the GPU default, Qwen2.5 7B selectable.
    assert.deepEqual(DEFAULT_CATALOG.filter((e) => e.kind === 'llm').map((e) => [e.id, e.defaultFor ?? null]), [
      ['qwen2.5-1.5b-instruct-q4_k_m', 'cpu'],
      ['qwen3-4b-instruct-2507-q4_k_m', 'gpu'],
      ['qwen2.5-7b-instruct-q4_k_m', null],
    ]);
    // The fp32 Piper voice first (the tts default: faster than its int8 build on x86), the int8 build, Kokoro.
    assert.deepEqual(DEFAULT_CATALOG.filter((e) => e.kind === 'tts').map((e) => e.id), ['vits-piper-en_US-libritts_r-medium', 'vits-piper-en_US-libritts_r-medium-int8', 'kokoro-en-v0_19']);
  });

  for (const e of ALL_MODELS) {
    test(`entry ${e.id} is well formed`, () => {
      assert.ok(['vad', 'stt', 'llm', 'tts', 'turn'].includes(e.kind));
      assert.ok(e.name.trim() && e.description.trim() && e.licence.trim());
      assert.ok(e.files.length > 0);
      const names = e.files.map((f) => f.name);
      assert.equal(new Set(names).size, names.length, 'file names unique');
      for (const f of e.files) {
        assert.ok(f.name.trim(), 'file has a name');
        assert.ok(!isTempFileName(f.name), `${f.name} looks like a download leftover`);
        if (f.url !== undefined) assert.match(f.url, /^https:\/\//);
        if (f.sha256 !== undefined) assert.match(f.sha256, /^[0-9a-f]{64}$/);
        if (f.bytes !== undefined) assert.ok(Number.isInteger(f.bytes) && f.bytes > 0);
        if (f.bytes === undefined || f.sha256 === undefined) {
          assert.equal(f.unconfirmed, true, `${f.name} lacks bytes or sha256 but is not marked unconfirmed`);
        }
      }
      if (e.archive) {
        assert.match(e.archive.url, /^https:\/\//);
        if (e.archive.sha256 !== undefined) assert.match(e.archive.sha256, /^[0-9a-f]{64}$/);
        if (e.archive.bytes === undefined || e.archive.sha256 === undefined) assert.equal(e.archive.unconfirmed, true);
      }
      for (const ref of engineFileRefs(e.engine)) assert.ok(names.includes(ref), `engine refers to ${ref}`);
      if (e.local) {
        assert.ok(e.dir, 'local entries name their folder');
      } else {
        // A downloadable model needs a source for every file.
        assert.ok(e.archive || e.files.every((f) => f.url), 'every file can be downloaded');
      }
      if (e.kind === 'llm' && !e.local) assert.ok(e.memoryMiB && e.memoryMiB > 0);
      const engineKind: Record<EngineSpec['engine'], string> = {
        'silero-vad': 'vad',
        'sherpa-online': 'stt',
        'sherpa-offline': 'stt',
        'llama-gguf': 'llm',
        'sherpa-tts': 'tts',
        'smart-turn': 'turn',
      };
      assert.equal(engineKind[e.engine.engine], e.kind);
    });
  }
});

describe('the end-of-turn model', () => {
  test('Smart Turn v3.2 CPU: pinned file, size, sha256 (unconfirmed until locked), licence; optional', () => {
    const e = findEntry('smart-turn-v3.2-cpu')!;
    assert.equal(e.kind, 'turn');
    assert.equal(e.licence, 'BSD-2-Clause');
    assert.equal(e.source, 'https://huggingface.co/pipecat-ai/smart-turn-v3');
    assert.deepEqual(e.engine, { engine: 'smart-turn', model: 'smart-turn-v3.2-cpu.onnx' });
    assert.deepEqual(e.files, [
      {
        name: 'smart-turn-v3.2-cpu.onnx',
        url: 'https://huggingface.co/pipecat-ai/smart-turn-v3/resolve/f766f81d3cfdf7737ac64aad813d91bbfd56bf93/smart-turn-v3.2-cpu.onnx',
        bytes: 8_679_182,
        sha256: '2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f',
        unconfirmed: true,
      },
    ]);
    assert.equal(isOptionalKind('turn'), true);
    assert.deepEqual(REQUIRED_KINDS, ['vad', 'stt', 'llm', 'tts']);
  });

  test('the stand-in in shared/models/turn is found, and is the only turn model there', async () => {
    const turn = await pickModel('turn', roots);
    assert.equal(turn.entry.id, 'test-turn-eot-espeak');
    assert.equal(turn.paths['eot-espeak.onnx'], path.join(sharedModels, 'turn', 'eot-espeak.onnx'));
    assert.deepEqual((await installedModels('turn', roots)).map((m) => m.entry.id), ['test-turn-eot-espeak']);
  });
});

describe('resolver with the shared test models', () => {
  test('pickModel finds each kind', async () => {
    const vad = await pickModel('vad', roots);
    assert.equal(vad.entry.id, 'test-vad-silero');
    assert.equal(vad.paths['silero_vad.onnx'], path.join(sharedModels, 'vad', 'silero_vad.onnx'));

    const stt = await pickModel('stt', roots);
    assert.equal(stt.entry.id, 'test-stt-espeak-ctc-streaming');
    assert.equal(stt.dir, path.join(sharedModels, 'stt/espeak-ctc-en-streaming'));
    assert.ok(stt.paths['model.onnx'] && stt.paths['tokens.txt']);

    const llm = await pickModel('llm', roots);
    assert.equal(llm.entry.id, 'test-llm-stories260k');

    const tts = await pickModel('tts', roots);
    assert.equal(tts.entry.id, 'test-tts-formant');
  });

  test('a preferred id picks the offline STT', async () => {
    const stt = await pickModel('stt', roots, 'test-stt-espeak-ctc');
    assert.equal(stt.entry.id, 'test-stt-espeak-ctc');
    assert.equal(stt.entry.engine.engine, 'sherpa-offline');
    assert.equal(stt.paths['model.onnx'], path.join(sharedModels, 'stt/espeak-ctc-en/model.onnx'));
  });

  test('installedModels lists the installed ones in catalog order', async () => {
    const stt = await installedModels('stt', roots);
    assert.deepEqual(
      stt.map((m) => m.entry.id),
      ['test-stt-espeak-ctc-streaming', 'test-stt-espeak-ctc'],
    );
    const tts = await installedModels('tts', roots);
    assert.deepEqual(
      tts.map((m) => m.entry.id),
      ['test-tts-formant', 'test-tts-echo'],
    );
  });

  test('an unknown or wrong-kind preferred id lists the known ids', async () => {
    const e = await rejectsUserError(pickModel('stt', roots, 'nope'), 'model-unknown');
    assert.match(e.message, /nope/);
    assert.match(e.message, /test-stt-espeak-ctc-streaming/);
    const e2 = await rejectsUserError(pickModel('stt', roots, 'test-llm-stories260k'), 'model-unknown');
    assert.match(e2.message, /llm model, not a stt model/);
  });
});

describe('resolver errors', () => {
  test('a missing model names the id, the file, where it looked and how to get it', async () => {
    const empty = await tempDir();
    const entry = findEntry('silero-vad')!;
    const e = await rejectsUserError(resolveModel(entry, [empty]), 'model-missing');
    assert.match(e.message, /silero-vad/);
    assert.match(e.message, /Silero VAD/);
    assert.match(e.message, /silero_vad\.onnx/);
    assert.ok(e.message.includes(modelDir(empty, entry)));
    assert.match(e.message, /npm run models -- fetch silero-vad/);
    assert.match(e.message, /--models DIR/);
    assert.ok(!e.message.includes('\n'), 'one line');
  });

  test('the missing file named is the one absent from the most complete copy', async () => {
    const a = await tempDir();
    const b = await tempDir();
    const entry = findEntry('test-stt-espeak-ctc')!;
    await mkdir(modelDir(b, entry), { recursive: true });
    await copyFile(path.join(sharedModels, 'stt/espeak-ctc-en/model.onnx'), path.join(modelDir(b, entry), 'model.onnx'));
    const e = await rejectsUserError(resolveModel(entry, [a, b]), 'model-missing');
    assert.match(e.message, /tokens\.txt is missing/);
    assert.ok(e.message.includes(modelDir(a, entry)) && e.message.includes(modelDir(b, entry)));
  });

  test('a .partial download is never the model, and is mentioned', async () => {
    const root = await tempDir();
    const entry = findEntry('test-vad-silero')!;
    await mkdir(modelDir(root, entry), { recursive: true });
    await copyFile(
      path.join(sharedModels, 'vad/silero_vad.onnx'),
      path.join(modelDir(root, entry), 'silero_vad.onnx.partial'),
    );
    const e = await rejectsUserError(resolveModel(entry, [root]), 'model-missing');
    assert.match(e.message, /silero_vad\.onnx\.partial/);
  });

  test('a truncated file with known bytes is reported as corrupt', async () => {
    const root = await tempDir();
    const entry = findEntry('test-vad-silero')!;
    const dest = path.join(modelDir(root, entry), 'silero_vad.onnx');
    await mkdir(path.dirname(dest), { recursive: true });
    await copyFile(path.join(sharedModels, 'vad/silero_vad.onnx'), dest);
    await truncate(dest, 1000);
    const e = await rejectsUserError(resolveModel(entry, [root]), 'model-corrupt');
    assert.match(e.message, /test-vad-silero/);
    assert.ok(e.message.includes(dest));
    assert.match(e.message, /1,000 bytes/);
    assert.match(e.message, /2,327,524 bytes/);

    // A good copy in a later root still wins over the damaged one.
    const good = await resolveModel(entry, [root, sharedModels]);
    assert.equal(good.dir, path.join(sharedModels, 'vad'));
    // pickModel prefers the corrupt report over "none installed".
    await rejectsUserError(pickModel('vad', [root], undefined, TEST_CATALOG), 'model-corrupt');
  });

  test('a folder where a file should be is not taken as the file', async () => {
    const root = await tempDir();
    const entry = findEntry('test-llm-stories260k')!;
    await mkdir(path.join(modelDir(root, entry), 'stories260K.gguf'), { recursive: true });
    await rejectsUserError(resolveModel(entry, [root]), 'model-missing');
  });

  test('a tts voice needs its espeak-ng-data folder', async () => {
    const root = await tempDir();
    const entry = findEntry('vits-piper-en_US-libritts_r-medium-int8')!;
    const dir = modelDir(root, entry);
    await mkdir(dir, { recursive: true });
    for (const f of entry.files) await writeFile(path.join(dir, f.name), 'x');
    const e = await rejectsUserError(resolveModel(entry, [root]), 'model-missing');
    assert.match(e.message, /espeak-ng-data/);
    await mkdir(path.join(dir, 'espeak-ng-data'));
    const ok = await resolveModel(entry, [root]);
    assert.equal(ok.dir, dir);
  });

  test('nothing installed names the kind, the roots and the default to fetch', async () => {
    const empty = await tempDir();
    const e = await rejectsUserError(pickModel('llm', [empty]), 'model-none-installed');
    assert.match(e.message, /No llm model/);
    assert.ok(e.message.includes(empty));
    assert.match(e.message, /npm run models -- fetch qwen2\.5-1\.5b-instruct-q4_k_m/);
  });
});

describe('search folders', () => {
  test('order is explicit > user > bundled, absolute, without blanks or duplicates', () => {
    assert.deepEqual(searchOrder({ explicit: '/x', user: '/u', bundled: '/b' }), ['/x', '/u', '/b']);
    assert.deepEqual(searchOrder({ bundled: '/b', user: '/u' }), ['/u', '/b']);
    assert.deepEqual(searchOrder({ explicit: '', user: '/u', bundled: '/u' }), ['/u']);
    assert.deepEqual(searchOrder({ explicit: 'rel' }), [path.resolve('rel')]);
  });

  test('the explicit folder wins over the user and bundled ones', async () => {
    const explicit = await tempDir();
    const user = await tempDir();
    const entry = findEntry('test-llm-stories260k')!;
    for (const root of [explicit, user]) {
      await mkdir(modelDir(root, entry), { recursive: true });
      await copyFile(path.join(sharedModels, 'llm/stories260K.gguf'), path.join(modelDir(root, entry), 'stories260K.gguf'));
    }
    const order = searchOrder({ explicit, user, bundled: sharedModels });
    assert.equal((await resolveModel(entry, order)).dir, modelDir(explicit, entry));
    assert.equal((await resolveModel(entry, searchOrder({ user, bundled: sharedModels }))).dir, modelDir(user, entry));
    assert.equal((await resolveModel(entry, searchOrder({ bundled: sharedModels }))).dir, path.join(sharedModels, 'llm'));
  });

  test('default user folder per OS', () => {
    assert.equal(
      defaultUserModelsDir('linux', {}, '/home/a'),
      '/home/a/.local/share/local-voice-assistant/models',
    );
    assert.equal(
      defaultUserModelsDir('linux', { XDG_DATA_HOME: '/data' }, '/home/a'),
      '/data/local-voice-assistant/models',
    );
    assert.equal(
      defaultUserModelsDir('linux', { XDG_DATA_HOME: 'relative' }, '/home/a'),
      '/home/a/.local/share/local-voice-assistant/models',
    );
    assert.equal(
      defaultUserModelsDir('darwin', {}, '/Users/a'),
      '/Users/a/Library/Application Support/local-voice-assistant/models',
    );
    assert.equal(
      defaultUserModelsDir('win32', { APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'C:\\Users\\a'),
      'C:\\Users\\a\\AppData\\Roaming\\local-voice-assistant\\models',
    );
    assert.ok(path.isAbsolute(defaultUserModelsDir()));
  });
});

describe('npm run models -- list --json', () => {
  test('shows url, bytes and sha256 for every file of every downloadable default model (or for its archive)', async () => {
    const r = await runCli('electron/cli/models.ts', ['list', '--json', '--dir', await tempDir()]);
    assert.equal(r.code, 0, r.stderr);
    type Listed = { url: string | null; bytes: number | null; sha256: string | null };
    const rows = JSON.parse(r.stdout) as { id: string; files: (Listed & { name: string })[]; archive?: Listed }[];
    const complete = (x: Listed, what: string) => {
      assert.match(x.url ?? '', /^https:\/\//, `${what}: url`);
      assert.ok(Number.isSafeInteger(x.bytes) && x.bytes! > 0, `${what}: bytes ${x.bytes}`);
      assert.match(x.sha256 ?? '', /^[0-9a-f]{64}$/, `${what}: sha256`);
    };
    for (const e of DEFAULT_CATALOG) {
      const row = rows.find((x) => x.id === e.id);
      assert.ok(row, `${e.id} is listed`);
      if (e.archive) {
        complete(row.archive!, `${e.id} archive`);
        assert.deepEqual(row.archive, { url: e.archive.url, bytes: e.archive.bytes, sha256: e.archive.sha256 });
      } else {
        for (const f of row.files) complete(f, `${e.id} ${f.name}`);
        assert.deepEqual(row.files, e.files.map((f) => ({ name: f.name, url: f.url, bytes: f.bytes, sha256: f.sha256 })));
      }
    }
    const turn = rows.find((x) => x.id === 'smart-turn-v3.2-cpu') as { kind?: string; bytes?: number; installed?: boolean } | undefined;
    assert.deepEqual([turn?.kind, turn?.bytes, turn?.installed], ['turn', 8_679_182, false]);
  });
});
