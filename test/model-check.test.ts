/**
 * Every model is proven to load and run before it is called ready: `npm run models -- verify --load`
 * and `fetch` run each model once in its own engine, in a separate process, so an engine that ends
 * the process on a bad file (sherpa-onnx does) is reported, not fatal.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { TEST_CATALOG } from '../native-models/catalog';
import { modelServerForSuite } from './model-server';
import { MODELS, runCli, tempDir } from './helpers';

describe('models verify --load and fetch run each model once', () => {
  it('every shared test model loads and runs', async () => {
    const ids = TEST_CATALOG.map((e) => e.id);
    const r = await runCli('electron/cli/models.ts', ['verify', '--load', '--dir', MODELS, ...ids], 300_000);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const id of ids) assert.match(r.stdout, new RegExp(`^loads  ${id}: .*\\(loaded in \\d+ ms\\)$`, 'm'));
    // What each one did on the shipped speech sample and sentence.
    assert.match(r.stdout, /loads  test-stt-espeak-ctc-streaming: heard "what is the weather like today"/);
    assert.match(r.stdout, /loads  test-vad-silero: speech probability up to (0\.9\d|1\.00) on the sample/);
    assert.match(r.stdout, /loads  test-tts-formant: spoke \d+\.\d s at 22050 Hz/);
    assert.match(r.stdout, /loads  test-llm-stories260k: first token ".*" on (cpu|vulkan|cuda|metal)/);
    assert.match(r.stdout, /loads  test-turn-eot-espeak: end-of-turn probability [01]\.\d\d on a second of the sample/);
  });

  it('an end-of-turn model that is really the VAD onnx fails with one clear line and status 1', async () => {
    const dir = tempDir('lva-check-turn-');
    mkdirSync(path.join(dir, 'wrong-turn'));
    copyFileSync(path.join(MODELS, 'vad', 'silero_vad.onnx'), path.join(dir, 'wrong-turn', 'model.onnx'));
    const catalog = path.join(dir, 'catalog.json');
    writeFileSync(
      catalog,
      JSON.stringify([
        { id: 'wrong-turn', kind: 'turn', name: 'An end-of-turn model that is really the VAD', description: 'wrong model', licence: 'MIT', local: true, files: [{ name: 'model.onnx' }], engine: { engine: 'smart-turn', model: 'model.onnx' } },
      ]),
    );
    const r = await runCli('electron/cli/models.ts', ['verify', '--load', 'wrong-turn', '--dir', dir, '--catalog', catalog]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const errors = r.stderr.split('\n').filter((l) => l.trim() && !/^npm warn/.test(l));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(errors[0]!, /^error: The end-of-turn model wrong-turn \(in .*wrong-turn\) does not work: .+\. Replace it with a good copy, or choose another model\.$/);
    assert.match(r.stdout, /^FAILED wrong-turn$/m);
  });

  it('a voice whose model is the VAD onnx fails with one clear line and status 1', async () => {
    const dir = tempDir('lva-check-');
    mkdirSync(path.join(dir, 'wrong-voice'));
    copyFileSync(path.join(MODELS, 'vad', 'silero_vad.onnx'), path.join(dir, 'wrong-voice', 'model.onnx'));
    copyFileSync(path.join(MODELS, 'tts-synthetic', 'tokens.txt'), path.join(dir, 'wrong-voice', 'tokens.txt'));
    const catalog = path.join(dir, 'catalog.json');
    writeFileSync(
      catalog,
      JSON.stringify([
        {
          id: 'wrong-voice',
          kind: 'tts',
          name: 'A voice that is really the VAD',
          description: 'wrong layout',
          licence: 'MIT',
          local: true,
          files: [{ name: 'model.onnx' }, { name: 'tokens.txt' }],
          engine: { engine: 'sherpa-tts', family: 'vits', model: 'model.onnx', tokens: 'tokens.txt', dataDir: 'system' },
        },
      ]),
    );
    const r = await runCli('electron/cli/models.ts', ['verify', '--load', 'wrong-voice', '--dir', dir, '--catalog', catalog]);
    assert.equal(r.code, 1);
    const errors = r.stderr.split('\n').filter((l) => l.trim());
    assert.equal(errors.length, 1, r.stderr);
    assert.match(
      errors[0]!,
      /^error: The voice wrong-voice \(in .*wrong-voice\) does not work: the engine ended the process \(status \d+\): 'sample_rate' does not exist in the metadata\. Replace it with a good copy, or choose another model\.$/,
    );
    assert.match(r.stdout, /^FAILED wrong-voice$/m);
  });

  describe('fetch with no ids', () => {
    const server = modelServerForSuite();

    it('shows the set this machine needs, fetches it and runs each model; a second run has nothing to do', async () => {
      const dir = tempDir('lva-fetch-all-');
      const catalog = path.join(dir, 'catalog.json');
      writeFileSync(catalog, JSON.stringify(server().catalog));
      const models = path.join(dir, 'models');
      const r = await runCli('electron/cli/models.ts', ['fetch', '--dir', models, '--catalog', catalog], 300_000);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const plan = r.stdout.slice(0, r.stdout.indexOf('total'));
      for (const id of ['test-vad-silero', 'test-stt-espeak-ctc-streaming', 'test-llm-stories260k', 'test-tts-formant', 'test-turn-eot-espeak']) {
        assert.match(plan, new RegExp(`${id} `), 'shown before the download');
        assert.match(r.stdout, new RegExp(`^loads  ${id}: `, 'm'));
      }
      assert.match(plan, /test-turn-eot-espeak .*optional$/m);
      assert.match(r.stdout, /total [\d.]+ MB/);
      // The optional end-of-turn model alone is still fetched by \`fetch\` (the app's first run would not ask for it alone).
      rmSync(path.join(models, 'turn'), { recursive: true });
      const turnOnly = await runCli('electron/cli/models.ts', ['fetch', '--dir', models, '--catalog', catalog]);
      assert.equal(turnOnly.code, 0, turnOnly.stdout + turnOnly.stderr);
      assert.deepEqual(turnOnly.stdout.match(/^loads  [\w.-]+/gm), ['loads  test-turn-eot-espeak']);
      const again = await runCli('electron/cli/models.ts', ['fetch', '--dir', models, '--catalog', catalog]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /already installed .*nothing to fetch/);
    });
  });
});
