/**
 * Listening like a person, on the real engines (Silero VAD, the streaming test recognizer, the
 * end-of-turn stand-in, stories260K, the formant voice) over ../shared/speech/listening: an
 * acknowledgement said over the answer neither stops it nor becomes a turn, and a real
 * interruption after one still stops it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { runInput } from '../electron/pipeline/run/run-input';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { LOUD_HOLD_MS, UNCLEAR_HOLD_MS } from '../electron/pipeline/respond/barge-in';
import { DEFAULT_SETTINGS, mergeSettings } from '../electron/settings/schema';
import { MODEL_ROOTS, SPEECH_DIR, type ManifestClip } from './engine-fixtures';

const LISTENING = path.join(SPEECH_DIR, 'listening');
const MANIFEST: Record<string, ManifestClip> = JSON.parse(readFileSync(path.join(LISTENING, 'manifest.json'), 'utf8'));
/** The shipped settings; a deterministic model whose story outlasts the clip. */
const SETTINGS = mergeSettings(DEFAULT_SETTINGS, { llm: { temperature: 0, maxTokens: 160, threads: 1 } });

let engines: LoadedEngines;
before(async () => {
  engines = await loadEngines(() => SETTINGS, MODEL_ROOTS);
});
after(async () => {
  await engines?.dispose();
});

async function listen(name: string, settings = SETTINGS) {
  const samples = toMono16k(await readWavFile(path.join(LISTENING, MANIFEST[name]!.file)));
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  const reports = await runInput(pipeline, samples, clock, output, { fast: true, wakeWithinMs: settings.mode === 'wake-phrase' ? 15_000 : 0 });
  const rate = engines.tts.sampleRate;
  return { reports, events, history: pipeline.conversation.messages().slice(1), speech: MANIFEST[name]!.speech, rendered: output.render(rate, samples.length / 16), rate };
}

/** The longest stretch (ms) within [fromMs, toMs) in which the rendered answer is silent (5 ms blocks under -60 dBFS). */
function longestSilenceMs(x: Float32Array, rate: number, fromMs: number, toMs: number): number {
  const block = Math.round(rate / 200);
  let longest = 0;
  let run = 0;
  for (let i = Math.round((fromMs / 1000) * rate); i + block <= Math.min(x.length, (toMs / 1000) * rate); i += block) {
    let e = 0;
    for (let k = i; k < i + block; k++) e += x[k]! * x[k]!;
    run = e / block < 1e-6 ? run + 5 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe('listening: acknowledgements over the answer (real engines)', () => {
  it('backchannels.wav: "mm hmm", "yeah" and "okay" leave the answer playing, are no turns, and are listed in its report', async (t) => {
    const { reports, events, history, speech, rendered, rate } = await listen('backchannels');
    assert.equal(reports.length, 1, `one turn: ${reports.map((r) => r.userText).join(' | ')}`);
    const story = reports[0]!;
    assert.equal(story.interrupted, false);
    assert.equal(story.bargeIn, null);
    assert.equal(story.heardText, story.assistantText, 'all of it was heard');
    assert.equal(history.length, 2, 'only the request and its answer are in the history');
    const acks = speech.slice(1);
    // Silent only for the onset hold at each acknowledgement's first sound (LOUD_HOLD_MS for one as loud as
    // the request, as these are; UNCLEAR_HOLD_MS while its words show nothing yet): back within it, never stopped.
    const holds = events.flatMap((e) => (e.type === 'playback' && (e.action === 'paused' || e.action === 'resumed') ? [e] : []));
    assert.ok(holds.length <= 2 * acks.length, JSON.stringify(holds));
    for (let i = 0; i < holds.length; i += 2) {
      const [paused, resumed] = [holds[i]!, holds[i + 1]];
      assert.equal(paused.action, 'paused');
      assert.ok(resumed?.action === 'resumed' && resumed.t - paused.t <= Math.max(SETTINGS.bargeIn.onsetHoldMs, LOUD_HOLD_MS, UNCLEAR_HOLD_MS) + 40, `paused at ${paused.t} ms, resumed at ${resumed?.t} ms`);
    }
    assert.equal(story.backchannels.length, acks.length, JSON.stringify(story.backchannels));
    story.backchannels.forEach((b, i) => {
      const said = acks[i]!;
      assert.ok(Math.abs(b.atMs - said.start * 1000) <= 150, `${said.text} began at ${said.start} s, listed at ${b.atMs} ms`);
      const gap = longestSilenceMs(rendered, rate, said.start * 1000 - 100, said.end * 1000 + 500);
      t.diagnostic(`"${said.text}": longest silence in the answer ${gap} ms`);
      assert.ok(gap <= UNCLEAR_HOLD_MS + 40, `${gap} ms of silence in the answer at "${said.text}"`);
    });
    assert.equal(events.filter((e) => e.type === 'backchannel').length, acks.length);
  });

  it('backchannel_then_interrupt.wav: "right" passes; "wait, tell me about the knight instead" stops the answer within 350 ms and is the next turn', async () => {
    const { reports, speech } = await listen('backchannel_then_interrupt');
    assert.equal(reports.length, 2, `two turns: ${reports.map((r) => r.userText).join(' | ')}`);
    const [story, next] = reports as [(typeof reports)[0], (typeof reports)[0]];
    assert.deepEqual(story.backchannels.map((b) => b.text), ['right']);
    assert.equal(story.interrupted, true);
    const wait = speech[2]!;
    const stoppedAfter = story.bargeIn!.playbackStoppedMs - wait.start * 1000;
    assert.ok(stoppedAfter >= 0 && stoppedAfter <= 350, `stopped ${stoppedAfter} ms after the interruption began`);
    assert.ok(Math.abs(next.timings.speechStartMs - wait.start * 1000) <= 150, `the next turn is the interruption (from ${next.timings.speechStartMs} ms)`);
    assert.match(next.userText, /tell me about the/);
  });
});

describe('listening: the wake phrase (real engines)', () => {
  const WAKE = mergeSettings(SETTINGS, { mode: 'wake-phrase', wakePhrase: 'hey computer', llm: { maxTokens: 32 } });
  const wakeEvents = (events: PipelineEvent[]) => events.flatMap((e) => (e.type === 'wake-phrase' ? [e.state] : []));

  it('wake_time.wav: one turn, "what time is it", answered locally and started by the phrase', async () => {
    const { reports, events, history } = await listen('wake_time', WAKE);
    assert.deepEqual(reports.map((r) => [r.userText, r.startedBy, r.command?.name ?? null, r.llmUsed]), [['what time is it', 'wake-phrase', 'time.now', false]]);
    assert.deepEqual(wakeEvents(events), ['heard']);
    assert.ok(history.every((m) => !/computer/.test(m.text)), 'the phrase is in no history');
  });

  it('wake_pause_timer.wav: the phrase alone, a pause, then the request: one turn that sets the timer, and it rings', async () => {
    const { reports, events } = await listen('wake_pause_timer', WAKE);
    assert.equal(reports.length, 1, reports.map((r) => r.userText).join(' | '));
    assert.equal(reports[0]!.startedBy, 'wake-phrase');
    assert.equal(reports[0]!.command?.name, 'timer.start');
    assert.deepEqual(wakeEvents(events), ['listening', 'heard']);
    assert.equal(events.filter((e) => e.type === 'listen-cue').length, 1, 'the listening cue played once, for the phrase alone');
    assert.equal(events.filter((e) => e.type === 'timer').length, 1, 'it rang');
  });

  it('no_wake.wav: two people talking without the phrase: no turn, no answer, no history', async () => {
    const { reports, events, history } = await listen('no_wake', WAKE);
    assert.equal(reports.length, 0);
    assert.deepEqual(wakeEvents(events), ['ignored', 'ignored']);
    assert.equal(history.length, 0);
    assert.equal(events.filter((e) => e.type === 'audio').length, 0, 'nothing was said');
  });

  it('wake_then_other.wav: the request after the phrase is answered; the room talk after it is not', async () => {
    const { reports, events } = await listen('wake_then_other', WAKE);
    assert.equal(reports.length, 1, reports.map((r) => r.userText).join(' | '));
    assert.match(reports[0]!.userText, /^tell me a/);
    assert.deepEqual(wakeEvents(events), ['heard', 'ignored']);
  });
});

