/**
 * Soak on the real engines (fast clock, shared models): 200 turns in one session without growth,
 * and 50 barge-ins in a row with nothing stale played and only heard text kept in history.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VAD_WINDOW } from '../electron/engines/vad';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedFrames } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { PlaybackSchedule } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';

/** Frames of `clip` followed by `gapMs` of silence, `times` times over, made as they are asked for. */
function repeated(clip: Float32Array, gapMs: number, times: number): (k: number) => Float32Array | null {
  const cycle = Math.ceil((clip.length + (gapMs / 1000) * 16000) / VAD_WINDOW);
  return (k) => {
    if (k >= cycle * times) return null;
    const at = (k % cycle) * VAD_WINDOW;
    const frame = new Float32Array(VAD_WINDOW);
    if (at < clip.length) frame.set(clip.subarray(at, at + VAD_WINDOW));
    return frame;
  };
}

function activeHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

describe('soak (real engines, fast clock)', () => {
  let settings: Settings;
  let engines: LoadedEngines;
  before(async () => {
    settings = mergeSettings(DEFAULT_SETTINGS, { llm: { maxTokens: 16, contextSize: 512, threads: 2 } });
    engines = await loadEngines(() => settings, MODEL_ROOTS);
  });
  after(async () => {
    await engines?.dispose();
  });

  it('200 turns in one session: all answered, memory and listeners flat, the context never overflows', async () => {
    const weather = await loadClip16k('weather');
    const clock = new FastForwardClock();
    const output = new PlaybackSchedule();
    const pipeline = new VoicePipeline(engines, output, clock, () => settings);
    const reports: TurnReport[] = [];
    const errors: string[] = [];
    type Snapshot = { rss: number; listeners: number; handles: Record<string, number> };
    const at: Record<number, Snapshot> = {};
    pipeline.events.on((e: PipelineEvent) => {
      if (e.type === 'error') errors.push(e.message);
      if (e.type !== 'turn') return;
      reports.push(e.report);
      const snapshot = { rss: process.memoryUsage().rss, listeners: pipeline.events.size, handles: activeHandles() };
      if (reports.length === 20 || reports.length === 200) at[reports.length] = snapshot;
    });
    // Each cycle: the question, then silence long enough for the short answer to finish.
    await feedFrames(pipeline, repeated(weather, 8000, 200), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();

    assert.deepEqual(errors, []);
    assert.equal(reports.length, 200, 'every turn answered');
    for (const r of reports) {
      assert.deepEqual(words(r.userText), words('what is the weather like today'), `turn ${r.index}`);
      assert.ok(r.assistantText.length > 0 && r.error === undefined && !r.interrupted, `turn ${r.index}: ${r.error ?? ''}`);
    }
    const a = at[20]!;
    const b = at[200]!;
    assert.ok(b.rss <= a.rss * 1.1, `RSS after turn 200 (${Math.round(b.rss / 2 ** 20)} MiB) within 10% of after turn 20 (${Math.round(a.rss / 2 ** 20)} MiB)`);
    assert.equal(b.listeners, a.listeners, 'no event listener added per turn');
    assert.ok((b.handles.Timeout ?? 0) <= (a.handles.Timeout ?? 0) + 1, `timers: ${JSON.stringify(a.handles)} -> ${JSON.stringify(b.handles)}`);
    // 200 exchanges cannot fit in 512 tokens: old turns were dropped, the system prompt kept.
    const history = pipeline.conversation.messages();
    assert.equal(history[0]?.role, 'system');
    // The system prompt, then the line giving the model the local date and time.
    assert.ok(history[0]?.text.startsWith(`${settings.llm.systemPrompt}\n\nIt is now `), history[0]?.text);
    assert.ok(history.length < 60, `old turns dropped (${history.length} entries kept)`);
  });

  it('50 barge-ins in a row: no stale clause plays later, history holds only heard text', async () => {
    const story = await loadClip16k('story');
    const long = mergeSettings(settings, { llm: { maxTokens: 100, contextSize: 4096 } });
    const clock = new FastForwardClock();
    const output = new PlaybackSchedule();
    const pipeline = new VoicePipeline(engines, output, clock, () => long);
    const reports: { turn: number; report: TurnReport }[] = [];
    const audio: { turn: number; t: number }[] = [];
    pipeline.events.on((e) => {
      if (e.type === 'turn') reports.push({ turn: e.turn, report: e.report });
      if (e.type === 'audio') audio.push({ turn: e.turn, t: e.t });
    });
    // The next request comes about 3.5 s into each answer: every answer but the last is cut off.
    await feedFrames(pipeline, repeated(story, 2400, 51), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();

    const interrupted = reports.filter((r) => r.report.interrupted);
    assert.equal(interrupted.length, 50, `${reports.length} turns, ${interrupted.length} interrupted`);
    for (const { turn, report } of interrupted) {
      assert.ok(report.heardText.length < report.assistantText.length, `turn ${turn}: only part was heard`);
      assert.ok(report.assistantText.startsWith(report.heardText), `turn ${turn}: the heard part is a prefix`);
      const stoppedAt = report.bargeIn!.detectedMs;
      const late = audio.filter((a) => a.turn === turn && a.t > stoppedAt);
      assert.deepEqual(late, [], `turn ${turn}: nothing of it queued after the barge-in at ${stoppedAt}`);
    }
    // Interrupted replies are kept as their heard part plus "…"; a whole reply as it was spoken.
    const heard = reports.map((r) => (r.report.interrupted ? `${r.report.heardText}…` : r.report.assistantText));
    const modelTurns = pipeline.conversation.messages().filter((h) => h.role === 'assistant');
    assert.ok(modelTurns.length > 0);
    for (const m of modelTurns) assert.ok(heard.includes(m.text.trim()), `history holds what was heard: ${JSON.stringify(m.text.slice(0, 80))}`);
  });
});
