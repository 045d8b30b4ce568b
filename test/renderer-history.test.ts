/** The History tab's pure helpers (renderer/model/history.ts), on turns logged as the app logs them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLogLine, type HistorySessionInfo, type LoggedTurn, type TurnContext } from '../electron/history/log-format';
import { summarize } from '../electron/history/summary';
import type { TurnReport } from '../electron/pipeline/report';
import { withReportFigures } from '../electron/report/turn-figures';
import {
  barScale,
  changeLines,
  exportFileName,
  exportJson,
  formatRate,
  formatSessionStart,
  rateRows,
  sortSessions,
  summaryRows,
  TEXT_NOT_LOGGED,
  turnBadges,
  turnBar,
  turnTexts,
} from '../renderer/model/history';

function report(t: Partial<TurnReport['timings']> = {}, patch: Partial<TurnReport> = {}): TurnReport {
  const timings = { speechStartMs: 0, speechEndMs: 1000, endOfTurnMs: 1600, sttFinalMs: 1610, llmFirstTokenMs: 1650, firstClauseMs: 1700, firstAudioMs: 1730, lastAudioMs: 3000, ...t };
  return withReportFigures({
    index: 0, userText: 'what is the weather', assistantText: 'sunny', heardText: 'sunny', interrupted: false, startedBy: 'speech', endReason: 'silence', bargeIn: null, backchannels: [],
    holdingPhrase: false, mergedContinuation: false, inputGainDb: 0, turnDetector: null, command: null, llmUsed: true, llm: { provider: 'local', fallback: false, error: null },
    prepared: 'none', preparedLeadMs: null, timings, engine: { sttFinalDecodeMs: 5, llmUntilFirstClauseMs: 80, ttsFirstClauseMs: 20 }, echo: null,
    ...patch,
  });
}

const context: TurnContext = { session: '2026-03-04T10-00-00Z-abcd', at: '2026-03-04T10:00:05.000Z', app: '0.1.0', settingsHash: 'aaaaaaaaaaaa', models: { llm: 'tiny@12345678' }, texts: true };

/** A turn exactly as a log line holds it. */
function logged(r: TurnReport, ctx: Partial<TurnContext> = {}): LoggedTurn {
  return JSON.parse(formatLogLine(r, { ...context, ...ctx })) as LoggedTurn;
}

describe('History tab helpers', () => {
  it('lists sessions newest first', () => {
    const s = (id: string, startedAt: string): HistorySessionInfo => ({ id, startedAt, turns: 1, bytes: 10, current: false });
    const sorted = sortSessions([s('a', '2026-03-01T10:00:00Z'), s('c', '2026-03-03T10:00:00Z'), s('b', '2026-03-02T10:00:00Z')]);
    assert.deepEqual(sorted.map((x) => x.id), ['c', 'b', 'a']);
  });

  it('names a session start by day in local time', () => {
    const now = new Date(2026, 2, 4, 15, 0).getTime();
    assert.equal(formatSessionStart(new Date(2026, 2, 4, 9, 5).toISOString(), now), 'Today 09:05');
    assert.equal(formatSessionStart(new Date(2026, 2, 3, 23, 59).toISOString(), now), 'Yesterday 23:59');
    assert.equal(formatSessionStart(new Date(2026, 0, 15, 7, 30).toISOString(), now), '2026-01-15 07:30');
    assert.equal(formatSessionStart('not a date', now), 'not a date');
  });

  it("shows a turn's words, or says they were not logged", () => {
    assert.deepEqual(turnTexts(logged(report())), { user: 'what is the weather', answer: 'sunny', logged: true });
    assert.deepEqual(turnTexts(logged(report(), { texts: false })), { user: TEXT_NOT_LOGGED, answer: TEXT_NOT_LOGGED, logged: false });
  });

  it('badges: local command, interrupted, holding phrase, error, LLM fallback (absent on old lines)', () => {
    assert.deepEqual(turnBadges(logged(report())), []);
    const all = logged(
      report(
        {},
        {
          command: { name: 'timer.start', slots: {} },
          interrupted: true,
          holdingPhrase: true,
          error: 'TTS failed',
          llm: { provider: 'openai-compatible', fallback: true, error: 'connection refused' },
        },
      ),
    );
    const badges = turnBadges(all);
    assert.deepEqual(badges.map((b) => b.kind), ['command', 'interrupted', 'holding', 'error', 'fallback']);
    assert.equal(badges[0]!.label, 'command: timer.start');
    assert.equal(badges[3]!.title, 'TTS failed');
    assert.match(badges[4]!.title, /connection refused/);
    // A line logged before reports said which model answered: no fallback badge, no crash.
    const old = logged(report());
    delete (old.report as Partial<TurnReport>).llm;
    assert.deepEqual(turnBadges(old), []);
    assert.deepEqual(turnBadges(logged(report({}, { llm: null }))), []);
  });

  it("a turn's bar: the waterfall's stages where they ran, on the session's round axis", () => {
    const t = logged(report());
    const axis = barScale([t]);
    assert.deepEqual(axis, { fromMs: 0, toMs: 800 }, 'a 730 ms turn fits a round 800 ms axis');
    const bar = turnBar(t, axis);
    assert.deepEqual(
      bar.segments.map((s) => [s.key, s.durationMs, Math.round(s.leftPct * 10) / 10, Math.round(s.widthPct * 10) / 10]),
      [
        ['endpoint', 600, 0, 75],
        ['stt', 10, 75, 1.3],
        ['llm', 40, 76.3, 5],
        ['clause', 50, 81.3, 6.3],
        // The first clause's synthesis (20 ms), not the 30 ms from the clause to its audio playing.
        ['tts', 20, 87.5, 2.5],
      ],
    );
    assert.equal(bar.totalMs, 730);
    assert.equal(bar.zeroPct, 0);
    assert.equal(bar.complete, true);
    assert.match(bar.description, /^Endpoint wait 600 ms, Speech to text 10 ms, .*; voice to voice 730 ms$/);
    // A command turn has the command stage; a turn without audio stops where it stopped.
    const cmd = turnBar(logged(report({ llmFirstTokenMs: null, firstClauseMs: 1640, firstAudioMs: 1700 }, { command: { name: 'time.now', slots: {} }, llmUsed: false, llm: null })), axis);
    assert.deepEqual(cmd.segments.map((s) => s.key), ['endpoint', 'stt', 'command', 'tts']);
    const cut = turnBar(logged(report({ firstAudioMs: null }, { error: 'TTS failed' })), axis);
    assert.equal(cut.complete, false);
    assert.equal(cut.totalMs, null);
    assert.match(cut.description, /voice to voice —.*no answer audio/);
    // A turn longer than the axis never draws past the bar's end.
    const short = turnBar(t, { fromMs: 0, toMs: 100 });
    assert.ok(short.segments.every((s) => s.leftPct >= 0 && s.leftPct + s.widthPct <= 100 + 1e-9));
    assert.deepEqual(barScale([t, logged(report({ firstAudioMs: 3200, lastAudioMs: 5000 }))]), { fromMs: 0, toMs: 2500 });
    // A prepared answer's LLM began before the end of speech: the axis reaches left of 0, on a round tick.
    const early = logged(report({ llmStartMs: 880, llmFirstTokenMs: 1000 }, { prepared: 'used', preparedLeadMs: 720 }));
    const wide = barScale([early]);
    assert.deepEqual(wide, { fromMs: -200, toMs: 800 });
    const eb = turnBar(early, wide);
    assert.equal(eb.zeroPct, 20);
    assert.ok(eb.segments.find((s) => s.key === 'llm')!.prepared);
    assert.match(eb.description, /prepared during the pause, 720 ms ahead of the end of turn/);
  });

  it('the summary: p50/p95 of the main stages, rates as percentages, changes with the voice-to-voice medians', () => {
    const a = logged(report({ firstAudioMs: 1800 }));
    const b = logged(report({ firstAudioMs: 1500 }), { settingsHash: 'bbbbbbbbbbbb', at: '2026-03-04T10:01:00.000Z' });
    const c = logged(report({ firstAudioMs: 1700 }, { interrupted: true, bargeIn: { detectedMs: 2000, playbackStoppedMs: 2100, speechStartMs: 1900 } }), { settingsHash: 'bbbbbbbbbbbb', at: '2026-03-04T10:02:00.000Z' });
    const summary = summarize([a, b, c]);
    const rows = summaryRows(summary);
    assert.deepEqual(rows.map((r) => r.label), ['Voice to voice', 'Endpoint wait', 'Speech to text', 'LLM first token', 'TTS first audio', 'Barge-in']);
    assert.deepEqual(rows[0], { key: 'voiceToVoiceMs', label: 'Voice to voice', n: 3, p50: 700, p95: 800 });
    assert.deepEqual(rows[5], { key: 'bargeInMs', label: 'Barge-in', n: 1, p50: 200, p95: 200 });
    assert.deepEqual(rateRows(summary).map((r) => `${r.label} ${r.value}`), ['Interrupted 33%', 'Holding phrase 0%', 'Nothing recognized 0%', 'Local command 0%']);
    const changes = changeLines(summary);
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.what, 'settings aaaaaaaaaaaa → bbbbbbbbbbbb');
    assert.equal(changes[0]!.effect, '800 ms → 500 ms');
    assert.equal(changes[0]!.turns, '1 → 2 turns');
    assert.equal(formatRate(0.004), '0.4%');
    assert.equal(formatRate(1), '100%');
    assert.equal(formatRate(null), '—');
  });

  it('exports a session as JSON that parses back to it, under a safe file name', () => {
    const session = { id: context.session, startedAt: '2026-03-04T10:00:00.000Z', turns: [logged(report())], skipped: 0 };
    assert.deepEqual(JSON.parse(exportJson(session)), session);
    assert.equal(exportFileName(context.session), 'session-2026-03-04T10-00-00Z-abcd.json');
    assert.equal(exportFileName('../x/y'), 'session-x-y.json');
  });
});
