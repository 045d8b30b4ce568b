/**
 * The Parakeet TDT 0.6B v2 real-size stand-in (native-models/standins/nemo-tdt-transducer.ts):
 * written at the small scale, found by the resolver and run by the model check in its own process,
 * as `npm run models -- verify --load` does, it decodes the spoken sample into word pieces. The
 * joiner's calibration is checked on logits whose answer is known.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkModel } from '../electron/model-check/check';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel } from '../native-models/resolver';
import { solveCalibration } from '../native-models/standins/nemo-tdt-calibration';
import { NEMO_PARAKEET_TDT_V2_STANDIN } from '../native-models/standins/nemo-tdt-transducer';
import { SeededRandom } from '../native-models/standins/random';
import type { ModelEntry } from '../native-models/types';
import { tempDir } from './helpers';

const ENTRY = DEFAULT_CATALOG.find((e) => e.id === NEMO_PARAKEET_TDT_V2_STANDIN.id)!;

describe('parakeet tdt stand-in', () => {
  const root = tempDir('lva-standins-parakeet-');
  after(() => rmSync(root, { recursive: true, force: true }));
  // No sizes or hashes: the stand-in has the layout, not the bytes.
  const entry = (id: string): ModelEntry => ({ ...ENTRY, id, files: ENTRY.files.map(({ name }) => ({ name })), archive: undefined });
  const read = (e: ModelEntry, name: string) => readFileSync(path.join(modelDir(root, e), name));

  it('loads and decodes the spoken sample through the model check', async () => {
    const e = entry(ENTRY.id);
    const written = await NEMO_PARAKEET_TDT_V2_STANDIN.write(modelDir(root, e), e, { scale: 'small', seed: 3 });
    assert.deepEqual(written.files.map((f) => f.name).sort(), ENTRY.files.map((f) => f.name).sort());
    assert.ok(written.files.every((f) => f.bytes > 0 && f.bytes < 4e6), JSON.stringify(written.files));
    const check = await checkModel(await resolveModel(e, [root]), { timeoutMs: 60_000 });
    assert.ok(check.ok, check.ok ? '' : check.reason);
    assert.match(check.detail, /^heard "\S/);

    // The published export's forms: uint8 encoder, int8 decoder and joiner, sherpa's metadata.
    const encoder = read(e, 'encoder.int8.onnx');
    for (const op of ['ConvInteger', 'MatMulInteger', 'LayerNormalization', 'BatchNormalization', 'Softmax', 'pred_rnn_layers', 'feat_dim']) {
      assert.ok(encoder.includes(op), `encoder has ${op}`);
    }
    assert.ok(read(e, 'decoder.int8.onnx').includes('DynamicQuantizeLSTM'), 'decoder has DynamicQuantizeLSTM');
    assert.ok(read(e, 'joiner.int8.onnx').includes('MatMulInteger'), 'joiner has MatMulInteger');
  });

  it('writes the same bytes for the same seed', async () => {
    const e = entry('parakeet-again');
    await NEMO_PARAKEET_TDT_V2_STANDIN.write(modelDir(root, e), e, { scale: 'small', seed: 3 });
    const first = entry(ENTRY.id);
    for (const f of ENTRY.files) assert.ok(read(e, f.name).equals(read(first, f.name)), `${f.name} differs`);
  });

  it('calibrates blank and durations to their shares', () => {
    const rng = new SeededRandom(5);
    const frames = 400;
    const vocab = 1024;
    const width = vocab + 1 + 5;
    const logits = rng.normal(frames * width);
    // A fixed offset per logit, as random weights give: the calibration must absorb it.
    const offsets = rng.normal(width, 0.5);
    for (let t = 0; t < frames; t++) for (let i = 0; i < width; i++) logits[t * width + i]! += offsets[i]!;
    const c = solveCalibration(logits, frames, vocab, 5);
    let nonBlank = 0;
    const durations = [0, 0, 0, 0, 0];
    for (let t = 0; t < frames; t++) {
      const l = logits.subarray(t * width, (t + 1) * width);
      const best = Math.max(...l.subarray(0, vocab));
      if (best > l[vocab]! + c.blank) nonBlank++;
      const d = l.subarray(vocab + 1).map((x, i) => x + c.durations[i]!);
      durations[d.indexOf(Math.max(...d))]!++;
    }
    assert.ok(Math.abs(nonBlank / frames - 0.5) < 0.03, `non-blank on ${nonBlank} of ${frames} frames`);
    // Mostly a skip of 2, rarely 0.
    assert.ok(durations[2]! > durations[1]! && durations[2]! > durations[3]!, JSON.stringify(durations));
    assert.ok(durations[0]! < 0.06 * frames, JSON.stringify(durations));
  });
});
