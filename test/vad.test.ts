/**
 * Real Silero VAD (sherpa-onnx) + EnergyTracker + Segmenter on the espeak clips of
 * ../shared/speech: the detected speech segments must match manifest.json within ±100 ms, and
 * silence and noise must produce no turn.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';
import { SileroVad, VAD_SAMPLE_RATE, VAD_WINDOW, VAD_WINDOW_MS } from '../electron/engines/vad';
import { EnergyTracker } from '../electron/pipeline/energy';
import { Segmenter, type EndpointingConfig, type EndReason, type SegmenterEvent } from '../electron/pipeline/segmenter';
import { pickModel } from '../native-models/resolver';
import type { ResolvedModel } from '../native-models/types';
import { clip, loadClip16k, MODEL_ROOTS, SPEECH_DIR, type ManifestSegment } from './engine-fixtures';

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
