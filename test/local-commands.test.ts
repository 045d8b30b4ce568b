/**
 * Spoken commands answered locally, on the real engines (Silero VAD, the streaming test recognizer,
 * the end-of-turn stand-in, stories260K, the formant voice) over ../shared/speech/commands: timers
 * that ring on the pipeline clock, the time of day, "stop" over an answer, "repeat that", and a
 * request that only mentions a timer going to the language model.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';
import type { ChatMessage, LanguageModel } from '../electron/engines/llm-types';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { runInput } from '../electron/pipeline/run/run-input';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings } from '../electron/settings/schema';
import { TimerBook } from '../electron/timers/timer-book';
import { MODEL_ROOTS, SPEECH_DIR } from './engine-fixtures';
import { withoutNow } from './conversation-text';

const SETTINGS = mergeSettings(DEFAULT_SETTINGS, { llm: { temperature: 0, maxTokens: 48, threads: 1 } });
/** 15:42 local time today: the time of day the clips are "spoken" at. */
const at1542 = () => {
  const d = new Date();
  d.setHours(15, 42, 0, 0);
  return d.getTime();
};

let engines: LoadedEngines;
before(async () => {
  engines = await loadEngines(() => SETTINGS, MODEL_ROOTS);
});
after(async () => {
  await engines?.dispose();
});

async function talk(clip: string, settings = SETTINGS) {
  const samples = toMono16k(await readWavFile(path.join(SPEECH_DIR, 'commands', `${clip}.wav`)));
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const prompts: string[] = [];
  const llm: LanguageModel = {
    info: engines.llm.info,
    countTokens: (t) => engines.llm.countTokens(t),
    dispose: async () => {},
    generate: (messages: readonly ChatMessage[], opts) => {
      prompts.push(withoutNow(messages[messages.length - 1]!.text));
      return engines.llm.generate(messages, opts);
    },
  };
  const timers = new TimerBook();
  const epochBase = at1542();
  const pipeline = new VoicePipeline({ ...engines, llm }, output, clock, () => settings, { timers, epochBase });
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  const reports = await runInput(pipeline, samples, clock, output, { fast: true, wakeWithinMs: 30_000 });
  const rendered = { rate: engines.tts.sampleRate, x: output.render(engines.tts.sampleRate, Math.max(samples.length / 16, output.endMs)) };
  return { reports, events, prompts, timers: timers.all(), epochBase, rendered };
}

/** Start times (ms) of sound in a render: where it rises above silence after at least 300 ms of quiet. */
function onsets({ rate, x }: { rate: number; x: Float32Array }): number[] {
  const out: number[] = [];
  const per = rate / 1000;
  let quietSince = 0;
  for (let ms = 0; ms * per < x.length; ms++) {
    let peak = 0;
    for (let i = Math.floor(ms * per); i < Math.min(x.length, Math.floor((ms + 1) * per)); i++) peak = Math.max(peak, Math.abs(x[i]!));
    if (peak > 0.01) {
      if (ms - quietSince >= 300) out.push(ms);
      quietSince = ms + 1;
    }
  }
  return out;
}

describe('local commands (real engines)', () => {
  it('"set a timer for five seconds": a local command, no LLM; the chime and the notice 5 s after the end of the turn', async () => {
    const { reports, prompts, timers, epochBase, rendered, events } = await talk('timer_5s');
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.deepEqual(r.command, { name: 'timer.start', slots: { name: null, durationMs: 5000 } });
    assert.equal(r.llmUsed, false);
    assert.equal(r.assistantText, 'Timer set for five seconds.');
    assert.deepEqual(prompts, [], 'the language model was never asked');
    assert.equal(timers.length, 1);
    const t = timers[0]!;
    const endOfTurn = r.timings.endOfTurnMs;
    assert.ok(Math.abs(t.setAtMs - epochBase - endOfTurn) < 1, 'it runs from the end of the turn');
    assert.ok(events.some((e) => e.type === 'timer' && e.text === 'Your timer is done.'));
    // In the audio: the confirmation right after the turn, then the ring starting 5 s after its end.
    const sounds = onsets(rendered);
    assert.ok(sounds.some((ms) => Math.abs(ms - r.timings.firstAudioMs!) <= 40), `confirmation at ${r.timings.firstAudioMs}: ${sounds}`);
    const ring = sounds.find((ms) => ms > endOfTurn + 2500)!;
    assert.ok(Math.abs(ring - (endOfTurn + 5000)) <= 150, `the ring starts ${ring - endOfTurn} ms after the end of the turn`);
  });

  it('"what time is it": the local time of day, no LLM', async () => {
    const { reports, prompts } = await talk('what_time');
    assert.equal(reports[0]!.command?.name, 'time.now');
    assert.equal(reports[0]!.assistantText, "It's three forty two p.m.");
    assert.deepEqual(prompts, []);
  });

  it('a timer set and then cancelled in the same clip: nothing rings', async () => {
    const { reports, timers, events, rendered } = await talk('timer_cancel');
    assert.deepEqual(reports.map((r) => r.command?.name), ['timer.start', 'timer.cancel']);
    assert.equal(timers[0]!.firedAtMs, null);
    assert.notEqual(timers[0]!.cancelledAtMs, null);
    assert.equal(events.filter((e) => e.type === 'timer').length, 0);
    const lastReply = reports[1]!.timings.lastAudioMs!;
    assert.deepEqual(onsets(rendered).filter((ms) => ms > lastReply + 100), [], 'silence after "Timer canceled."');
  });

  it('"stop" over a long answer: playback stops at once and the answer does not resume', async () => {
    // Room for a story still playing when "stop" comes 4 s after the question (the stand-in's 48 tokens may end sooner).
    const { reports, events } = await talk('stop_over_answer', mergeSettings(SETTINGS, { llm: { maxTokens: 160 } }));
    const story = reports[0]!;
    assert.equal(story.llmUsed, true);
    assert.equal(story.interrupted, true);
    const b = story.bargeIn!;
    // Playback was already held when the word was heard; it stopped there, not later.
    assert.ok(b.playbackStoppedMs <= b.detectedMs + 100, JSON.stringify(b));
    assert.ok(b.playbackStoppedMs >= 6861 - 100, `stopped at ${b.playbackStoppedMs}, the word began at 6.86 s`);
    assert.equal(events.filter((e) => e.type === 'playback' && e.action === 'resumed').length, 0, 'never resumed');
    assert.equal(events.filter((e) => e.type === 'audio' && e.t > b.detectedMs).length, 0, 'nothing of it queued after');
  });

  it('"repeat that" says the last answer again; a story about a timer goes to the language model', async () => {
    const repeat = await talk('repeat_that');
    assert.deepEqual(repeat.reports.map((r) => r.command?.name), ['time.now', 'repeat']);
    assert.equal(repeat.reports[1]!.assistantText, repeat.reports[0]!.assistantText);
    const story = await talk('not_a_command');
    assert.equal(story.reports[0]!.command, null);
    assert.equal(story.reports[0]!.llmUsed, true);
    assert.ok(story.prompts.length >= 1);
  });
});
