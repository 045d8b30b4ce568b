/**
 * The controller behind the window on the real engines, through its typed contract only: models
 * load and report their status, microphone frames in real time become a turn whose audio reaches
 * the sink with its stream positions, the microphone switch and interrupt work, and settings that
 * need it reload the model.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { AppEvent, AppStatus, AssistantAudio, AssistantAudioControl, Snapshot } from '../electron/ipc-contract';
import type { TurnReport } from '../electron/pipeline/report';
import { loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';
import { tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the app controller on the real engines', () => {
  let controller: AssistantController;
  const events: AppEvent[] = [];
  const audio: AssistantAudio[] = [];
  const controls: AssistantAudioControl[] = [];

  before(async () => {
    const settingsFile = path.join(tempDir('lva-ctl-'), 'settings.json');
    // The end-of-turn model loads (shared/models has one) but is not asked: these tests time silence endpointing.
    await writeFile(settingsFile, JSON.stringify({ llm: { threads: 2, maxTokens: 24 }, endpointing: { turnModel: false } }));
    controller = new AssistantController({
      settingsFile,
      modelRoots: () => MODEL_ROOTS,
      downloadRoot: tempDir('lva-ctl-dl-'),
      audioSink: () => ({ audio: (a) => audio.push(a), control: (c) => controls.push(c) }),
    });
    controller.on((e) => events.push(e));
    await controller.start();
  });
  after(async () => {
    await controller?.dispose();
  });

  function status(): AppStatus {
    return (controller.snapshot() satisfies Snapshot).status;
  }

  /** Feeds a clip as a microphone would: 20 ms frames in real time, then `tailMs` of silence. */
  async function speak(samples: Float32Array, tailMs: number): Promise<void> {
    const frame = 320;
    const t0 = performance.now();
    const total = samples.length + (tailMs / 1000) * 16000;
    for (let i = 0; i < total; i += frame) {
      const chunk = new Float32Array(frame);
      if (i < samples.length) chunk.set(samples.subarray(i, Math.min(i + frame, samples.length)));
      controller.pushAudio(chunk);
      const due = t0 + ((i + frame) / 16000) * 1000;
      await sleep(Math.max(0, due - performance.now()));
    }
  }

  async function until<T>(what: string, get: () => T | undefined, timeoutMs = 30_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  }

  it('loads every model and reports where the LLM runs', () => {
    const s = status();
    assert.equal(s.phase, 'ready', s.error ?? '');
    assert.deepEqual(s.models.map((m) => [m.kind, m.state]), [['vad', 'ready'], ['stt', 'ready'], ['tts', 'ready'], ['llm', 'ready'], ['turn', 'ready']]);
    assert.equal(s.models.find((m) => m.kind === 'turn')?.id, 'test-turn-eot-espeak', 'the optional end-of-turn model, when installed');
    assert.ok(s.models.every((m) => m.id && m.name && typeof m.loadMs === 'number'));
    assert.equal(s.models.find((m) => m.kind === 'vad')?.layout, 'silero-v5', 'the VAD says which Silero export it loaded');
    assert.equal(s.llm?.backend, 'cpu');
    assert.ok((s.llm?.contextSize ?? 0) >= 512, 'the context (the default, or the model\'s own if smaller)');
    const phases = events.filter((e): e is Extract<AppEvent, { type: 'status' }> => e.type === 'status').map((e) => e.status.phase);
    assert.deepEqual([phases[0], phases.at(-1)], ['loading', 'ready']);
  });

  it('microphone frames in real time become a turn; its audio reaches the sink with stream positions', async () => {
    const weather = await loadClip16k('weather');
    await speak(weather, 300);
    const turn = await until('the turn report', () => {
      const e = events.find((x) => x.type === 'pipeline' && x.event.type === 'turn');
      return e && e.type === 'pipeline' && e.event.type === 'turn' ? e.event.report : undefined;
    });
    assert.deepEqual(words(turn.userText), words('what is the weather like today'));
    // The end of the turn is announced when decided, before the report (which waits for the answer to play).
    const endIndex = events.findIndex((e) => e.type === 'pipeline' && e.event.type === 'end-of-turn');
    const turnIndex = events.findIndex((e) => e.type === 'pipeline' && e.event.type === 'turn');
    assert.ok(endIndex >= 0 && endIndex < turnIndex);
    const end = events[endIndex] as { event: { t: number; speechEndMs: number; reason: string } };
    assert.equal(Math.round(end.event.t * 10) / 10, turn.timings.endOfTurnMs);
    assert.equal(end.event.reason, 'silence');
    assert.ok(turn.latency.voiceToVoiceMs !== null && turn.latency.sttMs >= 0 && turn.latency.endpointMs >= 500, JSON.stringify(turn.latency));
    assert.ok(audio.length > 0, 'audio was sent');
    for (let i = 1; i < audio.length; i++) assert.ok(audio[i]!.from >= audio[i - 1]!.from, 'stream positions never go back');
    assert.equal(audio[0]!.from, 0);
  });

  it('with the microphone off, frames are ignored; interrupt stops an answer and tells the player', async () => {
    controller.command({ type: 'set-listening', listening: false });
    assert.equal(status().listening, false);
    const before = events.length;
    await speak(await loadClip16k('weather'), 0);
    assert.equal(events.slice(before).filter((e) => e.type === 'pipeline' && e.event.type === 'vad').length, 0, 'no audio processed');
    controller.command({ type: 'set-listening', listening: true });

    const turns = () => events.filter((e) => e.type === 'pipeline' && e.event.type === 'turn').length;
    const n = turns();
    const from = events.length;
    const speaking = speak(await loadClip16k('story'), 1500);
    await until('the answer to start', () =>
      events.slice(from).some((e) => e.type === 'pipeline' && e.event.type === 'state' && e.event.state === 'speaking') ? true : undefined,
    );
    controller.command({ type: 'interrupt' });
    await until('the stop to reach the player', () => (controls.some((c) => c.action === 'stop') ? true : undefined), 2000);
    await speaking;
    const report = await until('the interrupted turn', () => {
      const all = events.filter((e) => e.type === 'pipeline' && e.event.type === 'turn');
      const e = all[n];
      return e && e.type === 'pipeline' && e.event.type === 'turn' ? (e.event.report as TurnReport) : undefined;
    });
    assert.equal(report.interrupted, true);
    // The microphone was off for 4 s before this turn: times are tied to the clock again on resume.
    assert.ok(report.latency.endpointMs >= 450 && report.latency.endpointMs <= 1200, `endpoint ${report.latency.endpointMs} ms after a pause in the input`);
    assert.ok(report.heardText.length < report.assistantText.length, 'only what was heard is kept');
    assert.equal(turns(), n + 1);
    controller.command({ type: 'reset-conversation' });
    await until('the new conversation', () => (events.some((e) => e.type === 'notice' && e.message === 'Started a new conversation.') ? true : undefined), 10_000);
  });

  it('a context size change reloads the model; an invalid change is refused and reloads nothing', async () => {
    const bad = await controller.request({ type: 'update-settings', patch: { llm: { contextSize: 7 } } });
    assert.equal(bad.ok, false);
    assert.equal(status().phase, 'ready');
    const r = await controller.request({ type: 'update-settings', patch: { llm: { contextSize: 1024 } } });
    assert.equal(r.ok, true);
    await until('the reload to start', () => (status().phase === 'loading' ? true : undefined), 5000).catch(() => undefined);
    await until('the reload', () => (status().phase === 'ready' && status().llm?.contextSize === 1024 ? true : undefined), 60_000);
    assert.ok(events.some((e) => e.type === 'notice' && /Reloading the models/.test(e.message)));
  });
});
