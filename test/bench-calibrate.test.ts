/**
 * `npm run bench -- --calibrate` on the small stand-ins (the same generators, shrunk): every default
 * stand-in is written, run alone through the app's engine configuration and set beside its published
 * figure; and the agreement check that decides whether a stand-in is off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { agreement, PUBLISHED, type Calibration } from '../electron/bench/calibrate';
import { runCli, tempDir } from './helpers';

test('bench --calibrate --small measures each stand-in alone and sets it beside the published figure', async () => {
  const dir = tempDir('lva-calibrate-');
  try {
    const json = path.join(dir, 'out.json');
    const r = await runCli('electron/cli/bench.ts', ['--calibrate', '--small', '--standins', path.join(dir, 'standins'), '--json', json], 180_000);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(readFileSync(json, 'utf8')) as { scale: string; rows: Calibration[] };
    assert.equal(out.scale, 'small');
    const ids = out.rows.map((row) => row.id);
    for (const id of ['sherpa-onnx-streaming-zipformer-en-2023-06-26', 'qwen2.5-1.5b-instruct-q4_k_m', 'vits-piper-en_US-libritts_r-medium', 'kokoro-en-v0_19', 'smart-turn-v3.2-cpu']) assert.ok(ids.includes(id), `${id} missing from ${ids.join(', ')}`);
    assert.ok(!ids.includes('qwen3-4b-instruct-2507-q4_k_m'), 'the large ones only with --all');
    for (const row of out.rows) {
      assert.ok(row.measured > 0 && Number.isFinite(row.measured), `${row.id}: ${row.measured}`);
      assert.equal(row.published?.value ?? null, PUBLISHED[row.id]?.value ?? null);
      if (row.published) assert.ok(row.timesPublished !== null && row.timesPublished > 0);
    }
    const zipformer = out.rows.find((row) => row.kind === 'stt')!;
    assert.ok(zipformer.appRtf !== undefined && zipformer.appRtf > 0, 'the app recognizer beside the model alone');
    const voices = out.rows.filter((row) => row.kind === 'tts');
    for (const v of voices) assert.ok(v.charsPerSecond! > 8 && v.charsPerSecond! < 25, `${v.id} speaks ${v.charsPerSecond} characters a second`);
    assert.match(r.stdout, /SMALL stand-ins/);
    assert.match(r.stdout, /against Raspberry Pi 4 \(Cortex-A72\): .* agree within \d+\.\d+x/);
    const bad = await runCli('electron/cli/bench.ts', ['--calibrate', '--small', '--standins', path.join(dir, 'standins'), 'no-such-model']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /no stand-in "no-such-model" to calibrate; there are: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rows against one reference machine are compared with each other, not with the rest', () => {
  const row = (id: string, machine: string, timesPublished: number): Calibration => ({
    id,
    kind: 'tts',
    threads: 1,
    figure: 'rtf',
    measured: 1,
    repeats: [1],
    published: { figure: 'rtf', value: 1, threads: 1, machine, note: '' },
    timesPublished,
  });
  const a = agreement([row('a', 'pi', 10), row('b', 'pi', 25), row('c', 'x86', 1), { ...row('d', 'pi', 1), published: null, timesPublished: null }]);
  assert.deepEqual(a, [{ machine: 'pi', ids: ['a', 'b'], spread: 2.5 }]);
});
