/**
 * One truth per turn: recorded reports (from `npm run talk` on the shared clips: prepared,
 * unprepared, push-to-talk, interrupted and local-command turns, and one logged before the timeline
 * existed) fed to every view's computation, the waterfall, the session table, History's bar and
 * summary, `bench`'s stages, `npm run log -- summary` and `talk`'s lines, which must show the same
 * numbers, none of them a negative duration.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stageDistributions, STAGE_ROWS, turnStages } from '../electron/bench/stages';
import { formatLogLine, type LoggedTurn } from '../electron/history/log-format';
import { summarize as summarizeLog } from '../electron/history/summary';
import { formatSummary } from '../electron/history/summary-text';
import type { TurnReport } from '../electron/pipeline/report';
import { formatMs, statValues, timelineOf, turnFigures, type StatKey } from '../electron/report/turn-figures';
import { bargeInLine, latencyLine } from '../electron/report/turn-lines';
import { barScale, summaryRows, turnBar } from '../renderer/model/history';
import { niceTicks, sessionReports, summarize, waterfall } from '../renderer/model/latency';
import { ROOT } from './helpers';

interface Fixture {
  name: string;
  /** What kind of turn it is: prepared, unprepared, push-to-talk, interrupted, command, logged before the timeline. */
  kinds: string[];
  report: TurnReport;
}

const FIXTURES: Fixture[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'turn-reports.json'), 'utf8'));

const logged = (r: TurnReport): LoggedTurn =>
  JSON.parse(formatLogLine(r, { session: 's1', at: '2026-03-04T10:00:05.000Z', app: '0.1.0', settingsHash: 'aaaaaaaaaaaa', models: {}, texts: true })) as LoggedTurn;

/** The figures each table row shows, by the keys the session table, History and `bench` share. */
const ROW_KEYS: StatKey[] = ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs'];

/** The `log summary` table's row for a stage key (STAGE_ROWS order: endpoint, stt, llm, tts, voice to voice). */
const LOG_ROW: Record<string, number> = { endpointMs: 0, sttMs: 1, llmTtftMs: 2, ttsFirstAudioMs: 3, voiceToVoiceMs: 4 };

describe('turn figures: one truth per turn', () => {
  it('the fixtures cover prepared, unprepared, push-to-talk, interrupted, local-command and pre-timeline turns', () => {
    const kinds = new Set(FIXTURES.flatMap((f) => f.kinds));
    for (const k of ['prepared', 'unprepared', 'push-to-talk', 'interrupted', 'command', 'before-timeline']) assert.ok(kinds.has(k), `a ${k} turn`);
    // The reports were recorded by the code of their time, the old one's with the negative latencies the issue saw.
    assert.ok(FIXTURES.some((f) => Object.values(f.report.latency).some((v) => v !== null && v < 0)), 'a report whose old latency fields go negative');
  });

  for (const { name, report: r } of FIXTURES) {
    describe(name, () => {
      const f = turnFigures(r);
      const values = statValues(f);

      it('the timeline: every stage where it ran, none ending before it starts; the recorded one is the one the figures rebuild', () => {
        for (const s of f.timeline) assert.ok(s.endMs >= s.startMs, `${s.stage} ${s.startMs}..${s.endMs}`);
        assert.equal(f.timeline[0]!.stage, 'endpoint');
        assert.equal(f.timeline[0]!.startMs, 0, 'the end of speech is 0');
        if (r.timeline) assert.deepEqual(r.timeline, timelineOf(r));
        // Prepared work runs before the turn was committed (its final words), where it really ran.
        for (const s of f.timeline.filter((x) => x.prepared)) assert.ok(s.startMs < r.timings.sttFinalMs - r.timings.speechEndMs, `${s.stage} began before the final words`);
      });

      it('no duration is negative, in the figures or in any view', () => {
        const durations = [f.endpointMs, f.sttMs, f.llmFirstTokenMs, f.llmFirstClauseMs, f.commandMs, f.ttsFirstAudioMs, f.voiceToVoiceMs, f.afterEndMs, f.audioWaitMs, f.overheadMs, f.playbackMs, f.preparedAheadMs, f.bargeIn?.stoppedAfterSpeechMs ?? null];
        for (const d of durations) assert.ok(d === null || d >= 0, `${d}`);
        for (const s of waterfall(r).stages) assert.ok(s.durationMs >= 0, `${s.key} ${s.durationMs}`);
        for (const row of summarize([r])) assert.ok(row.p50 === null || row.p50 >= 0, `${row.label} ${row.p50}`);
        const stages = turnStages(r);
        for (const v of [stages.endpointMs, stages.sttMs, stages.llmTtftMs, stages.ttsFirstAudioMs, stages.voiceToVoiceMs, stages.overheadMs, stages.bargeInMs, stages.afterEndMs.prepared, stages.afterEndMs.unprepared, stages.preparedLeadMs]) {
          assert.ok(v === null || v >= 0, `bench ${v}`);
        }
        assert.doesNotMatch(latencyLine(r), /-\d/);
        assert.doesNotMatch(formatSummary(summarizeLog([logged(r)])), /(^|\s)-\d/m);
        for (const s of turnBar(logged(r), barScale([logged(r)])).segments) assert.ok(s.widthPct >= 0 && s.durationMs >= 0);
      });

      it('the waterfall, the session table, History, bench, log summary and talk show the same numbers', () => {
        const w = waterfall(r);
        const stage = (k: string) => w.stages.find((s) => s.key === k)?.durationMs ?? null;
        // The waterfall draws the figures.
        assert.equal(stage('endpoint'), values.endpointMs);
        assert.equal(stage('stt'), values.sttMs);
        assert.equal(stage('llm'), values.llmTtftMs);
        assert.equal(stage('tts'), values.ttsFirstAudioMs);
        assert.equal(w.totalMs, values.voiceToVoiceMs);
        // The session table over this one turn.
        const session = summarize([r]);
        for (const key of ROW_KEYS) assert.equal(session.find((x) => x.key === key)!.p50, values[key], `session ${key}`);
        // History: the bar's stages, and the summary's rows over the logged turn.
        const lt = logged(r);
        const bar = turnBar(lt, barScale([lt]));
        assert.deepEqual(bar.segments.map((s) => [s.key, s.durationMs]), w.stages.map((s) => [s.key, s.durationMs]));
        assert.equal(bar.totalMs, w.totalMs);
        const log = summarizeLog([lt]);
        const rows = summaryRows(log);
        for (const key of [...ROW_KEYS, 'bargeInMs' as const]) assert.equal(rows.find((x) => x.key === key)!.p50, values[key], `History ${key}`);
        // bench: the turn's stages and their distribution.
        const bench = stageDistributions([turnStages(r)]);
        for (const key of ROW_KEYS) assert.equal(bench[key].median, values[key], `bench ${key}`);
        assert.equal(bench.bargeInMs.median, values.bargeInMs);
        // `npm run log -- summary`: the table's p50 column, rounded as it prints.
        const text = formatSummary(log).split('\n');
        for (const key of ROW_KEYS) {
          const [label] = STAGE_ROWS[LOG_ROW[key]!]!;
          const line = text.find((l) => l.startsWith(label))!;
          const p50 = line.slice(label.length).trim().split(/\s+/)[1];
          assert.equal(p50, values[key] === null ? '—' : String(Math.round(values[key]!)), `log summary ${key}: ${line}`);
        }
        // talk's latency line.
        const said = latencyLine(r);
        assert.match(said, new RegExp(`endpoint ${formatMs(values.endpointMs)} \\| stt ${formatMs(values.sttMs)} \\|`));
        assert.ok(said.includes(`tts first audio ${formatMs(values.ttsFirstAudioMs)}`), said);
        assert.ok(said.includes(`voice to voice ${formatMs(values.voiceToVoiceMs)}`), said);
        if (r.command) assert.ok(said.includes(`command ${r.command.name} ${formatMs(f.commandMs)}`), said);
        else assert.ok(said.includes(`llm first token ${formatMs(values.llmTtftMs)}`), said);
        if (r.prepared === 'used') {
          assert.match(said, /prepared during the pause, \d+ ms ahead/);
          assert.match(w.prepared ?? '', /^Prepared during the pause, \d+ ms ahead/);
        } else assert.equal(w.prepared, null);
      });

      it('a barge-in is told in the order it happened', () => {
        const line = bargeInLine(r);
        if (!r.bargeIn) return assert.equal(line, null);
        const times = [...line!.matchAll(/(\d+\.\d+) s/g)].map((m) => Number(m[1]));
        assert.ok(times.length >= 2, line!);
        assert.deepEqual(times, [...times].sort((a, b) => a - b), line!);
        // Playback can be held by the first sound, before the segmenter dates the speech's start: told as it came.
        assert.match(line!, /^barge-in: {2}(speech|paused) at \d.*(confirmed|stopped) \d/);
      });
    });
  }

  it('a tool call is a stage of the turn: on the timeline and in the waterfall, named after the tool, where it ran', () => {
    const base = FIXTURES.find((x) => x.kinds.includes('unprepared'))!.report;
    const t = base.timings;
    const at = t.llmFirstTokenMs ?? t.sttFinalMs;
    // As turnReport makes it: the timeline computed once the calls are in.
    const r: TurnReport = { ...base, timeline: undefined, tools: [{ name: 'add_note', server: 'built-in', ms: 42, ok: true, error: null, startMs: at }] };
    r.timeline = timelineOf(r);
    const stage = timelineOf(r).find((s) => s.stage === 'tool');
    assert.deepEqual(stage, { stage: 'tool', startMs: Math.round((at - t.speechEndMs) * 10) / 10, endMs: Math.round((at + 42 - t.speechEndMs) * 10) / 10, name: 'add_note' });
    const row = waterfall(r).stages.find((s) => s.key === 'tool');
    assert.equal(row?.label, 'tool: add_note');
    assert.equal(row?.durationMs, 42);
    assert.equal(timelineOf(base).filter((s) => s.stage === 'tool').length, 0, 'none without tools');
  });

  it('the session table counts a turn as soon as its answer starts playing, once', () => {
    const [a, b] = FIXTURES.map((x) => x.report);
    assert.equal(sessionReports([a!], b!).length, 2);
    assert.equal(sessionReports([a!, b!], b!).length, 2, 'its finished report replaces it');
    assert.equal(sessionReports([a!], null).length, 1);
  });

  it('the waterfall ticks are round numbers', () => {
    assert.deepEqual(niceTicks(0, 188).ticks, [0, 50, 100, 150, 200]);
    assert.deepEqual(niceTicks(0, 730).ticks, [0, 200, 400, 600, 800]);
    assert.deepEqual(niceTicks(-282, 73).ticks, [-300, -200, -100, 0, 100]);
    for (const r of FIXTURES.map((x) => x.report)) {
      const w = waterfall(r);
      const ends = w.stages.map((s) => s.startMs + s.durationMs);
      const { ticks } = niceTicks(Math.min(0, ...w.stages.map((s) => s.startMs)), Math.max(1, ...ends, w.firstAudioAtMs ?? 0));
      assert.ok(ticks.length <= 7);
      const step = ticks[1]! - ticks[0]!;
      assert.ok([1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000].includes(step), `step ${step}`);
    }
  });
});
