/** The renderer's pure models: endpoint replay over a VAD trace, and latency waterfall/percentiles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnReport } from '../electron/pipeline/report';
import { latencyOf } from '../electron/pipeline/report';
import { replayEndpointing, type VadPoint } from '../renderer/model/endpoint-replay';
import { percentile } from '../electron/pipeline/stats';
import { inputGainLabel } from '../renderer/model/labels';
import { summarize, waterfall } from '../renderer/model/latency';
import { patchAt, valueAt } from '../renderer/model/settings-patch';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';

/** A trace of 32 ms windows over `durationMs`: probability 0.9 inside the speech spans, 0.05 outside. */
function trace(durationMs: number, speech: [number, number][]): VadPoint[] {
  const out: VadPoint[] = [];
  for (let t = 32; t <= durationMs; t += 32) out.push({ t, p: speech.some(([a, b]) => t - 32 >= a && t <= b + 32) ? 0.9 : 0.05 });
  return out;
}

const base = { vadThreshold: 0.5, minSpeechMs: 250, silenceMs: 600, maxTurnMs: 30000 };

describe('endpoint replay', () => {
  const pause = trace(5000, [
    [500, 1500],
    [2140, 2900],
  ]);

  it('a 640 ms pause splits the turn at silenceMs 400 and not at 1000', () => {
    const split = replayEndpointing(pause, { ...base, silenceMs: 400 });
    assert.equal(split.turns.length, 2);
    for (const t of split.turns) assert.ok(Math.abs(t.endMs - t.speechEndMs - 400) <= 32, JSON.stringify(t));
    const whole = replayEndpointing(pause, { ...base, silenceMs: 1000 });
    assert.equal(whole.turns.length, 1);
    assert.ok(Math.abs(whole.turns[0]!.startMs - 500) <= 32, String(whole.turns[0]!.startMs));
    assert.ok(Math.abs(whole.turns[0]!.speechEndMs - 2930) <= 40, String(whole.turns[0]!.speechEndMs));
    assert.equal(whole.turns[0]!.reason, 'silence');
  });

  it('a sound shorter than minSpeechMs is discarded; a threshold above the probabilities hears nothing', () => {
    const cough = trace(3000, [[1000, 1100]]);
    const r = replayEndpointing(cough, base);
    assert.equal(r.turns.length, 0);
    assert.equal(r.discarded.length, 1);
    assert.equal(replayEndpointing(cough, { ...base, minSpeechMs: 50 }).turns.length, 1);
    assert.deepEqual(replayEndpointing(pause, { ...base, vadThreshold: 0.95 }), { turns: [], discarded: [] });
  });

  it('endless speech is cut at maxTurnMs', () => {
    const r = replayEndpointing(trace(12000, [[500, 11000]]), { ...base, maxTurnMs: 4000 });
    assert.equal(r.turns[0]!.reason, 'max-length');
    assert.ok(Math.abs(r.turns[0]!.endMs - (r.turns[0]!.startMs + 4000)) <= 32);
    assert.equal(r.turns.length, 1, 'no new turn until a gap');
  });
});

function report(t: Partial<TurnReport['timings']>): TurnReport {
  const timings = { speechStartMs: 0, speechEndMs: 1000, endOfTurnMs: 1600, sttFinalMs: 1610, llmFirstTokenMs: 1650, firstClauseMs: 1700, firstAudioMs: 1730, lastAudioMs: 3000, ...t };
  return {
    index: 0, userText: 'hi', assistantText: 'hello', heardText: 'hello', interrupted: false, endReason: 'silence', bargeIn: null,
    holdingPhrase: false, mergedContinuation: false, inputGainDb: 0, timings, latency: latencyOf(timings),
    engine: { sttFinalDecodeMs: 5, llmUntilFirstClauseMs: 80, ttsFirstClauseMs: 20 },
  };
}

describe('latency model', () => {
  it('the waterfall is the consecutive stages from the end of speech to the first audio', () => {
    const { stages, totalMs } = waterfall(report({}));
    assert.deepEqual(stages.map((s) => [s.key, s.startMs, s.durationMs]), [
      ['endpoint', 0, 600],
      ['stt', 600, 10],
      ['llm', 610, 40],
      ['clause', 650, 50],
      ['tts', 700, 30],
    ]);
    assert.equal(totalMs, 730);
    // No answer: the waterfall stops at the last stage reached.
    assert.deepEqual(waterfall(report({ llmFirstTokenMs: null, firstClauseMs: null, firstAudioMs: null })).stages.map((s) => s.key), ['endpoint', 'stt']);
  });

  it('percentiles are nearest-rank over the turns that have the stage', () => {
    assert.equal(percentile([], 0.5), null);
    assert.equal(percentile([null, 5], 0.95), 5);
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(xs, 0.5), 50);
    assert.equal(percentile(xs, 0.95), 95);
    const rows = summarize([report({}), report({ firstAudioMs: 1830 }), report({ firstAudioMs: null })]);
    const v2v = rows.find((r) => r.key === 'voiceToVoiceMs')!;
    assert.deepEqual([v2v.count, v2v.p50, v2v.p95], [2, 730, 830]);
  });

  it('settings patches are built from dotted paths', () => {
    assert.deepEqual(patchAt('endpointing.silenceMs', 400), { endpointing: { silenceMs: 400 } });
    assert.deepEqual(patchAt('mode', 'push-to-talk'), { mode: 'push-to-talk' });
    assert.equal(valueAt(DEFAULT_SETTINGS, 'endpointing.silenceMs'), 600);
    assert.equal(valueAt(DEFAULT_SETTINGS, 'nope.x'), undefined);
  });
});

describe('input gain label', () => {
  it('shows how much a quiet microphone is raised, and nothing when it is not', () => {
    assert.equal(inputGainLabel(18.4), '+18 dB');
    assert.equal(inputGainLabel(0.9), '+1 dB');
    assert.equal(inputGainLabel(0.4), null);
    assert.equal(inputGainLabel(0), null);
  });
});
