/**
 * One-shot listening in the pipeline, on the real engines (Silero VAD, the streaming test recognizer,
 * the end-of-turn stand-in, stories260K, the formant voice) over ../shared/speech: an activation
 * opens the microphone for exactly one turn, speech without one is ignored, a second one ends the
 * turn or stops the answer at once, and the listening cues play (or not) on the output.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { runInput } from '../electron/pipeline/run/run-input';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { MANIFEST, MODEL_ROOTS, loadClip16k, words } from './engine-fixtures';

const ONE_SHOT = mergeSettings(DEFAULT_SETTINGS, { mode: 'one-shot', llm: { temperature: 0, maxTokens: 32, threads: 1 } });

let engines: LoadedEngines;
before(async () => {
  engines = await loadEngines(() => ONE_SHOT, MODEL_ROOTS);
});
after(async () => {
  await engines?.dispose();
});

/**
 * Plays `clip` through a pipeline under `settings`, activating it at each of `activations` (ms on
 * the input's timeline, as `talk --activate` does) and pressing the push-to-talk key over `ptt`.
 * Returns the reports, every event, and the pipeline time of each activation.
 */
async function run(clip: string, opts: { activations?: number[]; settings?: Settings; ptt?: [number, number] } = {}) {
  const settings = opts.settings ?? ONE_SHOT;
  const samples = await loadClip16k(clip);
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  const pending = [...(opts.activations ?? [])];
  const activatedAt: number[] = [];
  const reports = await runInput(pipeline, samples, clock, output, {
    fast: true,
    beforeFrame: (_frame, startMs) => {
      while (pending.length > 0 && pending[0]! <= startMs) {
        pending.shift();
        activatedAt.push(clock.now());
        pipeline.activate();
      }
      if (opts.ptt) pipeline.pushToTalk(startMs >= opts.ptt[0] && startMs < opts.ptt[1]);
    },
  });
  assert.deepEqual(pending, [], 'every activation fired');
  return { reports, events, activatedAt, pipeline, output };
}

const oneShotEvents = (events: PipelineEvent[]) => events.filter((e): e is Extract<PipelineEvent, { type: 'one-shot' }> => e.type === 'one-shot').map((e) => `${e.state}:${e.reason}`);
const cues = (events: PipelineEvent[]) => events.filter((e): e is Extract<PipelineEvent, { type: 'listen-cue' }> => e.type === 'listen-cue');

describe('one-shot listening (real engines)', () => {
  it('an activation over weather gives exactly one turn, started by it, with the right words; cues and states say so', async () => {
    const { reports, events, activatedAt, pipeline, output } = await run('weather', { activations: [200] });
    assert.equal(reports.length, 1);
    const turn = reports[0]!;
    assert.equal(turn.startedBy, 'activation');
    assert.deepEqual(words(turn.userText), words(MANIFEST.weather!.speech[0]!.text));
    assert.ok(['silence', 'turn-model'].includes(turn.endReason), turn.endReason);
    assert.equal(turn.interrupted, false);
    assert.deepEqual(oneShotEvents(events), ['armed:activation', 'turn:speech', 'idle:end-of-turn']);
    // A rising cue as the microphone opened, a falling one as the turn closed it, before the answer.
    const played = cues(events);
    assert.deepEqual(played.map((c) => c.cue), ['start', 'stop']);
    assert.ok(Math.abs(played[0]!.t - activatedAt[0]!) < 1);
    assert.ok(Math.abs(played[1]!.t - turn.timings.endOfTurnMs) < 1);
    assert.ok(turn.timings.firstAudioMs! >= played[1]!.t + 119, 'the answer follows the stop cue');
    // The cue is on the speaker's timeline, so the echo canceller hears it as the assistant's own.
    const ref = output.audible(activatedAt[0]! + 20, 800)!;
    assert.ok(ref && ref.some((x) => Math.abs(x) > 0.01), 'the cue is in the echo reference');
    // The window: idle, listening once activated, hearing, thinking/speaking, idle again.
    const states = events.filter((e) => e.type === 'state').map((e) => e.type === 'state' && e.state);
    assert.equal(states[0], 'idle');
    assert.deepEqual(states.slice(1, 3), ['listening', 'hearing']);
    assert.equal(states.at(-1), 'idle');
    assert.ok(!states.slice(1, 3).includes('speaking'), 'a cue is not the assistant speaking');
    assert.equal(pipeline.oneShot, 'idle');
  });

  it('no activation: the speech is heard (VAD) but no turn, no cue', async () => {
    const { reports, events } = await run('weather');
    assert.equal(reports.length, 0);
    assert.ok(events.some((e) => e.type === 'vad' && e.speech), 'the VAD still ran');
    assert.equal(events.filter((e) => e.type === 'speech-start' || e.type === 'partial').length, 0);
    assert.deepEqual(cues(events), []);
  });

  it('two_turns with one activation: one turn (the kitchen lights); the second segment is ignored', async () => {
    const { reports } = await run('two_turns', { activations: [200] });
    assert.equal(reports.length, 1);
    assert.deepEqual(words(reports[0]!.userText), words(MANIFEST.two_turns!.speech[0]!.text));
  });

  it('two_turns with activations at 0.2 s and 4.9 s: two turns, each started by its activation', async () => {
    const { reports, events } = await run('two_turns', { activations: [200, 4900] });
    assert.equal(reports.length, 2);
    MANIFEST.two_turns!.speech.forEach((seg, i) => assert.deepEqual(words(reports[i]!.userText), words(seg.text)));
    assert.deepEqual(reports.map((r) => r.startedBy), ['activation', 'activation']);
    assert.deepEqual(cues(events).map((c) => c.cue), ['start', 'stop', 'start', 'stop']);
  });

  it('a second activation mid-speech ends the turn at once, with endReason activation', async () => {
    const { reports, events, activatedAt } = await run('weather', { activations: [200, 1500] });
    assert.equal(reports.length, 1);
    const turn = reports[0]!;
    assert.equal(turn.endReason, 'activation');
    assert.ok(Math.abs(turn.timings.endOfTurnMs - activatedAt[1]!) <= 5, `ended ${turn.timings.endOfTurnMs} at the activation ${activatedAt[1]}`);
    assert.ok(turn.timings.speechEndMs <= activatedAt[1]! + 1, `speech ended ${turn.timings.speechEndMs}, activation at ${activatedAt[1]}`);
    assert.deepEqual(words(turn.userText).slice(0, 3), ['what', 'is', 'the'], turn.userText);
    assert.deepEqual(oneShotEvents(events), ['armed:activation', 'turn:speech', 'idle:activation']);
  });

  it('an activation over the answer stops playback within 25 ms, keeps the heard part, and listens again', async () => {
    const long = mergeSettings(ONE_SHOT, { llm: { maxTokens: 256 } });
    const { reports, events, activatedAt } = await run('weather', { activations: [200, 4000], settings: long });
    assert.equal(reports.length, 1);
    const turn = reports[0]!;
    assert.ok(turn.timings.firstAudioMs! < 4000 && turn.timings.firstAudioMs! + 200 < activatedAt[1]!, `the answer was playing: ${JSON.stringify(turn.timings)}`);
    assert.equal(turn.interrupted, true);
    const b = turn.bargeIn!;
    // Reports round to 0.1 ms.
    const stoppedAfter = b.playbackStoppedMs - activatedAt[1]!;
    assert.ok(stoppedAfter >= -0.1 && stoppedAfter <= 25, `playback stopped ${stoppedAfter} ms after the activation`);
    assert.ok(Math.abs(b.speechStartMs! - activatedAt[1]!) <= 1);
    assert.ok(turn.heardText.length > 0 && turn.heardText.length < turn.assistantText.length, `heard "${turn.heardText}"`);
    assert.equal(events.filter((e) => e.type === 'audio' && e.t > b.playbackStoppedMs).length, 0, 'nothing of it queued after');
    // It interrupted and opened the microphone; no speech came, so it closed by itself.
    assert.deepEqual(oneShotEvents(events), ['armed:activation', 'turn:speech', 'idle:end-of-turn', 'armed:activation', 'idle:no-speech']);
  });

  it('with desktop.listenChime off: no cue, and nothing plays before the answer', async () => {
    const quiet = mergeSettings(ONE_SHOT, { desktop: { listenChime: false } });
    const { reports, events, output } = await run('weather', { activations: [200], settings: quiet });
    assert.equal(reports.length, 1);
    assert.deepEqual(cues(events), []);
    assert.equal(oneShotEvents(events).length, 3, 'the states are still told');
    const rate = engines.tts.sampleRate;
    const rendered = output.render(rate);
    const before = rendered.subarray(0, Math.floor(((reports[0]!.timings.firstAudioMs! - 5) / 1000) * rate));
    assert.ok(before.every((x) => x === 0), 'silent before the answer');
  });

  it('hands-free and push-to-talk turns say what started them', async () => {
    const handsFree = await run('weather', { settings: mergeSettings(ONE_SHOT, { mode: 'hands-free' }), activations: [100] });
    assert.deepEqual(handsFree.reports.map((r) => r.startedBy), ['speech']);
    assert.deepEqual(cues(handsFree.events), [], 'an activation outside one-shot mode does nothing');
    assert.equal(handsFree.pipeline.oneShot, null);
    const ptt = await run('weather', { settings: mergeSettings(ONE_SHOT, { mode: 'push-to-talk' }), ptt: [400, 2300] });
    assert.deepEqual(ptt.reports.map((r) => [r.startedBy, r.endReason]), [['push-to-talk', 'push-to-talk']]);
  });
});
