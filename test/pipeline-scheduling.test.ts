/**
 * Scheduling logic of the pipeline (holding phrase, continuation merge) with SCRIPTED engines: a
 * VAD that hears any non-zero window, a recognizer that returns scripted words, a language model
 * that answers after a set delay and logs what happens to its history, and a voice that is a tone.
 * These stand in for the engines only to control timing; every engine is tested for real elsewhere.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerateOptions, LanguageModel } from '../electron/engines/llm';
import type { SpeechRecognizer } from '../electron/engines/stt';
import type { SpeechSynthesizer } from '../electron/engines/tts';
import type { VoiceActivityDetector } from '../electron/engines/vad';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedAudio } from '../electron/pipeline/feed';
import { TimelineOutput } from '../electron/pipeline/output';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function scriptedEngines(opts: { firstTokenDelayMs: number; transcripts: string[] }) {
  const history: string[] = [];
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
    info: { id: 'scripted-llm', backend: 'cpu', gpuDevices: [], gpuLayers: 0, totalLayers: 0, contextSize: 0, loadMs: 0, warmUpMs: 0 },
    async generate(text: string, o: GenerateOptions) {
      prompts.push(text);
      history.push(`user:${text}`);
      await sleep(opts.firstTokenDelayMs);
      if (o.signal?.aborted) return { text: '', stopReason: 'abort' };
      const answer = 'Sure, here it is. That is all.';
      o.onText(answer);
      history.push(`model:${answer}`);
      return { text: answer, stopReason: 'eogToken' };
    },
    replaceLastReply: (t) => history.push(`replaced:${t}`),
    dropLastExchange: () => history.push('dropped'),
    resetConversation: async () => {},
    setSystemPrompt: async () => {},
    dispose: async () => {},
  };
  const tts: SpeechSynthesizer = {
    sampleRate: 16000,
    info: { id: 'scripted-tts', sampleRate: 16000, numSpeakers: 1, loadMs: 0 },
    synthesize: async (text) => new Float32Array(16000 * 0.02 * text.length).fill(0.1),
  };
  return { engines: { vad, stt, llm, tts }, history, prompts };
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
  return { reports: pipeline.reports, events, output };
}

describe('pipeline scheduling (scripted engines)', () => {
  it('speaks a holding phrase when no answer audio is ready within turnBudgetMs, and records it', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 1200, transcripts: ['what time is it'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { reports, events } = await run(settings, s.engines, input([[500, 1500]], 3000));
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.equal(r.holdingPhrase, true);
    const hold = events.find((e) => e.type === 'holding-phrase');
    assert.ok(hold && hold.type === 'holding-phrase');
    const late = hold.t - r.timings.endOfTurnMs;
    assert.ok(late >= 500 && late <= 600, `holding phrase ${late} ms after the end of turn`);
    assert.ok(r.timings.firstAudioMs! > hold.t, 'the answer follows the holding phrase');
    assert.deepEqual(s.history, ['user:what time is it', 'model:Sure, here it is. That is all.'], 'the phrase is not in history');
  });

  it('says no holding phrase when the answer is ready in time', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 10, transcripts: ['what time is it'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { reports, events } = await run(settings, s.engines, input([[500, 1500]], 3000));
    assert.equal(reports[0]!.holdingPhrase, false);
    assert.equal(events.filter((e) => e.type === 'holding-phrase').length, 0);
  });

  it('merges a continuation started before any answer was heard, and drops the pending answer from history', async () => {
    const s = scriptedEngines({ firstTokenDelayMs: 900, transcripts: ['set a timer for', 'ten minutes'] });
    const settings = mergeSettings(DEFAULT_SETTINGS, { endpointing: { silenceMs: 400 }, turnBudgetMs: 3000 });
    const { reports, events } = await run(settings, s.engines, input([[500, 1500], [2300, 3000]], 5000));
    assert.equal(reports.length, 1, JSON.stringify(reports.map((r) => r.userText)));
    const r = reports[0]!;
    assert.equal(r.mergedContinuation, true);
    assert.equal(r.userText, 'set a timer for ten minutes');
    assert.ok(Math.abs(r.timings.speechStartMs - 500) <= 40, `starts with the first part: ${r.timings.speechStartMs}`);
    assert.ok(Math.abs(r.timings.speechEndMs - 3000) <= 40, `ends with the second part: ${r.timings.speechEndMs}`);
    assert.equal(events.filter((e) => e.type === 'merged').length, 1);
    // The first answer never played: the only audio is the merged turn's.
    const audioTurns = new Set(events.filter((e) => e.type === 'audio').map((e) => (e as { turn: number }).turn));
    assert.deepEqual([...audioTurns], [1]);
    assert.deepEqual(s.prompts, ['set a timer for', 'set a timer for ten minutes']);
    assert.deepEqual(s.history, ['user:set a timer for', 'dropped', 'user:set a timer for ten minutes', 'model:Sure, here it is. That is all.']);
  });
});
