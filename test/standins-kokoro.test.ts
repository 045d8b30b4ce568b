/**
 * The Kokoro v0.19 stand-in (native-models/standins/kokoro.ts) at its small scale: written into a
 * temporary models folder under the catalog's names, found by the resolver, run once by the model
 * check in its own process (as `npm run models -- verify --load` does), then spoken by the app's
 * TTS engine: the audio must last what real speech lasts and follow the speed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkModel } from '../electron/model-check/check';
import { SherpaTts } from '../electron/engines/tts';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel } from '../native-models/resolver';
import { KOKORO_EN_V0_19_STANDIN } from '../native-models/standins/kokoro';
import type { ModelEntry } from '../native-models/types';

/** The catalog entry without sizes and the archive: the stand-in has the layout, not the bytes. */
function sizeless(id: string): ModelEntry {
  const entry = DEFAULT_CATALOG.find((e) => e.id === id);
  assert.ok(entry, `${id} is not in the catalog`);
  return { ...entry, files: entry.files.map(({ name }) => ({ name })), archive: undefined };
}

test('the small Kokoro stand-in loads and speaks through the app, at the length of real speech', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lva-standin-kokoro-'));
  try {
    const entry = sizeless(KOKORO_EN_V0_19_STANDIN.id);
    const dir = modelDir(root, entry);
    const t0 = performance.now();
    const written = await KOKORO_EN_V0_19_STANDIN.write(dir, entry, { scale: 'small', seed: 7 });
    assert.ok(performance.now() - t0 < 2000, 'the small scale is for CI: it writes at once');
    assert.deepEqual(written.files.map((f) => f.name).sort(), entry.files.map((f) => f.name).sort());
    const model = written.files.find((f) => f.name === 'model.onnx');
    assert.ok(model && model.bytes < 8e6, `a small model.onnx, not ${model?.bytes} bytes`);
    const parameters = written.parameters ?? 0;
    assert.ok(parameters > 1e5 && parameters < 2e6, `${parameters} parameters`);

    const again = mkdtempSync(path.join(root, 'again-'));
    await KOKORO_EN_V0_19_STANDIN.write(again, entry, { scale: 'small', seed: 7 });
    assert.ok(readFileSync(path.join(dir, 'model.onnx')).equals(readFileSync(path.join(again, 'model.onnx'))), 'the same seed writes the same bytes');

    const resolved = await resolveModel(entry, [root]);
    const check = await checkModel(resolved, { timeoutMs: 60_000 });
    assert.ok(check.ok, check.ok ? '' : check.reason);

    const tts = await SherpaTts.load(resolved);
    assert.equal(tts.sampleRate, 24000);
    assert.equal(tts.info.numSpeakers, 11);
    const text = 'Your timer for ten minutes is set, and I will tell you when it is done.';
    const audio = await tts.synthesize(text, { speakerId: 3, speed: 1 });
    assert.ok(audio, 'no audio');
    assert.ok(audio.every((v) => Number.isFinite(v) && Math.abs(v) <= 1), 'samples outside [-1, 1]');
    // Real English: about 60-90 ms a phoneme, 50-100 ms a character of text.
    const msPerChar = ((audio.length / tts.sampleRate) * 1000) / text.length;
    assert.ok(msPerChar > 40 && msPerChar < 120, `${msPerChar.toFixed(0)} ms a character`);

    const fast = await tts.synthesize(text, { speakerId: 3, speed: 2 });
    assert.ok(fast, 'no audio at speed 2');
    const ratio = fast.length / audio.length;
    assert.ok(ratio > 0.35 && ratio < 0.7, `speed 2 gave ${ratio.toFixed(2)} of the length`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
