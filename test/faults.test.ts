/**
 * Faults on the real engines: a failing stage must end its turn cleanly and leave the next turn
 * working. The wrappers below are fault injectors around the real engines (they pass everything
 * through, then fail on cue); they are not stand-ins for any engine.
 */
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { Snapshot } from '../electron/ipc-contract';
import type { LanguageModel } from '../electron/engines/llm-types';
import type { SpeechRecognizer } from '../electron/engines/stt';
import type { SpeechSynthesizer } from '../electron/engines/tts';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedAudio } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { PlaybackSchedule } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline, type PipelineEngines } from '../electron/pipeline/voice-pipeline';
import { SettingsStore } from '../electron/settings/file';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS, MODELS_DIR, words } from './engine-fixtures';
import { tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  reports: TurnReport[];
  events: PipelineEvent[];
}

async function run(engines: PipelineEngines, clip: Float32Array, settings: Settings, onEvent?: (e: PipelineEvent) => void): Promise<Run> {
  const clock = new FastForwardClock();
  const output = new PlaybackSchedule();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => {
    events.push(e);
    onEvent?.(e);
  });
  await feedAudio(pipeline, clip, clock, output, { fast: true });
  await pipeline.drain();
  pipeline.settle();
  return { reports: pipeline.reports, events };
}

describe('faults (real engines with fault injection)', () => {
  let engines: LoadedEngines;
  let settings: Settings;
  let twoTurns: Float32Array;
  before(async () => {
    // The faults are injected into the committed answer's engines: no answer is prepared during a
    // pause, or a fault there would be retried by the committed answer instead.
    settings = mergeSettings(DEFAULT_SETTINGS, { llm: { maxTokens: 48, threads: 2 }, prepareAnswers: false });
    engines = await loadEngines(() => settings, MODEL_ROOTS);
    twoTurns = await loadClip16k('two_turns');
  });
  after(async () => {
    await engines?.dispose();
  });

  it('the LLM throws mid-generation: that turn ends with the error, the next one is answered', async () => {
    let calls = 0;
    const llm: LanguageModel = Object.assign(Object.create(engines.llm) as LanguageModel, {
      async generate(messages: Parameters<LanguageModel['generate']>[0], opts: Parameters<LanguageModel['generate']>[1]) {
        if (++calls > 1) return engines.llm.generate(messages, opts);
        const stop = new AbortController();
        let deltas = 0;
        await engines.llm.generate(messages, { ...opts, signal: stop.signal, onText: (d) => (opts.onText(d), ++deltas === 3 && stop.abort()) });
        throw new Error('simulated GPU failure');
      },
    });
    const { reports, events } = await run({ ...engines, llm }, twoTurns, settings);
    assert.equal(reports.length, 2);
    assert.match(reports[0]!.error ?? '', /The language model failed: simulated GPU failure/);
    assert.ok(events.some((e) => e.type === 'error' && /simulated GPU failure/.test(e.message)), 'the window is told');
    assert.equal(reports[1]!.error, undefined);
    assert.deepEqual(words(reports[1]!.userText), words('and play some music'));
    assert.ok(reports[1]!.assistantText.length > 0);
  });

  it('TTS fails on one clause: the rest of the answer is still spoken, with a notice', async () => {
    let failText: string | null = null;
    const tts: SpeechSynthesizer = {
      get sampleRate() {
        return engines.tts.sampleRate;
      },
      info: engines.tts.info,
      synthesize: (text, opts) => (text === failText ? Promise.reject(new Error('simulated synthesis failure')) : engines.tts.synthesize(text, opts)),
    };
    const weather = await loadClip16k('weather');
    const { reports, events } = await run({ ...engines, tts }, weather, settings, (e) => {
      if (e.type === 'clause' && e.turn === 0 && e.clause.index === 1) failText = e.clause.text;
    });
    assert.ok(failText, 'the answer had a second clause');
    assert.equal(reports.length, 1);
    assert.equal(reports[0]!.error, undefined);
    assert.ok(events.some((e) => e.type === 'notice' && /Could not speak .*simulated synthesis failure/.test(e.message)));
    const spoken = events.flatMap((e) => (e.type === 'audio' ? [e.clause] : []));
    assert.ok(spoken.includes(0) && !spoken.includes(1), `clauses spoken: ${spoken.join(',')}`);
    const clauses = events.filter((e) => e.type === 'clause').length;
    if (clauses > 2) assert.ok(spoken.some((c) => c >= 2), 'clauses after the failed one are spoken');
  });

  it('STT returns an empty transcript: no LLM call, no reply, back to listening; the next turn works', async () => {
    let sessions = 0;
    let generated = 0;
    const stt: SpeechRecognizer = {
      streaming: engines.stt.streaming,
      leadInMs: engines.stt.leadInMs,
      info: engines.stt.info,
      get busy() {
        return engines.stt.busy;
      },
      createSession(onPartial) {
        const s = engines.stt.createSession(onPartial);
        const empty = ++sessions === 1;
        return { accept: (x) => s.accept(x), abort: () => s.abort(), finish: async () => (empty ? (s.abort(), '') : s.finish()) };
      },
    };
    const llm: LanguageModel = Object.assign(Object.create(engines.llm) as LanguageModel, {
      generate: (messages: Parameters<LanguageModel['generate']>[0], opts: Parameters<LanguageModel['generate']>[1]) => (generated++, engines.llm.generate(messages, opts)),
    });
    const { reports, events } = await run({ ...engines, stt, llm }, twoTurns, settings);
    assert.equal(generated, 1, 'the LLM ran for the second turn only');
    assert.equal(reports.length, 1);
    assert.deepEqual(words(reports[0]!.userText), words('and play some music'));
    const states = events.flatMap((e) => (e.type === 'state' ? [e.state] : []));
    const secondHearing = states.lastIndexOf('hearing');
    assert.ok(states.slice(0, secondHearing).includes('listening') && states.indexOf('listening') > states.indexOf('hearing'), `back to listening after the empty turn: ${states.join(' ')}`);
    assert.ok(!events.some((e) => e.type === 'answer-delta' && e.turn === 0));
  });

  it('broken audio frames (NaN, infinities, clipping, odd sizes, a late burst) are repaired; the words survive', async () => {
    const weather = await loadClip16k('weather');
    const clock = new FastForwardClock();
    const output = new PlaybackSchedule();
    const pipeline = new VoicePipeline(engines, output, clock, () => settings);
    // Non-finite samples sprinkled through the speech, and a 32 ms burst of out-of-range values in the
    // leading silence (clamped: a click, too short to be a turn).
    const broken = Float32Array.from(weather, (v, i) => (i % 997 === 0 ? Number.NaN : i % 1499 === 0 ? -Infinity : i >= 1600 && i < 2112 ? 40 : v));
    // Odd sizes, all at once (a late burst), then empty and tiny frames.
    const sizes = [1, 7, 333, 1000, 4096, 511, 12000];
    for (let o = 0, k = 0; o < broken.length; k++) {
      const n = sizes[k % sizes.length]!;
      void pipeline.pushAudio(broken.subarray(o, o + n));
      o += n;
    }
    await pipeline.pushAudio(new Float32Array(0));
    // Then silence in real time so the turn ends and the answer plays.
    await feedAudio(pipeline, new Float32Array(16000 * 2), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();
    assert.equal(pipeline.reports.length, 1);
    // The click sits in the recognizer's lead-in and may stick to the first word ("bwhat").
    const heard = words(pipeline.reports[0]!.userText);
    assert.equal(heard.length, 6, heard.join(' '));
    assert.deepEqual(heard.slice(1), words('is the weather like today'));
  });
});

describe('faults in the app (controller)', () => {
  it('frames of the wrong type or size are dropped; a model file that disappears is reported and the app keeps running', async () => {
    const dir = tempDir('lva-fault-');
    const models = path.join(dir, 'models');
    cpSync(MODELS_DIR, models, { recursive: true });
    const settingsFile = path.join(dir, 'settings.json');
    await writeFile(settingsFile, JSON.stringify({ llm: { threads: 2, maxTokens: 16 } }));
    const controller = new AssistantController({
      settingsFile,
      modelRoots: () => [models],
      audioSink: () => null,
      downloadRoot: models,
      detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
    });
    const turns: TurnReport[] = [];
    controller.on((e) => e.type === 'pipeline' && e.event.type === 'turn' && turns.push(e.event.report));
    try {
      await controller.start();
      assert.equal(controller.snapshot().status.phase, 'ready');
      for (const bad of [new Float64Array(320), [0.1, 0.2], 'audio', null, new Float32Array(0), new Float32Array(100_000), { length: 320 }]) controller.pushAudio(bad);
      controller.command({ type: 'push-to-talk', down: 'yes' });
      controller.command('stop');

      // The LLM's file goes away between turns: the loaded model keeps answering...
      rmSync(path.join(models, 'llm'), { recursive: true });
      const weather = await loadClip16k('weather');
      const t0 = performance.now();
      for (let i = 0; i < weather.length + 16000 * 2; i += 320) {
        const frame = new Float32Array(320);
        if (i < weather.length) frame.set(weather.subarray(i, i + 320));
        controller.pushAudio(frame);
        await sleep(Math.max(0, t0 + ((i + 320) / 16) - performance.now()));
      }
      const end = Date.now() + 20_000;
      while (turns.length === 0 && Date.now() < end) await sleep(50);
      assert.equal(turns.length, 1, 'the turn was answered');
      // ...and reloading says what is missing and offers to get it, without stopping the app.
      const r = await controller.request({ type: 'update-settings', patch: { llm: { contextSize: 1024 } } });
      assert.equal(r.ok, true);
      const until = Date.now() + 20_000;
      while (controller.snapshot().status.phase !== 'setup' && Date.now() < until) await sleep(50);
      const status = controller.snapshot().status;
      assert.equal(status.phase, 'setup', status.error ?? '');
      assert.deepEqual(status.setup?.models.map((m) => m.kind), ['llm']);
      const snapshot = (await controller.request({ type: 'get-snapshot' })) as Snapshot;
      assert.equal(snapshot.settings.llm.contextSize, 1024, 'still answering requests');
    } finally {
      await controller.dispose();
    }
  });

  it('a settings file with several bad fields names each of them, and a bad update writes nothing', async () => {
    const dir = tempDir('lva-fault-');
    const file = path.join(dir, 'settings.json');
    const broken = JSON.stringify({ endpointing: { silenceMs: -5, vadThreshold: 'high' }, tts: { speed: 9 }, voice: 'loud' });
    await writeFile(file, broken);
    const store = new SettingsStore(file);
    const { notice } = await store.load();
    for (const field of ['endpointing.silenceMs', 'endpointing.vadThreshold', 'tts.speed', 'voice']) assert.match(notice ?? '', new RegExp(field.replace('.', '\\.')));
    const good = await readFile(file, 'utf8');
    await assert.rejects(store.update({ endpointing: { minSpeechMs: 1.5 }, llm: { temperature: 'hot' } }), /endpointing\.minSpeechMs must be a whole number.*llm\.temperature must be a number/);
    assert.equal(await readFile(file, 'utf8'), good, 'the good file is untouched');
  });
});
