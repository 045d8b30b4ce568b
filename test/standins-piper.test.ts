/**
 * The Piper VITS real-size stand-in (native-models/standins/piper-vits.ts): written at the small
 * scale in both forms, found by the resolver and run by the model check in its own process, as
 * `npm run models -- verify --load` does, it speaks a sentence for as long as real speech lasts.
 * The full-scale graph is built in memory only, to count its parameters.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkModel } from '../electron/model-check/check';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel } from '../native-models/resolver';
import { GraphBuilder } from '../native-models/standins/onnx-graph';
import { buildPiperVits, piperVitsStandin, type PiperForm } from '../native-models/standins/piper-vits';
import type { ModelEntry } from '../native-models/types';
import { tempDir } from './helpers';

const ENTRY = DEFAULT_CATALOG.find((e) => e.id === 'vits-piper-en_US-libritts_r-medium-int8')!;

describe('piper vits stand-in', () => {
  const root = tempDir('lva-standins-piper-');
  after(() => rmSync(root, { recursive: true, force: true }));

  /** Writes one form under its own id (the catalog's file names), then checks it like the app. */
  async function speak(form: PiperForm): Promise<{ seconds: number; model: Buffer }> {
    // No sizes or hashes: the stand-in has the layout, not the bytes.
    const entry: ModelEntry = { ...ENTRY, id: `piper-${form}`, files: ENTRY.files.map(({ name }) => ({ name })), archive: undefined };
    const written = await piperVitsStandin(form).write(modelDir(root, entry), entry, { scale: 'small', seed: 7 });
    assert.deepEqual(written.files.map((f) => f.name).sort(), ENTRY.files.map((f) => f.name).sort());
    assert.ok(written.files.every((f) => f.bytes > 0 && f.bytes < 4e6), JSON.stringify(written.files));
    const check = await checkModel(await resolveModel(entry, [root]), { timeoutMs: 60_000 });
    assert.ok(check.ok, check.ok ? '' : check.reason);
    const seconds = Number(/^spoke (\d+\.\d) s at 22050 Hz$/.exec(check.detail)?.[1]);
    return { seconds, model: readFileSync(path.join(modelDir(root, entry), 'en_US-libritts_r-medium.onnx')) };
  }

  it('loads and speaks "Hello, I am ready." for about a second in both forms', async () => {
    const [int8, fp32] = await Promise.all([speak('int8'), speak('fp32')]);
    // 19 espeak symbols, 11 phonemes: real speech takes about 1 s.
    for (const r of [int8, fp32]) assert.ok(r.seconds >= 0.6 && r.seconds <= 1.8, `spoke ${r.seconds} s`);
    // The same weights in both forms: the same durations.
    assert.equal(int8.seconds, fp32.seconds);
    // int8 is onnxruntime's dynamic quantization; fp32 has none of its operators.
    for (const op of ['DynamicQuantizeLinear', 'ConvInteger', 'DequantizeLinear']) {
      assert.ok(int8.model.includes(op), `int8 has ${op}`);
      assert.ok(!fp32.model.includes(op), `fp32 has no ${op}`);
    }
    assert.ok(int8.model.includes('ConvTranspose'), 'the upsampling stays float32');
  });

  it('has the published parameter count at full scale', () => {
    const g = new GraphBuilder(1);
    buildPiperVits(g, 'int8', 'full');
    const published = piperVitsStandin().publishedParameters;
    assert.ok(Math.abs(g.parameters / published - 1) < 0.05, `${g.parameters} parameters against ${published}`);
  });
});
