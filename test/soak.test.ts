/**
 * Soak on the real engines (fast clock, shared models): many turns in one session without growth,
 * and many barge-ins in a row with nothing stale played and only heard text kept in history.
 * `npm test` runs 30 turns and 10 barge-ins; `npm run soak` the full 200 and 50 (SOAK_TURNS and
 * SOAK_BARGE_INS set them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VAD_WINDOW } from '../electron/engines/vad-window';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { feedFrames } from '../electron/pipeline/run/feed';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { PlaybackSchedule } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';
import { checkHeard } from './heard-check';

function count(name: string, fallback: number, least: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < least) throw new Error(`${name}=${v}: a whole number of at least ${least}`);
  return n;
}
const TURNS = count('SOAK_TURNS', 30, 20);
const BARGE_INS = count('SOAK_BARGE_INS', 10, 2);
/** Memory and handles are compared between this turn and the last: the first turns warm the engines up. */
const WARM = 10;

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

  it(`${TURNS} turns in one session: all answered, memory and listeners flat, the context never overflows`, async () => {
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
      if (reports.length === WARM || reports.length === TURNS) at[reports.length] = snapshot;
    });
    // Each cycle: the question, then silence long enough for the short answer to finish.
    await feedFrames(pipeline, repeated(weather, 8000, TURNS), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();

    assert.deepEqual(errors, []);
    assert.equal(reports.length, TURNS, 'every turn answered');
    for (const r of reports) {
      assert.deepEqual(words(r.userText), words('what is the weather like today'), `turn ${r.index}`);
      assert.ok(r.assistantText.length > 0 && r.error === undefined && !r.interrupted, `turn ${r.index}: ${r.error ?? ''}`);
    }
    const a = at[WARM]!;
    const b = at[TURNS]!;
    assert.ok(b.rss <= a.rss * 1.1, `RSS after turn ${TURNS} (${Math.round(b.rss / 2 ** 20)} MiB) within 10% of after turn ${WARM} (${Math.round(a.rss / 2 ** 20)} MiB)`);
    assert.equal(b.listeners, a.listeners, 'no event listener added per turn');
    assert.ok((b.handles.Timeout ?? 0) <= (a.handles.Timeout ?? 0) + 1, `timers: ${JSON.stringify(a.handles)} -> ${JSON.stringify(b.handles)}`);
    // 20 exchanges or more cannot fit in 512 tokens: old turns were dropped, the system prompt kept.
    const history = pipeline.conversation.messages();
    assert.equal(history[0]?.role, 'system');
    // The system prompt as it was evaluated; the line giving the local date and time comes with the user's words.
    assert.equal(history[0]?.text, settings.llm.systemPrompt);
    assert.match(history[1]?.text ?? '', /^\[It is now .*\]\n/, 'the first exchange kept still tells the date');
    assert.ok(history.length < Math.min(60, 1 + 2 * TURNS), `old turns dropped (${history.length} entries kept)`);
  });

  it(`${BARGE_INS} barge-ins in a row: no stale clause plays later, history holds exactly the heard text`, async () => {
    const story = await loadClip16k('story');
    const long = mergeSettings(settings, { llm: { maxTokens: 100, contextSize: 4096 } });
    const clock = new FastForwardClock();
    const output = new PlaybackSchedule();
    const pipeline = new VoicePipeline(engines, output, clock, () => long);
    const reports: { turn: number; report: TurnReport }[] = [];
    const audio: { turn: number; t: number }[] = [];
    // Clauses and audio spans, to work out what each cut answer's heard part must be.
    const spoken: PipelineEvent[] = [];
    pipeline.events.on((e) => {
      if (e.type === 'turn') reports.push({ turn: e.turn, report: e.report });
      if (e.type === 'audio') audio.push({ turn: e.turn, t: e.t });
      if (e.type === 'clause' || e.type === 'audio' || e.type === 'playback') spoken.push(e);
    });
    // The next request comes about 3.5 s into each answer: every answer but the last is cut off.
    await feedFrames(pipeline, repeated(story, 2400, BARGE_INS + 1), clock, output, { fast: true });
    await pipeline.drain();
    pipeline.settle();

    const interrupted = reports.filter((r) => r.report.interrupted);
    assert.equal(interrupted.length, BARGE_INS, `${reports.length} turns, ${interrupted.length} interrupted`);
    for (const { turn, report } of interrupted) {
      assert.ok(report.heardText.length < report.assistantText.length, `turn ${turn}: only part was heard`);
      checkHeard(report, spoken, `turn ${turn}`);
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
