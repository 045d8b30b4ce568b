/**
 * Real Silero VAD (sherpa-onnx) + EnergyTracker + Segmenter on the espeak clips of
 * ../shared/speech: the detected speech segments must match manifest.json within ±100 ms, and
 * silence and noise must produce no turn.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';
import { rmSync, writeFileSync } from 'node:fs';
import { isUserError } from '../electron/errors';
import { SileroVad } from '../electron/engines/vad';
import { VAD_SAMPLE_RATE, VAD_WINDOW, VAD_WINDOW_MS } from '../electron/engines/vad-window';
import { EnergyTracker } from '../electron/pipeline/listen/energy';
import { Segmenter, type EndpointingConfig, type SegmenterEvent } from '../electron/pipeline/turns/segmenter';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { clip, loadClip16k, MODEL_ROOTS, MODELS_DIR, SPEECH_DIR, type ManifestSegment } from './engine-fixtures';
import { tempDir } from './helpers';
import { buildOnnxModel, FLOAT, INT64, type ValueInfo } from './onnx-builder';
import type { EndReason } from '../electron/pipeline/vocabulary';

const TOLERANCE_MS = 100;
const THRESHOLD = 0.5;
/** Silence fed after each clip so the last turn can end on its own. */
const TAIL_MS = 1500;

interface Turn {
  startMs: number;
  endMs: number;
  reason: EndReason;
}
interface Run {
  startMs: number;
  endMs: number;
}
interface Detection {
  events: SegmenterEvent[];
  /** [speechStartMs, speechEndMs] of every end-of-turn. */
  turns: Turn[];
  /**
   * The VAD's speech runs inside turns: speech-start.startMs (or, after a pause, the resume time)
   * to the following pause.speechEndMs.
   */
  runs: Run[];
}

let vadModel: ResolvedModel;

before(async () => {
  vadModel = await pickModel('vad', MODEL_ROOTS);
});

async function detect(samples: Float32Array, cfg: EndpointingConfig): Promise<Detection> {
  const vad = await SileroVad.load(vadModel, THRESHOLD);
  const energy = new EnergyTracker(VAD_SAMPLE_RATE);
  const seg = new Segmenter(() => cfg, energy);
  const events: SegmenterEvent[] = [];
  const windows = Math.ceil(samples.length / VAD_WINDOW) + Math.ceil(TAIL_MS / VAD_WINDOW_MS);
  let atMs = 0;
  for (let k = 0; k < windows; k++) {
    const w = new Float32Array(VAD_WINDOW);
    if (k * VAD_WINDOW < samples.length) w.set(samples.subarray(k * VAD_WINDOW, (k + 1) * VAD_WINDOW));
    const { speech } = await vad.accept(w);
    energy.push(w, speech);
    atMs = ((k + 1) * VAD_WINDOW * 1000) / VAD_SAMPLE_RATE;
    events.push(...seg.push(atMs, speech));
  }
  await vad.dispose();
  const last = seg.forceEnd(atMs, 'input-ended');
  if (last) events.push(last);

  const turns: Turn[] = [];
  const runs: Run[] = [];
  let open: number | undefined;
  let turnStart: number | undefined;
  for (const e of events) {
    switch (e.type) {
      case 'speech-start':
        turnStart = open = e.startMs;
        break;
      case 'resume':
        open = e.atMs;
        break;
      case 'pause':
        assert.notEqual(open, undefined, `pause without speech: ${JSON.stringify(events)}`);
        runs.push({ startMs: open!, endMs: e.speechEndMs });
        open = undefined;
        break;
      case 'end-of-turn':
        assert.equal(e.speechStartMs, turnStart, 'end-of-turn names the start of its speech-start');
        if (open !== undefined) runs.push({ startMs: open, endMs: e.speechEndMs });
        else assert.equal(e.speechEndMs, runs.at(-1)?.endMs, 'end-of-turn ends where its last pause said');
        turns.push({ startMs: e.speechStartMs, endMs: e.speechEndMs, reason: e.reason });
        open = turnStart = undefined;
        break;
    }
  }
  return { events, turns, runs };
}

function fmt(d: Detection): string {
  return `turns ${JSON.stringify(d.turns)}, runs ${JSON.stringify(d.runs)}`;
}

function assertMatches(turn: Turn, seg: { start: number; end: number }, what: string, d: Detection): void {
  const ds = Math.abs(turn.startMs - seg.start * 1000);
  const de = Math.abs(turn.endMs - seg.end * 1000);
  assert.ok(
    ds <= TOLERANCE_MS && de <= TOLERANCE_MS,
    `${what}: detected [${turn.startMs}, ${turn.endMs}] ms vs manifest [${seg.start * 1000}, ${seg.end * 1000}] ms ` +
      `(start off by ${ds.toFixed(0)} ms, end by ${de.toFixed(0)} ms; limit ${TOLERANCE_MS}); ${fmt(d)}`,
  );
}

/** No speech run may lie outside the manifest's speech (±tolerance). */
function assertRunsInsideSpeech(d: Detection, speech: ManifestSegment[], name: string): void {
  for (const r of d.runs) {
    const inside = speech.some(
      (s) => r.startMs >= s.start * 1000 - TOLERANCE_MS && r.endMs <= s.end * 1000 + TOLERANCE_MS,
    );
    assert.ok(inside, `${name}: VAD speech [${r.startMs}, ${r.endMs}] ms lies outside the manifest's speech; ${fmt(d)}`);
  }
}

const TURNS_300: EndpointingConfig = { minSpeechMs: 250, silenceMs: 300, maxTurnMs: 60_000 };
const TURNS_1000: EndpointingConfig = { minSpeechMs: 250, silenceMs: 1000, maxTurnMs: 60_000 };

describe('VAD finds the speech segments of the clips (±100 ms of manifest.json)', () => {
  for (const name of ['weather', 'story', 'timer_pause', 'two_turns', 'interrupt']) {
    test(`${name}: one turn per manifest segment with silenceMs 300`, async () => {
      const c = clip(name);
      assert.equal(c.sampleRate, 16000);
      const d = await detect(await loadClip16k(name), TURNS_300);
      assert.equal(d.turns.length, c.speech.length, `${name}: expected ${c.speech.length} turn(s); ${fmt(d)}`);
      c.speech.forEach((s, i) => {
        assertMatches(d.turns[i]!, s, `${name} segment ${i} "${s.text}"`, d);
        assert.equal(d.turns[i]!.reason, 'silence');
      });
      assertRunsInsideSpeech(d, c.speech, name);
    });
  }

  test('timer_pause: the 0.64 s pause cuts at silenceMs 300 (above) but not at 1000', async () => {
    const c = clip('timer_pause');
    const d = await detect(await loadClip16k('timer_pause'), TURNS_1000);
    assert.equal(d.turns.length, 1, fmt(d));
    assertMatches(d.turns[0]!, { start: c.speech[0]!.start, end: c.speech[1]!.end }, 'timer_pause as one turn', d);
    // The pause itself is still seen by the VAD: two speech runs inside the turn.
    assert.ok(d.runs.length >= 2, `expected the pause inside the turn to be detected; ${fmt(d)}`);
    assertRunsInsideSpeech(d, c.speech, 'timer_pause');
  });

  test('monologue: 56 s of talk is one turn with silenceMs 1000 and maxTurnMs 60000', async () => {
    const c = clip('monologue');
    const d = await detect(await loadClip16k('monologue'), TURNS_1000);
    assert.equal(d.turns.length, 1, fmt(d));
    assertMatches(d.turns[0]!, c.speech[0]!, 'monologue', d);
    assert.equal(d.turns[0]!.reason, 'silence');
    assertRunsInsideSpeech(d, c.speech, 'monologue');
  });

  test('monologue: maxTurnMs 20000 cuts the turn at 20 s', async () => {
    const d = await detect(await loadClip16k('monologue'), { minSpeechMs: 250, silenceMs: 1000, maxTurnMs: 20_000 });
    const first = d.events.find((e) => e.type === 'end-of-turn');
    assert.ok(first && first.type === 'end-of-turn', fmt(d));
    assert.equal(first.reason, 'max-length');
    const len = first.atMs - first.speechStartMs;
    assert.ok(len >= 20_000 && len <= 20_000 + VAD_WINDOW_MS, `turn cut after ${len} ms`);
    assert.ok(d.turns.length >= 3, `56 s at 20 s per turn needs at least 3 turns; ${fmt(d)}`);
  });

  for (const name of ['silence', 'noise']) {
    test(`${name}: no candidate reaches speech-start`, async () => {
      const c = clip(name);
      assert.equal(c.speech.length, 0);
      const d = await detect(await loadClip16k(name), TURNS_300);
      const started = d.events.filter((e) => e.type === 'speech-start' || e.type === 'end-of-turn');
      assert.deepEqual(started, [], `${name} produced a turn: ${JSON.stringify(d.events)}`);
      // Any candidate there was must have been dropped again.
      const candidates = d.events.filter((e) => e.type === 'candidate').length;
      const discarded = d.events.filter((e) => e.type === 'discarded').length;
      assert.equal(candidates, discarded);
    });
  }
});

describe('format variants find the same segment as weather.wav (±100 ms)', () => {
  let reference: Turn;
  before(async () => {
    const d = await detect(await loadClip16k('weather'), TURNS_300);
    assert.equal(d.turns.length, 1, fmt(d));
    reference = d.turns[0]!;
  });

  for (const name of ['weather_48k_stereo', 'weather_f32', 'weather_loud_clipped', 'weather_8k']) {
    test(name, async () => {
      const c = clip(name);
      const audio = await readWavFile(path.join(SPEECH_DIR, c.file));
      assert.equal(audio.sampleRate, c.sampleRate);
      assert.equal(audio.channels, c.channels);
      assert.equal(audio.format, c.format);
      const samples = toMono16k(audio);
      assert.ok(Math.abs(samples.length / 16000 - c.duration) < 0.01, `duration ${samples.length / 16000} s`);
      const d = await detect(samples, TURNS_300);
      assert.equal(d.turns.length, 1, `${name}: ${fmt(d)}`);
      assertMatches(d.turns[0]!, c.speech[0]!, name, d);
      assertMatches(d.turns[0]!, { start: reference.startMs / 1000, end: reference.endMs / 1000 }, `${name} vs weather.wav`, d);
      assertRunsInsideSpeech(d, c.speech, name);
    });
  }
});

/** A model file at `file`, as the resolver would hand it to the VAD. */
function resolvedAt(file: string, id = 'own-vad'): ResolvedModel {
  return {
    entry: { id, kind: 'vad', name: id, description: 'test', licence: 'MIT', files: [{ name: 'vad.onnx' }], engine: { engine: 'silero-vad', model: 'vad.onnx' } },
    dir: path.dirname(file),
    paths: { 'vad.onnx': file },
  };
}

const GAIN = 100;
/**
 * A stand-in with a Silero v4-style interface (names given): the probability is
 * tanh(mean(c')) * n / (n + 1), with c' = c / 2 + GAIN * mean(x^2) a leaky energy integrator and
 * n = mean(h') the count of windows seen (h' = h + 1). Both states must be fed back, each to its
 * own input, for a test to predict the probabilities. `x` is declared [1, 512], so onnxruntime
 * rejects a window with context samples in front.
 */
function fakeV4Vad(names: { x: string; h: string; c: string; prob: string; newH: string; newC: string; sr?: string }): Uint8Array {
  const state = (name: string): ValueInfo => ({ name, type: FLOAT, shape: [2, 1, 64] });
  const reduceAll = { axes: { ints: [0, 2] }, keepdims: { i: 1 } };
  return buildOnnxModel({
    inputs: [
      { name: names.x, type: FLOAT, shape: [1, VAD_WINDOW] },
      ...(names.sr ? [{ name: names.sr, type: INT64, shape: [] }] : []),
      state(names.h),
      state(names.c),
    ],
    outputs: [{ name: names.prob, type: FLOAT, shape: [1, 1] }, state(names.newH), state(names.newC)],
    constants: [
      { name: 'half', dims: [], values: [0.5] },
      { name: 'one', dims: [], values: [1] },
      { name: 'gain', dims: [], values: [GAIN] },
    ],
    nodes: [
      { op: 'Mul', inputs: [names.x, names.x], outputs: ['xx'] },
      { op: 'ReduceMean', inputs: ['xx'], outputs: ['energy'], attributes: { axes: { ints: [1] }, keepdims: { i: 1 } } },
      { op: 'Mul', inputs: [names.c, 'half'], outputs: ['c_half'] },
      { op: 'Mul', inputs: ['energy', 'gain'], outputs: ['e_gain'] },
      { op: 'Add', inputs: ['c_half', 'e_gain'], outputs: [names.newC] },
      { op: 'Add', inputs: [names.h, 'one'], outputs: [names.newH] },
      // [2,1,64] -> [1,1,1] -> [1,1]
      { op: 'ReduceMean', inputs: [names.newC], outputs: ['c_mean3'], attributes: reduceAll },
      { op: 'ReduceMean', inputs: ['c_mean3'], outputs: ['c_mean'], attributes: { axes: { ints: [0] }, keepdims: { i: 0 } } },
      { op: 'ReduceMean', inputs: [names.newH], outputs: ['n_mean3'], attributes: reduceAll },
      { op: 'ReduceMean', inputs: ['n_mean3'], outputs: ['n'], attributes: { axes: { ints: [0] }, keepdims: { i: 0 } } },
      { op: 'Tanh', inputs: ['c_mean'], outputs: ['t'] },
      { op: 'Add', inputs: ['n', 'one'], outputs: ['n1'] },
      { op: 'Div', inputs: ['n', 'n1'], outputs: ['ratio'] },
      { op: 'Mul', inputs: ['t', 'ratio'], outputs: [names.prob] },
    ],
  });
}

/** What fakeV4Vad gives for windows of these constant amplitudes, from zero state. */
function expectedFake(amplitudes: number[]): number[] {
  let c = 0;
  return amplitudes.map((a, k) => {
    c = c / 2 + GAIN * a * a;
    const n = k + 1;
    return (Math.tanh(c) * n) / (n + 1);
  });
}

const constantWindow = (a: number) => new Float32Array(VAD_WINDOW).fill(a);

describe('VAD model layouts', () => {
  const dir = tempDir('lva-vad-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the Silero v5 file (the default VAD\'s bytes) loads as silero-v5', async () => {
    const vad = await SileroVad.load(vadModel, THRESHOLD);
    assert.equal(vad.info.layout, 'silero-v5');
    await vad.dispose();
  });

  for (const [layout, names] of [
    ['k2-fsa', { x: 'x', h: 'h', c: 'c', prob: 'prob', newH: 'new_h', newC: 'new_c' }],
    ['silero-v4', { x: 'input', sr: 'sr', h: 'h', c: 'c', prob: 'output', newH: 'hn', newC: 'cn' }],
  ] as const) {
    test(`a model with the ${layout} interface loads and runs, its h and c fed back`, async () => {
      const file = path.join(dir, `${layout}.onnx`);
      writeFileSync(file, fakeV4Vad(names));
      const vad = await SileroVad.load(resolvedAt(file), 0.5);
      assert.equal(vad.info.layout, layout);
      const amplitudes = [0.1, 0.1, 0.1, 0.1, 0, 0, 0, 0, 0, 0];
      const expected = expectedFake(amplitudes);
      const got: number[] = [];
      const speech: boolean[] = [];
      for (const a of amplitudes) {
        const r = await vad.accept(constantWindow(a));
        got.push(r.probability);
        speech.push(r.speech);
      }
      got.forEach((p, k) => assert.ok(Math.abs(p - expected[k]!) < 1e-5, `window ${k}: ${p} vs ${expected[k]} (all: ${got.join(', ')})`));
      // Speech from the first window at 0.5 or more (0.60) until one falls below 0.35 (0.20, the third silent one).
      assert.deepEqual(speech, [false, true, true, true, true, true, false, false, false, false]);
      vad.reset();
      const again = await vad.accept(constantWindow(0.1));
      assert.ok(Math.abs(again.probability - expected[0]!) < 1e-5, 'reset zeroes the state');
      await vad.dispose();
    });
  }

  test('a model of another interface fails with one error naming the inputs found and expected', async () => {
    const file = path.join(MODELS_DIR, 'turn', 'eot-espeak.onnx');
    await assert.rejects(SileroVad.load(resolvedAt(file, 'my-vad'), 0.5), (e: Error) => {
      assert.ok(isUserError(e), String(e));
      assert.equal(e.code, 'model-layout');
      assert.match(e.message, /^The VAD model 'my-vad' \(.*eot-espeak\.onnx\) is not a Silero VAD: its inputs are input_features and outputs \S+/);
      assert.match(e.message, /expected inputs input, state, sr \(silero-v5\); or input, sr, h, c \(silero-v4\); or x, h, c \(k2-fsa\)/);
      assert.match(e.message, /npm run models -- fetch silero-vad$/);
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
  });
});
