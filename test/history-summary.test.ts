/**
 * The conversation history's summary: a hand-written log of six turns over two sessions (one
 * settings change, one model change) gives exactly the figures worked out by hand, in code and from
 * `npm run log -- summary`. Also: per-turn stages are the turn's figures, as bench has them, and the settings
 * hash ignores key order and secrets.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stageDistributions, turnStages } from '../electron/bench/stages';
import { listLogFiles, readLogFiles } from '../electron/history/log-files';
import { formatLogLine, type LoggedTurn } from '../electron/history/log-format';
import { modelTag } from '../electron/history/model-tags';
import { settingsHash } from '../electron/history/settings-hash';
import { summarize } from '../electron/history/summary';
import { formatSummary } from '../electron/history/summary-text';
import type { Distribution } from '../electron/stats';
import { TEST_CATALOG } from '../native-models/catalog';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';
import { sampleReport } from './history-fixtures';
import { ROOT, runCli } from './helpers';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'history');
const A = '2026-11-30T08-00-00Z-aaaa';
const B = '2026-12-01T09-00-00Z-bbbb';

/** n values whose median, p95, p99 and max are given (nearest rank). */
const d = (n: number, median: number | null, p95: number | null, max = p95): Distribution => ({ n, median, p95, p99: max, max });
const none = d(0, null, null);

async function fixtureTurns(): Promise<LoggedTurn[]> {
  const { turns, skipped } = await readLogFiles(await listLogFiles(FIXTURE));
  assert.deepEqual(skipped, []);
  return turns;
}

describe('the history summary of a fixture log', () => {
  it('has the exact figures worked out by hand', async () => {
    const s = summarize(await fixtureTurns());
    assert.equal(s.turns, 6);
    assert.equal(s.sessions, 2);
    assert.equal(s.from, '2026-11-30T08:00:10.000Z');
    assert.equal(s.to, '2026-12-01T09:02:00.000Z');
    assert.deepEqual(s.stages, {
      // Every turn's value is the one its waterfall shows (electron/report/turn-figures.ts).
      endpointMs: d(6, 200, 350), // 30 (push-to-talk: the key) 180 200 250 300 350
      sttMs: d(6, 30, 60), // 20 25 30 40 50 60
      llmTtftMs: d(2, 150, 300), // local commands and the empty turn have none
      ttsFirstAudioMs: d(5, 20, 60), // no synthesis time logged: clause to audio, 0 15 20 50 60
      voiceToVoiceMs: d(5, 400, 900), // 230 300 400 600 900 (the empty turn had no answer)
      overheadMs: d(5, 0, 20), // what no stage covers up to the first audio: 0 0 0 20 20
      bargeInMs: d(1, 120, 120),
      afterEndMs: { prepared: d(1, 50, 50), unprepared: d(4, 100, 870) }, // 50 100 400 870 (from the logged reports)
      preparedLeadMs: none, // the prepared turn's report has no lead logged
    });
    assert.deepEqual(s.rates, { interruption: 1 / 6, holdingPhrase: 1 / 6, emptyTranscript: 1 / 4, localCommand: 2 / 6 });
    // "You are welcome." "The capital of France is Paris." "Timer set for five minutes."; the two turns without texts and the empty answer are left out.
    assert.deepEqual(s.answerLength, { words: d(3, 5, 6), chars: d(3, 27, 31) });
    assert.deepEqual(s.changes, [
      {
        at: '2026-11-30T08:02:00.000Z',
        turn: 2,
        session: A,
        what: ['settings a1a1a1a1a1a1 → b2b2b2b2b2b2'],
        before: { turns: 2, voiceToVoiceMs: d(2, 400, 600), endpointMs: d(2, 200, 300), sttMs: d(2, 40, 50), llmTtftMs: d(1, 150, 150), ttsFirstAudioMs: d(2, 20, 60), interruption: 0.5 },
        after: { turns: 1, voiceToVoiceMs: d(1, 300, 300), endpointMs: d(1, 250, 250), sttMs: d(1, 30, 30), llmTtftMs: none, ttsFirstAudioMs: d(1, 0, 0), interruption: 0 },
      },
      {
        at: '2026-12-01T09:00:10.000Z',
        turn: 3,
        session: B,
        what: ['llm: qwen-small@11111111 → qwen-large@22222222'],
        before: { turns: 1, voiceToVoiceMs: d(1, 300, 300), endpointMs: d(1, 250, 250), sttMs: d(1, 30, 30), llmTtftMs: none, ttsFirstAudioMs: d(1, 0, 0), interruption: 0 },
        after: { turns: 3, voiceToVoiceMs: d(2, 230, 900), endpointMs: d(3, 180, 350), sttMs: d(3, 25, 60), llmTtftMs: d(1, 300, 300), ttsFirstAudioMs: d(2, 15, 50), interruption: 0 },
      },
    ]);
  });

  it('counts tool calls by tool: calls, failures and their times; malformed entries of a hand-edited log are left out', async () => {
    const turns = await fixtureTurns();
    assert.deepEqual(summarize(turns).tools, [], 'the fixture called no tool');
    const use = (name: string, ms: number, ok = true) => ({ name, server: 'built-in', ms, ok, error: ok ? null : 'it took longer than 10 s', startMs: 0 });
    turns[0]!.report.tools = [use('add_note', 12), use('read_clipboard', 3)];
    turns[1]!.report.tools = [use('add_note', 30, false), { name: 42 } as never, use('add_note', 20)];
    turns[2]!.report.tools = 'not a list' as never;
    const s = summarize(turns);
    assert.deepEqual(s.tools, [
      { name: 'add_note', server: 'built-in', calls: 3, failed: 1, ms: d(3, 20, 30) },
      { name: 'read_clipboard', server: 'built-in', calls: 1, failed: 0, ms: d(1, 3, 3) },
    ]);
    assert.match(formatSummary(s), /tool calls \(ms p50\/p95\):\n {2}add_note \(built-in\): 3 calls, 1 failed, 20\/30\n {2}read_clipboard \(built-in\): 1 call, 3\/3/);
  });

  it('--since keeps the turns that ended at or after it; a change needs a turn before it', async () => {
    const s = summarize(await fixtureTurns(), { since: new Date('2026-12-01') });
    assert.equal(s.turns, 3);
    assert.equal(s.sessions, 1);
    assert.deepEqual(s.changes, []);
    assert.deepEqual(s.stages.sttMs, d(3, 25, 60));
    assert.equal(summarize([]).rates.interruption, 0);
  });

  it('a change of what the browser applied to the microphone is a change; a line without it (older logs) is none', async () => {
    const turns = await fixtureTurns();
    const mic = { echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1 } as const;
    // Session B's three turns: the first with no microphone field, then one with the browser's canceller on, then off.
    const later = [turns[3]!, { ...turns[4]!, microphone: { ...mic, echoCancellation: true } }, { ...turns[5]!, microphone: { ...mic, sampleRate: 16000 } }];
    assert.deepEqual(
      summarize(later).changes.map((c) => [c.turn, c.what]),
      [[2, ['microphone echoCancellation true → false, sampleRate 48000 → 16000']]],
    );
  });

  it('npm run log -- summary --json prints the same summary; the table shows the figures and changes', async () => {
    const expected = summarize(await fixtureTurns());
    const json = await runCli('electron/cli/log.ts', ['summary', '--dir', FIXTURE, '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), JSON.parse(JSON.stringify(expected)));
    const text = await runCli('electron/cli/log.ts', ['summary', '--dir', FIXTURE, '--since', '2026-11-01']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /6 turns in 2 sessions/);
    assert.match(text.stdout, /voice to voice\s+5\s+400\s+900/);
    assert.match(text.stdout, /interrupted 17% \| holding phrase 17% \| empty transcript 25% \| local command 33%/);
    assert.match(text.stdout, /llm: qwen-small@11111111 → qwen-large@22222222\n {2}before: 1 turn; voice to voice 300\/300 ms.*\n {2}after: {2}3 turns; voice to voice 230\/900 ms/);
  });

  it('bad input is one clear error line', async () => {
    const cases: [string[], RegExp][] = [
      [['summary', '--dir', FIXTURE, '--since', 'last week'], /^error: --since: "last week" is not a date/],
      [['summary', '--dir', path.join(FIXTURE, 'nope')], /^error: No conversation history folder at .*nope/],
      [['report'], /^error: unknown command "report"/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli('electron/cli/log.ts', args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});

describe('per-turn stages (shared with npm run bench)', () => {
  it("are the turn's figures: the LLM and TTS stages their own lengths, a prepared answer's too", () => {
    assert.deepEqual(turnStages(sampleReport({})), {
      endpointMs: 600, sttMs: 50, llmTtftMs: 150, ttsFirstAudioMs: 45, voiceToVoiceMs: 900, overheadMs: 5, bargeInMs: null, afterEndMs: { prepared: null, unprepared: 300 }, preparedLeadMs: null,
    });
    const used = turnStages(sampleReport({ prepared: 'used', preparedLeadMs: 80, endReason: 'push-to-talk', bargeIn: { detectedMs: 2500, playbackStoppedMs: 2520.04, speechStartMs: 2300 } }));
    assert.deepEqual(used, {
      // The prepared LLM began 80 ms before the end of turn (1520) and wrote its first token at 1800.
      endpointMs: 600, sttMs: 50, llmTtftMs: 280, ttsFirstAudioMs: 45, voiceToVoiceMs: 900, overheadMs: 5, bargeInMs: 220, afterEndMs: { prepared: 300, unprepared: null }, preparedLeadMs: 80,
    });
    assert.deepEqual(stageDistributions([used]).bargeInMs, d(1, 220, 220));
  });

  it('a log line without texts keeps the stages and blanks the words; model tags carry the catalog sha256', () => {
    const line = JSON.parse(formatLogLine(sampleReport({}), { session: A, at: '2026-11-30T08:00:00.000Z', app: '1.2.3', settingsHash: 'x', models: {}, texts: false })) as LoggedTurn;
    assert.equal(line.report.userText + line.report.assistantText + line.report.heardText, '');
    assert.equal(line.stages.voiceToVoiceMs, 900);
    assert.equal(modelTag('test-llm-stories260k', TEST_CATALOG), 'test-llm-stories260k@270cba1b');
    assert.equal(modelTag('llama3.2:3b', TEST_CATALOG), 'llama3.2:3b');
  });

  it('the settings hash ignores key order and any apiKey, and changes with any other value', () => {
    const h = settingsHash(DEFAULT_SETTINGS);
    assert.match(h, /^[0-9a-f]{12}$/);
    const reordered = Object.fromEntries(Object.entries(DEFAULT_SETTINGS).reverse()) as unknown as typeof DEFAULT_SETTINGS;
    assert.equal(settingsHash(reordered), h);
    assert.equal(settingsHash({ ...DEFAULT_SETTINGS, llm: { ...DEFAULT_SETTINGS.llm, server: { ...DEFAULT_SETTINGS.llm.server, apiKey: 'sk-secret' } } }), h);
    assert.notEqual(settingsHash({ ...DEFAULT_SETTINGS, history: { logText: false } }), h);
  });
});
