/**
 * The streaming Zipformer2 transducer and Smart Turn v3.2 stand-ins (native-models/standins/
 * zipformer2-transducer.ts, smart-turn.ts) at their small scale: written into a temporary models
 * folder under the catalog's names, found by the resolver, loaded and run once by the model check in
 * its own process (as `npm run models -- verify --load` does: the recognizer must hear something in
 * the app's spoken sample, the end-of-turn model must give a probability), and their tensors checked
 * against the interfaces sherpa-onnx and the app read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { checkModel } from '../electron/model-check/check';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel } from '../native-models/resolver';
import { SMART_TURN_V3_2_STANDIN } from '../native-models/standins/smart-turn';
import type { StandinGenerator } from '../native-models/standins/types';
import { ZIPFORMER2_EN_2023_06_26_STANDIN } from '../native-models/standins/zipformer2-transducer';
import type { ModelEntry } from '../native-models/types';

/** The catalog entry without sizes and the archive: the stand-in has the layout, not the bytes. */
function sizeless(id: string): ModelEntry {
  const entry = DEFAULT_CATALOG.find((e) => e.id === id);
  assert.ok(entry, `${id} is not in the catalog`);
  return { ...entry, files: entry.files.map(({ name }) => ({ name })), archive: undefined };
}

/** Writes the small scale into a fresh models folder; returns the folder, the entry and the model's own directory. */
async function writeSmall(g: StandinGenerator, root: string): Promise<{ entry: ModelEntry; dir: string; parameters: number }> {
  const entry = sizeless(g.id);
  const dir = modelDir(root, entry);
  const t0 = performance.now();
  const written = await g.write(dir, entry, { scale: 'small', seed: 1 });
  assert.ok(performance.now() - t0 < 5000, `the small scale is for CI, it took ${Math.round(performance.now() - t0)} ms`);
  assert.deepEqual(written.files.map((f) => f.name).sort(), entry.files.map((f) => f.name).sort());
  for (const f of written.files) assert.ok(f.bytes < 4e6, `${f.name}: ${f.bytes} bytes at the small scale`);
  return { entry, dir, parameters: written.parameters ?? 0 };
}

const zeros = (type: string, dims: number[]) =>
  type === 'int64' ? new ort.Tensor('int64', new BigInt64Array(dims.reduce((a, b) => a * b, 1)), dims) : new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);

test('the small streaming Zipformer2 stand-in decodes through the app and keeps its caches', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lva-standin-zipformer-'));
  try {
    const { entry, dir, parameters } = await writeSmall(ZIPFORMER2_EN_2023_06_26_STANDIN, root);
    assert.ok(parameters > 2e5 && parameters < 3e6, `${parameters} parameters`);
    const check = checkModel(await resolveModel(entry, [root]), { timeoutMs: 60_000 });

    // The encoder: x, six caches per layer, embed_states and processed_lens in; encoder_out and each cache renewed, same shape, out.
    const spec = entry.engine;
    assert.ok(spec.engine === 'sherpa-online' && spec.encoder && spec.decoder && spec.joiner);
    const encoder = await ort.InferenceSession.create(path.join(dir, spec.encoder), { intraOpNumThreads: 1 });
    const meta = encoder.inputMetadata as unknown as readonly { name: string; type: string; shape: readonly (number | string)[] }[];
    assert.equal(meta[0]?.name, 'x');
    assert.ok(meta.slice(1, 7).every((m, i) => m.name === `${['cached_key', 'cached_nonlin_attn', 'cached_val1', 'cached_val2', 'cached_conv1', 'cached_conv2'][i]}_0`));
    assert.deepEqual(meta.slice(-2).map((m) => m.name), ['embed_states', 'processed_lens']);
    const feeds = Object.fromEntries(meta.map((m) => [m.name, zeros(m.type, m.shape.map((d) => (typeof d === 'number' ? d : 1)))]));
    (feeds['x']!.data as Float32Array).forEach((_, i, a) => (a[i] = Math.sin(i) * 3 - 8));
    (feeds['processed_lens']!.data as BigInt64Array)[0] = 48n;
    const out = await encoder.run(feeds);
    assert.deepEqual(encoder.outputNames, ['encoder_out', ...meta.slice(1).map((m) => `new_${m.name}`)]);
    for (const m of meta.slice(1)) assert.deepEqual(out[`new_${m.name}`]!.dims, feeds[m.name]!.dims, `new_${m.name}`);
    assert.equal(out['new_processed_lens']!.data[0], 64n);
    const encoded = out['encoder_out']!;
    assert.deepEqual(encoded.dims.slice(0, 2), [1, 8]);
    assert.ok((encoded.data as Float32Array).every(Number.isFinite));
    // The caches carry the chunk: the next call's keys and convolution state differ from the zeros that went in.
    assert.ok((out['new_cached_key_0']!.data as Float32Array).some((v) => v !== 0));
    assert.ok((out['new_cached_conv1_0']!.data as Float32Array).some((v) => v !== 0));
    await encoder.release();

    // Decoder and joiner: one frame through both gives a logit per token of tokens.txt.
    const joinerDim = encoded.dims[2]!;
    const decoder = await ort.InferenceSession.create(path.join(dir, spec.decoder), { intraOpNumThreads: 1 });
    const decoderOut = (await decoder.run({ y: zeros('int64', [1, 2]) }))['decoder_out']!;
    assert.deepEqual(decoderOut.dims, [1, joinerDim]);
    const joiner = await ort.InferenceSession.create(path.join(dir, spec.joiner), { intraOpNumThreads: 1 });
    const frame = new ort.Tensor('float32', (encoded.data as Float32Array).slice(0, joinerDim), [1, joinerDim]);
    const logit = (await joiner.run({ encoder_out: frame, decoder_out: decoderOut }))['logit']!;
    const vocab = readFileSync(path.join(dir, spec.tokens), 'utf8').trim().split('\n').length;
    assert.deepEqual(logit.dims, [1, vocab]);
    await Promise.all([decoder.release(), joiner.release()]);

    const result = await check;
    assert.ok(result.ok, result.ok ? '' : result.reason);
    assert.match(result.detail, /^heard "\S/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the small Smart Turn v3.2 stand-in gives a probability through the app', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lva-standin-smart-turn-'));
  try {
    const { entry, dir, parameters } = await writeSmall(SMART_TURN_V3_2_STANDIN, root);
    assert.ok(parameters > 5e4 && parameters < 1e6, `${parameters} parameters`);
    const check = checkModel(await resolveModel(entry, [root]), { timeoutMs: 60_000 });

    const spec = entry.engine;
    assert.ok(spec.engine === 'smart-turn');
    const session = await ort.InferenceSession.create(path.join(dir, spec.model), { intraOpNumThreads: 1 });
    assert.deepEqual(session.inputNames, ['input_features']);
    assert.deepEqual(session.outputNames, ['logits']);
    const features = new ort.Tensor('float32', Float32Array.from({ length: 2 * 80 * 800 }, (_, i) => Math.cos(i / 7)), [2, 80, 800]);
    const logits = (await session.run({ input_features: features }))['logits']!;
    assert.deepEqual(logits.dims, [2, 1]);
    assert.ok([...(logits.data as Float32Array)].every((p) => p >= 0 && p <= 1), `not probabilities: ${[...(logits.data as Float32Array)]}`);
    await session.release();

    const result = await check;
    assert.ok(result.ok, result.ok ? '' : result.reason);
    assert.match(result.detail, /end-of-turn probability \d\.\d\d/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
