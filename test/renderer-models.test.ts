/** The renderer's pure models: endpoint replay over a VAD trace, and latency waterfall/percentiles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnReport } from '../electron/pipeline/report';
import { withReportFigures } from '../electron/report/turn-figures';
import { replayEndpointing, type VadPoint } from '../renderer/model/endpoint-replay';
import { percentile } from '../electron/stats';
import { inputGainLabel, llmLine, modelLine, plannedKindLabel, serverHost, talkButtonLabel, turnEnds } from '../renderer/model/labels';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { optionalMissingLine } from '../native-models/setup-plan';
import { echoLine, summarize, waterfall } from '../renderer/model/latency';
import { formatAlarmTime, formatCountdown, formatLength, sortTimers, timerTitle } from '../renderer/model/timers';
import { patchAt, valueAt } from '../renderer/model/settings-patch';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';

/** A trace of 32 ms windows over `durationMs`: probability 0.9 inside the speech spans, 0.05 outside. */
function trace(durationMs: number, speech: [number, number][]): VadPoint[] {
  const out: VadPoint[] = [];
  for (let t = 32; t <= durationMs; t += 32) out.push({ t, p: speech.some(([a, b]) => t - 32 >= a && t <= b + 32) ? 0.9 : 0.05 });
  return out;
}

const base = { vadThreshold: 0.5, minSpeechMs: 250, silenceMs: 600, maxTurnMs: 30000, turnModel: true, turnCheckMs: 200, turnThreshold: 0.5, maxPauseMs: 1600 };

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

  // The pause runs from the last speech window (1504) to the next one (2176); the model answered live
  // 200 ms into it. The second pause (after 2912) has no recorded check.
  const sure = { loaded: true, checks: [{ atMs: 1728, probability: 0.93 }] };
  const ended = (r: ReturnType<typeof replayEndpointing>, i: number) => r.turns[i]!.endMs - r.turns[i]!.speechEndMs;

  it('with the model, a pause it judged finished ends at speech end + turnCheckMs, by the model', () => {
    const r = replayEndpointing(pause, { ...base, silenceMs: 1000 }, sure);
    assert.equal(r.turns.length, 2, JSON.stringify(r.turns));
    assert.equal(r.turns[0]!.reason, 'turn-model');
    assert.ok(ended(r, 0) >= 200 && ended(r, 0) < 232, `ended ${ended(r, 0)} ms after speech`);
    // No check in the last pause: the ceiling ends it, not silenceMs.
    assert.equal(r.turns[1]!.reason, 'silence');
    assert.ok(Math.abs(ended(r, 1) - 1600) <= 32, `ended ${ended(r, 1)} ms after speech`);
    // The live answer is reused when the replay asks earlier or later in the same pause.
    const later = replayEndpointing(pause, { ...base, turnCheckMs: 400 }, sure);
    assert.equal(later.turns[0]!.reason, 'turn-model');
    assert.ok(ended(later, 0) >= 400 && ended(later, 0) < 432, `ended ${ended(later, 0)} ms after speech`);
  });

  it('with the threshold above the probability, the pause may run to maxPauseMs', () => {
    const whole = replayEndpointing(pause, { ...base, silenceMs: 400, turnThreshold: 0.95 }, sure);
    assert.equal(whole.turns.length, 1, 'speech resumed before the ceiling');
    assert.equal(whole.turns[0]!.reason, 'silence');
    assert.ok(Math.abs(whole.turns[0]!.speechEndMs - 2930) <= 40);
    const ceiling = replayEndpointing(pause, { ...base, turnThreshold: 0.95, maxPauseMs: 400 }, sure);
    assert.equal(ceiling.turns.length, 2);
    assert.equal(ceiling.turns[0]!.reason, 'silence');
    assert.ok(Math.abs(ended(ceiling, 0) - 400) <= 32, `ended ${ended(ceiling, 0)} ms after speech`);
  });

  it('a check outside the pause is not used for it: the pause falls back to the ceiling', () => {
    const elsewhere = { loaded: true, checks: [{ atMs: 1200, probability: 0.99 }, { atMs: 2500, probability: 0.99 }] };
    const r = replayEndpointing(pause, { ...base, silenceMs: 400 }, elsewhere);
    assert.equal(r.turns.length, 1, JSON.stringify(r.turns));
    assert.equal(r.turns[0]!.reason, 'silence');
  });

  it('without a model loaded, or with it switched off, silenceMs decides as before', () => {
    for (const [settings, model] of [
      [base, { loaded: false, checks: sure.checks }],
      [{ ...base, turnModel: false }, sure],
    ] as const) {
      const split = replayEndpointing(pause, { ...settings, silenceMs: 400 }, model);
      assert.equal(split.turns.length, 2);
      assert.deepEqual(split.turns.map((t) => t.reason), ['silence', 'silence']);
      assert.ok(Math.abs(ended(split, 0) - 400) <= 32, `ended ${ended(split, 0)} ms after speech`);
      assert.equal(replayEndpointing(pause, { ...settings, silenceMs: 1000 }, model).turns.length, 1);
    }
  });
});

function report(t: Partial<TurnReport['timings']>): TurnReport {
  const timings = { speechStartMs: 0, speechEndMs: 1000, endOfTurnMs: 1600, sttFinalMs: 1610, llmFirstTokenMs: 1650, firstClauseMs: 1700, firstAudioMs: 1730, lastAudioMs: 3000, ...t };
  return withReportFigures({
    index: 0, userText: 'hi', assistantText: 'hello', heardText: 'hello', interrupted: false, startedBy: 'speech', endReason: 'silence', bargeIn: null, backchannels: [],
    holdingPhrase: false, mergedContinuation: false, inputGainDb: 0, turnDetector: null, command: null, llmUsed: true, llm: { provider: 'local', fallback: false, error: null }, prepared: 'none', preparedLeadMs: null, timings,
    engine: { sttFinalDecodeMs: 5, llmUntilFirstClauseMs: 80, ttsFirstClauseMs: 20 },
    echo: null,
  });
}

describe('latency model', () => {
  it('the waterfall is the consecutive stages from the end of speech to the first audio', () => {
    const { stages, totalMs } = waterfall(report({}));
    assert.deepEqual(stages.map((s) => [s.key, s.startMs, s.durationMs]), [
      ['endpoint', 0, 600],
      ['stt', 600, 10],
      ['llm', 610, 40],
      ['clause', 650, 50],
      ['tts', 700, 20],
    ]);
    assert.equal(totalMs, 730);
    // No answer: the waterfall stops at the last stage reached.
    assert.deepEqual(waterfall(report({ llmFirstTokenMs: null, firstClauseMs: null, firstAudioMs: null })).stages.map((s) => s.key), ['endpoint', 'stt']);
    assert.equal(waterfall(report({})).complete, true);
    assert.equal(waterfall(report({ firstAudioMs: null })).complete, false);
  });

  it('a turn answered by a local command shows a command stage, named, in place of the LLM stages', () => {
    const r = { ...report({ llmFirstTokenMs: null, firstClauseMs: 1640, firstAudioMs: 1700 }), command: { name: 'timer.start', slots: { durationMs: 5000 } }, llmUsed: false };
    const { stages, totalMs, complete } = waterfall(r);
    assert.deepEqual(stages.map((s) => [s.key, s.label, s.startMs, s.durationMs]), [
      ['endpoint', 'Endpoint wait', 0, 600],
      ['stt', 'Speech to text', 600, 10],
      ['command', 'command: timer.start', 610, 30],
      ['tts', 'TTS first audio', 640, 20],
    ]);
    assert.equal(totalMs, 700);
    assert.equal(complete, true);
    // A command that says nothing ("stop") ends at the command stage: not a complete waterfall.
    const stop = { ...report({ llmFirstTokenMs: null, firstClauseMs: null, firstAudioMs: null }), command: { name: 'stop', slots: {} }, llmUsed: false };
    assert.deepEqual(waterfall(stop).stages.map((s) => s.key), ['endpoint', 'stt']);
    assert.equal(waterfall(stop).complete, false);
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
    // A prepared answer's first token came before the final words: no wait, not a negative one.
    const llm = summarize([report({ llmFirstTokenMs: 1500 })]).find((r) => r.key === 'llmTtftMs')!;
    assert.deepEqual([llm.count, llm.p50], [1, 0]);
  });

  it('settings patches are built from dotted paths', () => {
    assert.deepEqual(patchAt('endpointing.silenceMs', 400), { endpointing: { silenceMs: 400 } });
    assert.deepEqual(patchAt('mode', 'push-to-talk'), { mode: 'push-to-talk' });
    assert.equal(valueAt(DEFAULT_SETTINGS, 'endpointing.silenceMs'), 600);
    assert.equal(valueAt(DEFAULT_SETTINGS, 'nope.x'), undefined);
  });
});

describe('echo line (the last answer that played)', () => {
  it('names the ERLE after the first second, else over the whole answer, and skips turns with no answer', () => {
    assert.equal(echoLine([]), null);
    const played = { ...report({}), index: 2, echo: { erleDb: 30.4, erleSettledDb: 41.2, tailMs: 608 } };
    const short = { ...report({}), index: 3, echo: { erleDb: 22.6, erleSettledDb: null, tailMs: 608 } };
    const command = { ...report({}), index: 4, echo: null };
    assert.equal(echoLine([played, command]), 'Own voice cancelled by 41 dB (608 ms echo tail), turn 3');
    assert.equal(echoLine([played, short, command]), 'Own voice cancelled by 23 dB (608 ms echo tail), turn 4');
    assert.equal(echoLine([{ ...played, echo: { erleDb: null, erleSettledDb: null, tailMs: 608 } }]), 'Own voice: no echo measured (608 ms echo tail), turn 3');
  });
});

describe('timers panel', () => {
  it('counts down to the second, rounding up, and never below 0:00', () => {
    assert.equal(formatCountdown(5000), '0:05');
    assert.equal(formatCountdown(4001), '0:05');
    assert.equal(formatCountdown(1), '0:01');
    assert.equal(formatCountdown(0), '0:00');
    assert.equal(formatCountdown(-3000), '0:00');
    assert.equal(formatCountdown(10 * 60_000), '10:00');
    assert.equal(formatCountdown(3_723_000), '1:02:03');
  });

  it('names and lengths read as the user said them', () => {
    assert.equal(timerTitle({ kind: 'timer', name: null }), 'Timer');
    assert.equal(timerTitle({ kind: 'timer', name: 'pasta' }), 'pasta timer');
    assert.equal(timerTitle({ kind: 'alarm', name: null }), 'Alarm');
    assert.equal(formatLength(5000), '5 s');
    assert.equal(formatLength(600_000), '10 min');
    assert.equal(formatLength(5_400_000), '1 h 30 min');
    assert.equal(formatLength(150_000), '2 min 30 s');
  });

  it('an alarm shows its clock time, with the day when it is not today', () => {
    const now = new Date(2025, 2, 10, 20, 15).getTime();
    assert.equal(formatAlarmTime(new Date(2025, 2, 10, 21, 30).getTime(), now), '9:30 PM');
    assert.equal(formatAlarmTime(new Date(2025, 2, 11, 7, 0).getTime(), now), '7:00 AM tomorrow');
    assert.match(formatAlarmTime(new Date(2025, 2, 13, 7, 0).getTime(), now), /^7:00 AM Thu, Mar 13$/);
  });

  it('ringing ones come first, then the soonest', () => {
    const t = (id: string, dueAtMs: number, ringing = false) => ({ id, kind: 'timer' as const, name: null, durationMs: 1000, dueAtMs, ringing });
    assert.deepEqual(sortTimers([t('a', 300), t('b', 100), t('c', 500, true)]).map((x) => x.id), ['c', 'b', 'a']);
  });
});

describe('where the LLM runs, in the status bar', () => {
  it('names the GPU backend and layers, the CPU alone, or the server\'s model and host', () => {
    assert.equal(llmLine({ backend: 'cuda', gpuLayers: 33, totalLayers: 33 }), 'LLM on CUDA · 33/33 layers');
    assert.equal(llmLine({ backend: 'cpu', gpuLayers: 0, totalLayers: 33 }), 'LLM on CPU');
    assert.equal(
      llmLine({ backend: 'server', gpuLayers: 0, totalLayers: 0, server: { baseUrl: 'http://gpu-box.local:11434/v1', model: 'llama3.2:3b' } }),
      'LLM llama3.2:3b on gpu-box.local:11434',
    );
    assert.equal(serverHost('not a url'), 'not a url');
  });
});

describe('one-shot labels', () => {
  it('the talk button says what a press does now, with the shortcut as this platform writes it', () => {
    assert.equal(talkButtonLabel('idle', 'CommandOrControl+Alt+Space', 'linux'), 'Press to talk (Space or Ctrl+Alt+Space)');
    assert.equal(talkButtonLabel('idle', '', 'linux'), 'Press to talk (Space)');
    assert.equal(talkButtonLabel('listening', 'x', 'linux'), 'Listening… press again to stop');
    assert.equal(talkButtonLabel('hearing', 'x', 'linux'), 'Hearing you… press to send now');
    assert.match(talkButtonLabel('speaking', 'CommandOrControl+Alt+Space', 'darwin'), /^Press to interrupt and talk \(Space or .*Space\)$/);
  });
  it('a turn says how it started and ended', () => {
    assert.equal(turnEnds({ startedBy: 'activation', endReason: 'activation' }), 'started by a press · ended by a second press');
    assert.equal(turnEnds({ startedBy: 'activation', endReason: 'turn-model' }), 'started by a press · ended by the end-of-turn model');
    assert.equal(turnEnds({ startedBy: 'push-to-talk', endReason: 'push-to-talk' }), 'ended by release');
    assert.equal(turnEnds({ startedBy: 'speech', endReason: 'silence' }), 'ended by silence');
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

describe('models panel and first-run labels', () => {
  it('a loaded end-of-turn model shows like the others; a missing one says silence alone ends turns and how to get it', () => {
    assert.deepEqual(modelLine({ kind: 'turn', state: 'ready', id: 'smart-turn-v3.2-cpu', name: 'Smart Turn v3.2 (CPU, int8)', loadMs: 41.6 }), {
      name: 'Smart Turn v3.2 (CPU, int8)',
      state: 'loaded in 42 ms',
    });
    assert.deepEqual(modelLine({ kind: 'turn', state: 'missing' }), { name: 'none installed', state: 'optional' });
    assert.equal(
      optionalMissingLine('turn', DEFAULT_CATALOG),
      'No end-of-turn model is installed: turn ends are decided by silence alone. To get it: `npm run models -- fetch smart-turn-v3.2-cpu` (8.3 MB), then restart the assistant.',
    );
    assert.equal(plannedKindLabel('turn', true), 'End of turn (optional)');
    assert.equal(plannedKindLabel('llm', false), 'Language model');
  });
});
