/**
 * Scheduling logic of the pipeline (holding phrase, continuation merge, timeouts while the microphone
 * is muted, report bookkeeping) with SCRIPTED engines: a VAD that hears any non-zero window, a recognizer that returns scripted words, a language model
 * that answers after a set delay and logs the history it is given, and a voice that is a tone.
 * These stand in for the engines only to control timing; every engine is tested for real elsewhere.
 */
import { LOUD_HOLD_MS, UNCLEAR_HOLD_MS } from '../electron/pipeline/respond/barge-in';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, GenerateOptions, LanguageModel } from '../electron/engines/llm-types';
import type { SpeechRecognizer } from '../electron/engines/stt';
import type { SpeechSynthesizer } from '../electron/engines/tts';
import type { VoiceActivityDetector } from '../electron/engines/vad';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedAudio } from '../electron/pipeline/run/feed';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { withoutNow } from './conversation-text';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The conversation after its system prompt, one "role:text" a message. */
const said = (messages: readonly ChatMessage[]) => messages.slice(1).map((m) => `${m.role}:${withoutNow(m.text)}`);

function scriptedEngines(opts: { firstTokenDelayMs: number; transcripts: string[] }) {
  const given: string[][] = [];
  const prompts: string[] = [];
  const vad: VoiceActivityDetector = {
    info: { id: 'scripted-vad', loadMs: 0, threshold: 0.5 },
    accept: async (w) => {
      const speech = w.some((x) => x !== 0);
      return { speech, probability: speech ? 0.9 : 0.05 };
    },
    setThreshold: () => {},
    reset: () => {},
    dispose: async () => {},
  };
  let session = 0;
  const stt: SpeechRecognizer = {
    streaming: true,
    leadInMs: 0,
    info: { id: 'scripted-stt', kind: 'streaming', loadMs: 0 },
    busy: false,
    createSession: () => {
      return { accept: () => {}, abort: () => {}, finish: async () => opts.transcripts[session++] ?? '' };
    },
  };
  const llm: LanguageModel = {
    info: { id: 'scripted-llm', backend: 'cpu', gpuDevices: [], gpuLayers: 0, totalLayers: 0, contextSize: 4096, loadMs: 0, warmUpMs: 0 },
    async generate(messages: readonly ChatMessage[], o: GenerateOptions) {
      given.push(said(messages));
      prompts.push(withoutNow(messages[messages.length - 1]!.text));
      await sleep(opts.firstTokenDelayMs);
      if (o.signal?.aborted) return { text: '', stopReason: 'abort' };
      const answer = 'Sure, here it is. That is all.';
      o.onText(answer);
      return { text: answer, stopReason: 'eogToken' };
    },
    countTokens: (text) => text.split(' ').length,
    dispose: async () => {},
  };
  const tts: SpeechSynthesizer = {
    sampleRate: 16000,
    info: { id: 'scripted-tts', sampleRate: 16000, numSpeakers: 1, loadMs: 0 },
    synthesize: async (text) => new Float32Array(16000 * 0.02 * text.length).fill(0.1),
  };
  return { engines: { vad, stt, llm, tts }, given, prompts };
}

/** A tone where `speech` says, silence elsewhere (16 kHz). */
function input(speech: [number, number][], totalMs: number): Float32Array {
  const x = new Float32Array((totalMs / 1000) * 16000);
  for (const [a, b] of speech) for (let i = (a / 1000) * 16000; i < (b / 1000) * 16000; i++) x[i] = 0.2 * Math.sin(i / 5);
  return x;
}

async function run(settings: Settings, engines: ReturnType<typeof scriptedEngines>['engines'], audio: Float32Array) {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  await sleep(20); // holding phrases are synthesized in the background at start
  await feedAudio(pipeline, audio, clock, output, { fast: true });
  await pipeline.drain();
  pipeline.settle();
  return { reports: pipeline.reports, events, output, history: said(pipeline.conversation.messages()) };
}

describe('pipeline scheduling (scripted engines)', () => {
  it('speaks a holding phrase when no answer audio is ready within turnBudgetMs, and records it', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 1200, transcripts: ['what is the meaning of life'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { reports, events, history } = await run(settings, s.engines, input([[500, 1500]], 3000));
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.equal(r.holdingPhrase, true);
    const hold = events.find((e) => e.type === 'holding-phrase');
    assert.ok(hold && hold.type === 'holding-phrase');
    const late = hold.t - r.timings.endOfTurnMs;
    assert.ok(late >= 500 && late <= 600, `holding phrase ${late} ms after the end of turn`);
    assert.ok(r.timings.firstAudioMs! > hold.t, 'the answer follows the holding phrase');
    assert.deepEqual(history, ['user:what is the meaning of life', 'assistant:Sure, here it is. That is all.'], 'the phrase is not in history');
  });

  it('says no holding phrase when the answer is ready in time', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['what is the meaning of life'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { reports, events } = await run(settings, s.engines, input([[500, 1500]], 3000));
    assert.equal(reports[0]!.holdingPhrase, false);
    assert.equal(events.filter((e) => e.type === 'holding-phrase').length, 0);
  });

  it('merges a continuation started before any answer was heard, and drops the pending answer from history', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 900, transcripts: ['tell me about the', 'old castle'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { endpointing: { silenceMs: 400 }, turnBudgetMs: 3000 });
    const { reports, events, history } = await run(settings, s.engines, input([[500, 1500], [2300, 3000]], 5000));
    assert.equal(reports.length, 1, JSON.stringify(reports.map((r) => r.userText)));
    const r = reports[0]!;
    assert.equal(r.mergedContinuation, true);
    assert.equal(r.userText, 'tell me about the old castle');
    assert.ok(Math.abs(r.timings.speechStartMs - 500) <= 40, `starts with the first part: ${r.timings.speechStartMs}`);
    assert.ok(Math.abs(r.timings.speechEndMs - 3000) <= 40, `ends with the second part: ${r.timings.speechEndMs}`);
    assert.equal(events.filter((e) => e.type === 'merged').length, 1);
    // The first answer never played: the only audio is the merged turn's.
    const audioTurns = new Set(events.filter((e) => e.type === 'audio').map((e) => (e as { turn: number }).turn));
    assert.deepEqual([...audioTurns], [1]);
    assert.deepEqual(s.prompts, ['tell me about the', 'tell me about the old castle']);
    // The first exchange left history before the merged turn was prompted.
    assert.deepEqual(s.given, [['user:tell me about the'], ['user:tell me about the old castle']]);
    assert.deepEqual(history, ['user:tell me about the old castle', 'assistant:Sure, here it is. That is all.']);
  });
});

/** Microphone windows up to `untilMs`, then none: the microphone was muted. */
async function micUntil(pipeline: VoicePipeline, clock: FastForwardClock, audio: Float32Array, untilMs: number) {
  for (let k = 0; (k + 1) * 32 <= untilMs; k++) {
    await advanceTo(pipeline, clock, (k + 1) * 32);
    await pipeline.pushAudio(audio.subarray(k * 512, (k + 1) * 512));
  }
}

/** As feedAudio moves the clock: skipped while the pipeline only waits, at wall speed while an engine works. */
async function advanceTo(pipeline: VoicePipeline, clock: FastForwardClock, t: number) {
  if (!pipeline.busy) clock.skipTo(t);
  else if (t > clock.now()) await sleep(t - clock.now());
  await new Promise((r) => setImmediate(r));
}

/** The app's 50 ms timer (AssistantController), with no microphone audio, until the pipeline is quiet or `untilMs`. */
async function appTimer(pipeline: VoicePipeline, clock: FastForwardClock, untilMs: number) {
  for (let t = clock.now() + 50; t <= untilMs && pipeline.active; t += 50) {
    await advanceTo(pipeline, clock, t);
    pipeline.tick();
  }
}

function start(settings: Settings, engines: ReturnType<typeof scriptedEngines>['engines']) {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  return { clock, output, pipeline, events };
}

/** A voice of 100 ms a character: the answer plays from about 2.1 s to 5 s. */
function slowVoice(s: ReturnType<typeof scriptedEngines>) {
  return { ...s.engines, tts: { ...s.engines.tts, synthesize: async (text: string) => new Float32Array(1600 * text.length).fill(0.1) } };
}

const playback = (events: PipelineEvent[], action: 'paused' | 'resumed' | 'ducked' | 'restored') =>
  events.find((e): e is Extract<PipelineEvent, { type: 'playback' }> => e.type === 'playback' && e.action === action);

describe('timeouts with the microphone muted (scripted engines)', () => {
  // The user's answer starts at 0.5 s; a sound at 3.0 s, over the answer, pauses it; at 3.2 s,
  // before it could count as speech, the microphone is muted.
  const audio = input([[500, 1500], [3000, 4000]], 4000);

  // Held means paused with backchannels off; with them on, silent for the onset hold and then
  // lowered (ducked), as shipped, or only lowered with no onset hold.
  // The sound is as loud as the request: the onset hold is the loud one (its 40 ms of slack off),
  // and, no words having come by its end, it is lengthened once to UNCLEAR_HOLD_MS.
  const ONSET = LOUD_HOLD_MS - 40;
  const LENGTHENED = UNCLEAR_HOLD_MS - 40;
  const MODES = [
    { name: 'paused', settings: mergeSettings(DEFAULT_SETTINGS, { bargeIn: { backchannels: false } }), held: 'paused', back: 'resumed', onset: false },
    { name: 'lowered', settings: mergeSettings(DEFAULT_SETTINGS, { bargeIn: { onsetHoldMs: 0 } }), held: 'ducked', back: 'restored', onset: false },
    { name: 'silent at its onset, then lowered', settings: DEFAULT_SETTINGS, held: 'paused', back: 'restored', onset: true },
  ] as const;

  for (const mode of MODES) {
    it(`muting while a sound holds the answer (${mode.name}) lets it play on at once, and the pipeline goes quiet`, async () => {
      const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['tell me a story'] });
      const { clock, output, pipeline, events } = start(mode.settings, slowVoice(s));
      await sleep(20);
      await micUntil(pipeline, clock, audio, 3200);
      assert.ok(playback(events, mode.held), `the sound held the answer (${mode.held})`);
      const mutedAt = clock.now();
      pipeline.endTurnNow('input-ended'); // what the app does when the microphone is muted
      await appTimer(pipeline, clock, 20_000);
      // Muted inside the onset hold, it plays on at full volume at once.
      const back = mode.onset ? 'resumed' : mode.back;
      const resumed = playback(events, back);
      assert.ok(resumed && resumed.t - mutedAt < 50, `${back} at ${resumed?.t}, muted at ${mutedAt}`);
      if (mode.onset) assert.equal(playback(events, 'ducked'), undefined, 'never lowered');
      assert.equal(output.paused, false);
      assert.equal(pipeline.active, false, 'nothing left in progress');
      assert.equal(pipeline.reports.length, 1);
      const r = pipeline.reports[0]!;
      assert.equal(r.interrupted, false);
      assert.equal(r.heardText, r.assistantText);
    });

    it(`a held answer (${mode.name}) plays on after falseInterruptionMs on the timer alone`, async () => {
      const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['tell me a story'] });
      const { clock, pipeline, events } = start(mode.settings, slowVoice(s));
      await sleep(20);
      await micUntil(pipeline, clock, audio, 3200);
      const held = playback(events, mode.held)!;
      const resumeAt = held.t + DEFAULT_SETTINGS.bargeIn.falseInterruptionMs;
      if (mode.onset) {
        // First the hold ends on the timer: the answer plays on, lowered, while the sound is judged.
        assert.equal(pipeline.nextWakeMs(), held.t + ONSET);
        await appTimer(pipeline, clock, 3200 + LENGTHENED + 100);
        const resumed = playback(events, 'resumed');
        assert.ok(resumed && resumed.t >= held.t + LENGTHENED && resumed.t <= held.t + LENGTHENED + 60, `resumed at ${resumed?.t}, due at ${held.t + LENGTHENED}`);
        assert.ok(playback(events, 'ducked'), 'lowered');
      }
      assert.equal(pipeline.nextWakeMs(), resumeAt);
      await appTimer(pipeline, clock, 8000);
      const resumed = playback(events, mode.back);
      assert.ok(resumed && resumed.t >= resumeAt && resumed.t <= resumeAt + 60, `${mode.back} at ${resumed?.t}, due at ${resumeAt}`);
      assert.equal(pipeline.nextWakeMs(), null);
      assert.equal(pipeline.reports.length, 1, 'the answer played to its end');
      assert.equal(pipeline.reports[0]!.interrupted, false);
    });
  }

  it('speaks the holding phrase on time on the timer alone', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 1200, transcripts: ['what is the meaning of life'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { clock, pipeline, events } = start(settings, s.engines);
    await sleep(20);
    await micUntil(pipeline, clock, input([[500, 1500]], 2200), 2200);
    const end = events.find((e) => e.type === 'end-of-turn')!;
    assert.equal(pipeline.nextWakeMs(), end.t + 500);
    await appTimer(pipeline, clock, 10_000);
    const hold = events.find((e) => e.type === 'holding-phrase');
    assert.ok(hold, 'a holding phrase was spoken');
    const late = hold.t - end.t;
    assert.ok(late >= 500 && late <= 560, `holding phrase ${late} ms after the end of turn`);
    assert.equal(pipeline.reports.length, 1);
    assert.equal(pipeline.reports[0]!.holdingPhrase, true);
  });
});

describe('turn reports (scripted engines)', () => {
  it("numbers a report as its turn's events, also after a merge", async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 900, transcripts: ['tell me about the', 'old castle'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { endpointing: { silenceMs: 400 }, turnBudgetMs: 3000 });
    const { reports, events } = await run(settings, s.engines, input([[500, 1500], [2300, 3000]], 5000));
    const turn = events.find((e) => e.type === 'turn')!;
    const end = events.filter((e) => e.type === 'end-of-turn').at(-1)!;
    assert.equal(reports[0]!.index, 1, 'turn 0 was merged into turn 1');
    assert.ok(turn.type === 'turn' && end.type === 'end-of-turn');
    assert.equal(turn.turn, 1);
    assert.equal(end.turn, 1);
  });

  it("an interrupted answer's report says where the interrupting speech began", async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['tell me a story', 'stop'] });
    const { reports, events } = await run(DEFAULT_SETTINGS, slowVoice(s), input([[500, 1500], [3000, 4000]], 6000));
    assert.equal(reports.length, 2);
    const b = reports[0]!.bargeIn;
    assert.ok(b && b.speechStartMs !== null, JSON.stringify(b));
    const start = events.filter((e) => e.type === 'speech-start').at(-1)!;
    assert.ok(start.type === 'speech-start');
    assert.equal(b.speechStartMs, Math.round(start.startMs * 10) / 10);
    assert.equal(b.speechStartMs, reports[1]!.timings.speechStartMs, 'the next turn began with it');
    assert.ok(Math.abs(b.speechStartMs - 3000) <= 40, `speech began at ${b.speechStartMs}`);
  });

  it('a machine busy for 400 ms while the answer plays moves no later time: the input queued, it did not pause', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['tell me a story', 'stop'] });
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const pipeline = new VoicePipeline(slowVoice(s), output, clock, () => DEFAULT_SETTINGS);
    let stalled = false;
    pipeline.events.on((e) => {
      if (e.type !== 'vad' || stalled || e.t < 2200) return;
      stalled = true;
      const until = performance.now() + 400;
      while (performance.now() < until);
    });
    await feedAudio(pipeline, input([[500, 1500], [3000, 4000]], 6000), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();
    assert.ok(stalled, 'the answer was playing at 2.2 s');
    const start = pipeline.reports[1]?.timings.speechStartMs ?? NaN;
    assert.ok(Math.abs(start - 3000) <= 40, `the interruption began at 3000 ms, reported at ${start} ms`);
  });

  it('keeps only the newest keepReports reports; every turn is still an event', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['one', 'two', 'three'] });
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const pipeline = new VoicePipeline(s.engines, output, clock, () => DEFAULT_SETTINGS, { keepReports: 2 });
    const turns: number[] = [];
    pipeline.events.on((e) => e.type === 'turn' && turns.push(e.turn));
    await feedAudio(pipeline, input([[500, 1000], [3000, 3500], [5500, 6000]], 8000), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();
    assert.deepEqual(turns, [0, 1, 2]);
    assert.deepEqual(pipeline.reports.map((r) => r.userText), ['two', 'three']);
  });
});
