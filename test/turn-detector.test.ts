/**
 * The end-of-turn engine: Smart Turn v3's features against an independent implementation's
 * (../shared/models/turn/reference), the stand-in model's verdicts on the reference inputs, the one
 * clear error for a model of another interface, and what a check costs (measured, loosely bounded).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readWavFile } from '../electron/audio/wav';
import { isUserError } from '../electron/errors';
import { loadTurnDetector, measureTurnCost, summarizeTurnCost, type TurnDetector } from '../electron/engines/turn-detector';
import {
  TURN_FEATURES_LENGTH,
  TURN_FRAMES,
  TURN_MEL_BANDS,
  TURN_SAMPLE_RATE,
  TURN_WINDOW_SAMPLES,
  turnFeatures,
} from '../electron/engines/turn-features';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { MODEL_ROOTS, MODELS_DIR, SPEECH_DIR } from './engine-fixtures';
import { tempDir } from './helpers';
import { buildOnnxModel, FLOAT, type Graph } from './onnx-builder';

const REFERENCE_DIR = path.join(MODELS_DIR, 'turn', 'reference');

interface ReferenceCase {
  clip: string;
  fromSeconds: number;
  untilSeconds: number;
  features?: string;
  probability: number;
  verdict: string;
}
const REFERENCE: { cases: ReferenceCase[] } = JSON.parse(readFileSync(path.join(REFERENCE_DIR, 'reference.json'), 'utf8'));

/** A reference case's audio: the clip's samples (int16 / 32768, as readWavFile gives them) from..until. */
async function caseAudio(c: ReferenceCase): Promise<Float32Array> {
  // The clip paths are relative to ../shared ("speech/weather.wav").
  const wav = await readWavFile(path.join(path.dirname(SPEECH_DIR), c.clip));
  assert.equal(wav.sampleRate, TURN_SAMPLE_RATE);
  const samples = wav.channelData[0]!;
  return samples.slice(Math.round(c.fromSeconds * TURN_SAMPLE_RATE), Math.round(c.untilSeconds * TURN_SAMPLE_RATE));
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** Deterministic noise-like audio (a linear congruential generator), amplitude `amp`. */
function noise(n: number, seed: number, amp = 0.3): Float32Array {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = (s / 2 ** 32 - 0.5) * 2 * amp;
  }
  return a;
}

describe('end-of-turn features (Smart Turn v3)', () => {
  test('reference case 1 (weather.wav, 0-2.315 s) matches the independent implementation to 1e-4', async () => {
    const c = REFERENCE.cases[0]!;
    assert.equal(c.features, 'weather-features.f32');
    const buf = readFileSync(path.join(REFERENCE_DIR, c.features));
    const expected = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    assert.equal(expected.length, TURN_MEL_BANDS * TURN_FRAMES);
    const got = turnFeatures(await caseAudio(c));
    assert.equal(got.length, TURN_FEATURES_LENGTH);
    const diff = maxAbsDiff(got, expected);
    console.log(`features vs reference: max abs diff ${diff.toExponential(2)}`);
    assert.ok(diff < 1e-4, `max abs diff ${diff}`);
  });

  test('writes into the buffer it is given, and a second call gives the same features', async () => {
    const audio = await caseAudio(REFERENCE.cases[0]!);
    const first = Float32Array.from(turnFeatures(audio));
    const out = new Float32Array(TURN_FEATURES_LENGTH).fill(NaN);
    assert.equal(turnFeatures(audio, out), out);
    assert.deepEqual(out, first);
    assert.throws(() => turnFeatures(audio, new Float32Array(10)), RangeError);
  });

  test('a turn shorter than 8 s is zero-padded at the front', () => {
    const short = noise(3 * TURN_SAMPLE_RATE, 1);
    const padded = new Float32Array(TURN_WINDOW_SAMPLES);
    padded.set(short, TURN_WINDOW_SAMPLES - short.length);
    assert.deepEqual(turnFeatures(short), turnFeatures(padded));
    // Padded at the end instead, the features differ (the check above is not vacuous).
    const atEnd = new Float32Array(TURN_WINDOW_SAMPLES);
    atEnd.set(short);
    assert.ok(maxAbsDiff(turnFeatures(short), turnFeatures(atEnd)) > 0.1);
  });

  test('the frames in the zeros before a short turn, copied rather than computed, are what computing them gives', () => {
    const turn = noise(2 * TURN_SAMPLE_RATE, 6);
    const zeros = new Float32Array(TURN_WINDOW_SAMPLES);
    zeros.set(turn, TURN_WINDOW_SAMPLES - turn.length);
    // Not zeros, so every frame is computed; too small to change anything else.
    const tiny = Float32Array.from(zeros, (v, i) => (i < TURN_WINDOW_SAMPLES - turn.length ? 1e-30 : v));
    const diff = maxAbsDiff(turnFeatures(zeros), turnFeatures(tiny));
    assert.ok(diff < 1e-6, `max abs diff ${diff}`);
  });

  test('a turn longer than 8 s: only its last 8 s count', () => {
    const last8 = noise(TURN_WINDOW_SAMPLES, 2);
    const nine = new Float32Array(9 * TURN_SAMPLE_RATE);
    nine.set(noise(TURN_SAMPLE_RATE, 3, 0.9));
    nine.set(last8, TURN_SAMPLE_RATE);
    assert.deepEqual(turnFeatures(nine), turnFeatures(last8));
  });

  test('silence gives finite features (the variance floor and the log floor)', () => {
    const f = turnFeatures(new Float32Array(TURN_SAMPLE_RATE));
    assert.ok(f.every((v) => Number.isFinite(v)));
    // All-zero audio: every mel energy is at the 1e-10 floor, log10 -10, so (−10 + 4) / 4.
    assert.ok(f.every((v) => Math.abs(v - -1.5) < 1e-6), `got ${f[0]}`);
    assert.deepEqual(turnFeatures(new Float32Array(0)), f);
  });
});

describe('end-of-turn model (the espeak stand-in, eot-espeak.onnx)', () => {
  let model: ResolvedModel;
  let detector: TurnDetector;

  before(async () => {
    model = await pickModel('turn', MODEL_ROOTS);
    assert.equal(path.basename(Object.values(model.paths)[0]!), 'eot-espeak.onnx');
    detector = await loadTurnDetector(model);
  });
  after(() => detector?.dispose());

  test('each reference case gets its probability within 0.01 and the right verdict', async () => {
    assert.equal(detector.info.id, model.entry.id);
    assert.ok(detector.info.loadMs > 0);
    for (const c of REFERENCE.cases) {
      const { probability, featuresMs, inferenceMs } = await detector.score(await caseAudio(c));
      const what = `${c.clip} ${c.fromSeconds}-${c.untilSeconds} s (${c.verdict})`;
      console.log(`${what}: ${probability.toFixed(4)} (expected ${c.probability})`);
      assert.ok(Math.abs(probability - c.probability) < 0.01, `${what}: ${probability}, expected ${c.probability}`);
      assert.equal(probability > 0.5, c.verdict.startsWith('complete'), what);
      assert.ok(featuresMs > 0 && inferenceMs > 0);
    }
  });

  test('checks made at once run one at a time, each on its own audio', async () => {
    const audios = await Promise.all(REFERENCE.cases.map(caseAudio));
    const alone: number[] = [];
    for (const a of audios) alone.push((await detector.score(a)).probability);
    const together = await Promise.all(audios.map((a) => detector.score(a)));
    assert.deepEqual(
      together.map((r) => r.probability),
      alone,
    );
  });

  // What a check costs is a figure of `npm run bench` (electron/bench/micro.ts); here, that it is measured.
  test('measureTurnCost measures each check: features and inference, both positive, ordered', async () => {
    const cost = await measureTurnCost(detector, { audio: noise(TURN_WINDOW_SAMPLES, 4, 0.1), runs: 5, warmup: 1 });
    for (const s of [cost.featuresMs, cost.inferenceMs, cost.totalMs]) {
      assert.equal(s.n, 5);
      assert.ok(s.median > 0 && s.median <= s.p95 && s.p95 <= s.max, JSON.stringify(s));
    }
    assert.ok(cost.totalMs.max <= cost.featuresMs.max + cost.inferenceMs.max + 1e-9, JSON.stringify(cost));
  });

  test('summarizeTurnCost: median and p95 by nearest rank', () => {
    const scores = Array.from({ length: 20 }, (_, i) => ({ featuresMs: i + 1, inferenceMs: 2 * (i + 1) }));
    const c = summarizeTurnCost(scores);
    assert.deepEqual(c.featuresMs, { n: 20, median: 10, p95: 19, max: 20 });
    assert.deepEqual(c.inferenceMs, { n: 20, median: 20, p95: 38, max: 40 });
    assert.deepEqual(c.totalMs, { n: 20, median: 30, p95: 57, max: 60 });
  });

  test('a disposed detector refuses to score', async () => {
    const d = await loadTurnDetector(model);
    await d.dispose();
    await assert.rejects(d.score(new Float32Array(100)), /disposed/);
  });
});

describe('end-of-turn model interface', () => {
  const dir = tempDir('lva-turn-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  function resolvedAt(graph: Graph, id: string): ResolvedModel {
    const file = path.join(dir, `${id}.onnx`);
    writeFileSync(file, buildOnnxModel(graph));
    return {
      entry: { id, kind: 'turn', name: id, description: 'test', licence: 'MIT', files: [{ name: 'model.onnx' }], engine: { engine: 'smart-turn', model: 'model.onnx' } },
      dir,
      paths: { 'model.onnx': file },
    };
  }

  /** sigmoid(mean of the features) from input `name` of `shape`, reduced to [batch] or [batch, 1] (or [batch, 80]). */
  function meanSigmoid(name: string, shape: (number | string)[], output: { name: string; keep: 'batch' | 'batch,1' | 'batch,80' }): Graph {
    const outShape = output.keep === 'batch' ? ['batch'] : output.keep === 'batch,1' ? ['batch', 1] : ['batch', TURN_MEL_BANDS];
    const nodes: Graph['nodes'] = [{ op: 'ReduceMean', inputs: [name], outputs: ['by_band'], attributes: { axes: { ints: [2] }, keepdims: { i: 0 } } }];
    if (output.keep === 'batch,80') nodes.push({ op: 'Sigmoid', inputs: ['by_band'], outputs: [output.name] });
    else {
      nodes.push({ op: 'ReduceMean', inputs: ['by_band'], outputs: ['mean'], attributes: { axes: { ints: [1] }, keepdims: { i: output.keep === 'batch,1' ? 1 : 0 } } });
      nodes.push({ op: 'Sigmoid', inputs: ['mean'], outputs: [output.name] });
    }
    return { inputs: [{ name, type: FLOAT, shape }], outputs: [{ name: output.name, type: FLOAT, shape: outShape }], nodes };
  }

  const expectedMeanSigmoid = (audio: Float32Array) => {
    const f = turnFeatures(audio);
    let sum = 0;
    for (const v of f) sum += v;
    return 1 / (1 + Math.exp(-sum / f.length));
  };

  test('the first output is the probability whatever its name, [batch, 1] or [batch]', async () => {
    const audio = noise(2 * TURN_SAMPLE_RATE, 5);
    for (const [id, keep] of [['logits-b1', 'batch,1'], ['prob-b', 'batch']] as const) {
      const d = await loadTurnDetector(resolvedAt(meanSigmoid('input_features', ['batch_size', 80, 800], { name: id.split('-')[0]!, keep }), id));
      const { probability } = await d.score(audio);
      assert.ok(Math.abs(probability - expectedMeanSigmoid(audio)) < 1e-5, `${id}: ${probability}`);
      await d.dispose();
    }
  });

  const expectOneError = (id: string, detail: RegExp) => (e: Error) => {
    assert.ok(isUserError(e), String(e));
    assert.equal(e.code, 'model-layout');
    assert.match(e.message, new RegExp(`^This is not an end-of-turn model with Smart Turn v3's interface: '${id}' \\(.*${id}\\.onnx\\) has inputs `));
    assert.match(e.message, detail);
    assert.match(e.message, /expected one input input_features float32 \[batch, 80, 800\]/);
    assert.match(e.message, /Choose a Smart Turn v3 ONNX model, or get .* with: npm run models -- fetch \S+$/);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  };

  test('a model whose input is not input_features gets the one clear error', async () => {
    const graph = meanSigmoid('audio', ['batch', 80, 800], { name: 'probability', keep: 'batch' });
    await assert.rejects(loadTurnDetector(resolvedAt(graph, 'named-audio')), expectOneError('named-audio', /has inputs audio float32 \[batch, 80, 800\] and outputs probability float32 \[batch\] \(no input named input_features\)/));
  });

  test('input_features of another shape (Whisper\'s 30 s, [batch, 80, 3000]) gets the same error', async () => {
    const graph = meanSigmoid('input_features', ['batch', 80, 3000], { name: 'probability', keep: 'batch' });
    await assert.rejects(loadTurnDetector(resolvedAt(graph, 'whisper-30s')), expectOneError('whisper-30s', /input_features float32 \[batch, 80, 3000\].*\(input_features is not \[batch, 80, 800\]\)/));
  });

  test('a first output that is not [batch] or [batch, 1] is found at load', async () => {
    const graph = meanSigmoid('input_features', ['batch', 80, 800], { name: 'bands', keep: 'batch,80' });
    await assert.rejects(loadTurnDetector(resolvedAt(graph, 'per-band')), expectOneError('per-band', /outputs bands float32 \[batch, 80\] \(its first output is not \[batch\] or \[batch, 1\]\)/));
  });

  test('a file onnxruntime cannot read gets a load error that says to fetch it again', async () => {
    const resolved = resolvedAt(meanSigmoid('input_features', ['batch', 80, 800], { name: 'p', keep: 'batch' }), 'garbled');
    writeFileSync(resolved.paths['model.onnx']!, 'not a model');
    await assert.rejects(loadTurnDetector(resolved), (e: Error) => {
      assert.ok(isUserError(e) && e.code === 'model-load', String(e));
      assert.match(e.message, /^Could not load the end-of-turn model 'garbled' from .*npm run models -- fetch garbled$/);
      return true;
    });
  });

  test('the VAD model is not an end-of-turn model', async () => {
    const vad = await pickModel('vad', MODEL_ROOTS);
    const file = Object.values(vad.paths)[0]!;
    const resolved: ResolvedModel = { ...vad, entry: { ...vad.entry, id: 'silero-as-turn', kind: 'turn', engine: { engine: 'smart-turn', model: path.basename(file) } } };
    await assert.rejects(loadTurnDetector(resolved), (e: Error) => {
      assert.ok(isUserError(e) && e.code === 'model-layout', String(e));
      assert.match(e.message, /has inputs input float32 \[.*\], state float32 \[2, .*\], sr int64 \[.*\] and outputs output float32/);
      return true;
    });
  });
});
