/**
 * `npm run check:layouts`: a stand-in of every default model's layout (the transducers, the NeMo
 * TDT recognizer, the Piper and Kokoro voices, the VAD and the turn model) loads and runs through
 * the resolver, the real engines and the model check, and each language model's architecture is
 * known to the bundled llama.cpp. A layout the engine rejects is one FAILED line, not a crash.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { runCli, tempDir } from './helpers';
import { checkLayouts, layoutLine } from './layouts/check';
import { DEFAULT_LAYOUTS, type Layout } from './layouts/index';
import { ZIPFORMER_2023_06_26, zipformerEncoderMetadata, writeZipformerTransducer } from './layouts/zipformer2-transducer';

const CLI = 'electron/cli/check-layouts.ts';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The three run at once: nearly all their time is the checker processes starting (2 cores suffice).
describe('npm run check:layouts', { concurrency: true }, () => {
  it('prints one "loads" line per default model and exits 0', async () => {
    const r = await runCli(CLI, []);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, DEFAULT_CATALOG.length, r.stdout);
    DEFAULT_CATALOG.forEach((e, i) => assert.match(lines[i]!, new RegExp(`^loads  ${escape(e.id)}  \\[[^\\]]+\\]  \\S`)));
    // Each ran once: the recognizers heard their one word, the voices spoke at their rates.
    assert.match(r.stdout, /^loads  sherpa-onnx-streaming-zipformer-en-2023-06-26  \[streaming zipformer2 transducer\]  heard "HELLO"$/m);
    assert.match(r.stdout, /^loads  sherpa-onnx-nemo-parakeet-tdt-0\.6b-v2-int8  \[NeMo TDT transducer\]  heard "hello"$/m);
    assert.match(r.stdout, /^loads  vits-piper-en_US-libritts_r-medium  \[piper vits voice\]  spoke \d+\.\d s at 22050 Hz$/m);
    assert.match(r.stdout, /^loads  vits-piper-en_US-libritts_r-medium-int8  \[piper vits voice\]  spoke \d+\.\d s at 22050 Hz$/m);
    assert.match(r.stdout, /^loads  kokoro-en-v0_19  \[kokoro v0\.19 voice\]  spoke \d+\.\d s at 24000 Hz$/m);
    assert.match(r.stdout, /^loads  silero-vad  \[silero-v5 vad\]  speech probability/m);
    assert.match(r.stdout, /^loads  smart-turn-v3\.2-cpu  \[smart turn v3\]  end-of-turn probability/m);
    for (const [id, arch] of [['qwen2.5-1.5b-instruct-q4_k_m', 'qwen2'], ['qwen2.5-7b-instruct-q4_k_m', 'qwen2'], ['qwen3-4b-instruct-2507-q4_k_m', 'qwen3']] as const) {
      assert.match(r.stdout, new RegExp(`^loads  ${escape(id)}  \\[gguf ${arch}\\]  .*node-llama-cpp's one loader.*test-llm-stories260k.*knows ${arch} \\(.*GgufArchitectureType lists ${arch}`, 'm'));
    }
  });

  it('reports a transducer whose encoder lacks a metadata key as one FAILED line, and cleans up', async () => {
    const entry = DEFAULT_CATALOG.find((e) => e.id === 'sherpa-onnx-streaming-zipformer-en-2023-06-26')!;
    const { T: _dropped, ...metadata } = zipformerEncoderMetadata(ZIPFORMER_2023_06_26);
    const broken: Layout = {
      name: 'zipformer2 without T',
      write: (dir, e) => {
        const spec = e.engine as { encoder: string; decoder: string; joiner: string; tokens: string };
        writeZipformerTransducer(dir, spec, { encoderMetadata: metadata });
      },
    };
    const tmpDir = tempDir('lva-layouts-test-');
    // A default without a layout fails too, without loading anything.
    const [bad, missing] = await checkLayouts([entry, { ...entry, id: 'no-such-layout' }], { [entry.id]: broken }, { tmpDir });
    assert.deepEqual(readdirSync(tmpDir), [], 'the temporary models folder is deleted');
    rmSync(tmpDir, { recursive: true });
    assert.equal(bad!.ok, false);
    // sherpa-onnx ends the checker process on it; the check survives and says why.
    assert.equal(layoutLine(bad!), `FAILED ${entry.id}  [zipformer2 without T]  the engine ended the process (status 255): 'T' does not exist in the metadata`);
    assert.equal(missing!.ok, false);
    assert.match(layoutLine(missing!), /^FAILED no-such-layout  \[no layout\]  there is no stand-in of its layout/);
  });

  it('knows every default model, takes --help, refuses an id that is not a default', async () => {
    assert.deepEqual(Object.keys(DEFAULT_LAYOUTS).sort(), DEFAULT_CATALOG.map((e) => e.id).sort());
    const help = await runCli(CLI, ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: npm run check:layouts -- \[ID\.\.\.\]/);
    const wrong = await runCli(CLI, ['test-vad-silero']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error: Not a default model: test-vad-silero\. Default models: silero-vad, /);
  });
});
