/**
 * The conversation history on disk: `talk --log` writes one full line per real turn (words left out
 * when history.logText is off); a log cut off mid-line by a crash is read back with that line
 * skipped and reported; files rotate by size, the oldest go past the total cap, and Clear deletes
 * them; lines never interleave; a failed write is reported, not thrown; the window's history
 * requests are validated and answered by the controller.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import { turnStages } from '../electron/bench/stages';
import { listLogFiles, readLogFiles } from '../electron/history/log-files';
import { formatLogLine, parseLogLines, SESSION_ID, type LoggedTurn } from '../electron/history/log-format';
import { HistoryRecorder } from '../electron/history/recorder';
import { SessionLog } from '../electron/history/session-log';
import { parseRequest } from '../electron/ipc-contract';
import type { TurnReport } from '../electron/pipeline/report';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';
import { TEST_CATALOG } from '../native-models/catalog';
import { sampleReport } from './history-fixtures';
import { MODELS, ROOT, SPEECH, runCli, tempDir } from './helpers';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'history');
const FIXTURE_A = 'session-2026-11-30T08-00-00Z-aaaa.jsonl';
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function linesOf(dir: string): LoggedTurn[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  return files.flatMap((f) => {
    const parsed = parseLogLines(readFileSync(path.join(dir, f), 'utf8'));
    assert.deepEqual(parsed.skipped, [], f);
    return parsed.turns;
  });
}

describe('talk --log DIR: a session of real turns', () => {
  const dir = tempDir('lva-history-talk-');
  const logDir = path.join(dir, 'history');

  async function talk(clip: string, settings: object): Promise<TurnReport[]> {
    const settingsFile = path.join(dir, `${clip}-settings.json`);
    const reportFile = path.join(dir, `${clip}-report.json`);
    writeFileSync(settingsFile, JSON.stringify(settings));
    const r = await runCli('electron/cli/talk.ts', ['--input', path.join(SPEECH, `${clip}.wav`), '--models', MODELS, '--fast', '--quiet', '--settings', settingsFile, '--report', reportFile, '--log', logDir]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(readFileSync(reportFile, 'utf8')) as { turns: TurnReport[] }).turns;
  }

  it('writes one line per turn with every field, and the report exactly as --report has it', async () => {
    const reports = await talk('two_turns', { llm: { maxTokens: 48 } });
    assert.equal(reports.length, 2);
    const lines = linesOf(logDir);
    assert.equal(lines.length, reports.length, 'one line per turn');
    assert.equal(readdirSync(logDir).length, 1, 'one session file');
    for (const [i, line] of lines.entries()) {
      assert.deepEqual(Object.keys(line).sort(), ['app', 'at', 'models', 'report', 'session', 'settingsHash', 'stages', 'texts', 'v']);
      assert.equal(line.v, 1);
      assert.match(line.session, SESSION_ID);
      assert.equal(readdirSync(logDir)[0], `session-${line.session}.jsonl`);
      assert.equal(new Date(line.at).toISOString(), line.at);
      assert.equal(line.app, VERSION);
      assert.match(line.settingsHash, /^[0-9a-f]{12}$/);
      assert.deepEqual(line.models, {
        vad: 'test-vad-silero@1a153a22',
        stt: 'test-stt-espeak-ctc-streaming@2d973f30',
        llm: 'test-llm-stories260k@270cba1b',
        tts: 'test-tts-formant@45b442ae',
        turn: line.models.turn,
      });
      assert.match(line.models.turn ?? '', /^test-turn-eot-espeak@[0-9a-f]{8}$/);
      assert.equal(line.texts, true);
      assert.deepEqual(line.report, reports[i]);
      assert.deepEqual(line.stages, turnStages(reports[i]!));
      assert.equal(typeof line.stages.sttMs, 'number');
      assert.equal(typeof line.stages.voiceToVoiceMs, 'number');
    }
    assert.ok(lines[0]!.at <= lines[1]!.at);
  });

  it('with history.logText off, the words are left out and the timings kept; the summary sees the settings change', async () => {
    const [report] = await talk('weather', { llm: { maxTokens: 48 }, history: { logText: false } });
    const lines = linesOf(logDir);
    assert.equal(lines.length, 3);
    const line = lines[2]!;
    assert.equal(line.texts, false);
    assert.deepEqual([line.report.userText, line.report.assistantText, line.report.heardText], ['', '', '']);
    assert.ok(report!.userText.length > 0, 'the run itself heard words');
    assert.deepEqual(line.report.timings, report!.timings);
    assert.deepEqual(line.stages, turnStages(report!));
    assert.notEqual(line.session, lines[0]!.session, 'each run is a session');
    assert.notEqual(line.settingsHash, lines[0]!.settingsHash);
    const r = await runCli('electron/cli/log.ts', ['summary', '--dir', logDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { turns: number; sessions: number; stages: Record<string, unknown>; changes: { turn: number; what: string[] }[] };
    assert.equal(summary.turns, 3);
    assert.equal(summary.sessions, 2);
    assert.deepEqual(Object.keys(summary.stages), ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs', 'overheadMs', 'bargeInMs', 'afterEndMs', 'preparedLeadMs']);
    assert.deepEqual(summary.changes.map((c) => [c.turn, c.what]), [[2, [`settings ${lines[1]!.settingsHash} → ${line.settingsHash}`]]]);
  });
});

describe('a log cut off mid-line (a crash)', () => {
  const dir = tempDir('lva-history-torn-');
  const file = path.join(dir, FIXTURE_A);
  copyFileSync(path.join(FIXTURE, FIXTURE_A), file);
  const whole = readFileSync(file, 'utf8');
  const lastLine = whole.trimEnd().split('\n').at(-1)!;
  // The crash: half of a fourth line, no newline.
  appendFileSync(file, lastLine.slice(0, Math.floor(lastLine.length / 2)));

  it('is read back with the partial line skipped and reported', async () => {
    const { turns, skipped } = await readLogFiles(await listLogFiles(dir));
    assert.equal(turns.length, 3);
    assert.deepEqual(skipped, [{ file, line: 4, reason: 'incomplete line (cut off while it was being written)' }]);
    const session = await new SessionLog(dir).read('2026-11-30T08-00-00Z-aaaa');
    assert.equal(session.turns.length, 3);
    assert.equal(session.skipped, 1);
  });

  it('a damaged line in the middle is skipped too, and the lines after it still count', () => {
    const lines = whole.trimEnd().split('\n');
    const parsed = parseLogLines([lines[0], '{"v":1,"session"', lines[1], '{"v":2}', lines[2], ''].join('\n'));
    assert.equal(parsed.turns.length, 3);
    assert.deepEqual(parsed.skipped, [
      { line: 2, reason: 'not JSON' },
      { line: 4, reason: 'unknown format version 2' },
    ]);
  });

  it('a hand-edited line nested 20,000 deep, or megabytes long, is skipped, not followed', () => {
    const lines = whole.trimEnd().split('\n');
    // Written as text: JSON.stringify itself cannot write it (which is how it crashed the bridge).
    const deep = lines[1]!.replace('"report":{', `"report":{"extra":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)},`);
    const long = lines[1]!.replace('"report":{', `"report":{"extra":"${'x'.repeat(300_000)}",`);
    const parsed = parseLogLines([lines[0], deep, long, lines[2], ''].join('\n'));
    assert.equal(parsed.turns.length, 2);
    assert.deepEqual(parsed.skipped, [
      { line: 2, reason: 'nested more than 32 levels deep' },
      { line: 3, reason: `too long (${long.length} characters; a turn is at most 262144)` },
    ]);
  });

  it('a session file far larger than the app writes is listed but not read; its lines are still counted in pieces', async () => {
    const big = tempDir('lva-history-big-');
    copyFileSync(path.join(FIXTURE, FIXTURE_A), path.join(big, FIXTURE_A));
    const huge = path.join(big, 'session-2026-11-30T09-00-00Z-bbbb.jsonl');
    const line = `${whole.trimEnd().split('\n')[0]!}\n`;
    writeFileSync(huge, line.repeat(Math.ceil((17 * 1024 * 1024) / line.length)));
    const { turns, skipped } = await readLogFiles(await listLogFiles(big));
    assert.equal(turns.length, 3, 'the other session is read');
    assert.deepEqual(skipped, [{ file: huge, line: 0, reason: 'the file is 17 MB, more than the app writes (at most 16 MB), so it was not read' }]);
    const sessions = await new SessionLog(big).list();
    assert.equal(sessions.find((x) => x.id === '2026-11-30T09-00-00Z-bbbb')?.turns, Math.ceil((17 * 1024 * 1024) / line.length));
    const r = await runCli('electron/cli/log.ts', ['summary', '--dir', big]);
    assert.ok(r.stdout.includes(`${huge}: the file is 17 MB`), r.stdout);
  });

  it('npm run log -- summary says which line of which file it skipped', async () => {
    const r = await runCli('electron/cli/log.ts', ['summary', '--dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^3 turns in 1 session/m);
    assert.ok(r.stdout.includes(`skipped 1 unreadable line:\n  ${file} line 4: incomplete line`), r.stdout);
    const json = await runCli('electron/cli/log.ts', ['summary', '--dir', dir, '--json']);
    assert.equal((JSON.parse(json.stdout) as { turns: number }).turns, 3);
    assert.match(json.stderr, /skipped 1 unreadable line/);
  });
});

const CONTEXT = { app: '0.1.0', settingsHash: '0123456789ab', models: { llm: 'x@12345678' }, texts: true };

describe('the session log', () => {
  it("a tool call's arguments and result are logged only with texts on", () => {
    const tools = [{ name: 'add_note', server: 'built-in', ms: 3, ok: true, error: null, startMs: 10, arguments: '{"text":"buy milk"}', result: 'Noted: buy milk' }];
    const at = { ...CONTEXT, session: '2026-01-01T00-00-00Z-0000', at: new Date().toISOString() };
    const logged = (texts: boolean) => (JSON.parse(formatLogLine(sampleReport({ tools }), { ...at, texts })) as { report: { tools: Record<string, unknown>[] } }).report.tools[0]!;
    assert.deepEqual(logged(true), tools[0]);
    assert.deepEqual(logged(false), { name: 'add_note', server: 'built-in', ms: 3, ok: true, error: null, startMs: 10 });
  });

  it('rotates by size, deletes the oldest files past the total cap, and Clear deletes every file', async () => {
    const dir = tempDir('lva-history-rotate-');
    const lineBytes = Buffer.byteLength(`${formatLogLine(sampleReport({ index: 0 }), { ...CONTEXT, session: '2026-01-01T00-00-00Z-0000', at: new Date().toISOString() })}\n`);
    const old = path.join(dir, 'session-2020-01-01T00-00-00Z-0000.jsonl');
    writeFileSync(old, 'x'.repeat(2 * lineBytes));
    // Two lines a file; the total holds four and a half.
    const log = new SessionLog(dir, { maxFileBytes: 2.5 * lineBytes, maxTotalBytes: 4.5 * lineBytes });
    for (let i = 0; i < 6; i++) assert.deepEqual(await log.append(sampleReport({ index: i }), CONTEXT), { ok: true, turns: i + 1 });
    const id = log.session;
    assert.deepEqual(readdirSync(dir).sort(), [`session-${id}-2.jsonl`, `session-${id}-3.jsonl`], 'the old session, then part 1, went first');
    for (const f of readdirSync(dir)) assert.ok(statSync(path.join(dir, f)).size <= 2.5 * lineBytes);
    const [info, ...others] = await log.list();
    assert.deepEqual(others, []);
    assert.deepEqual({ ...info, bytes: 0 }, { id, startedAt: info!.startedAt, turns: 4, bytes: 0, current: true });
    assert.deepEqual((await log.read(id)).turns.map((t) => t.report.index), [2, 3, 4, 5]);

    await log.clear();
    assert.deepEqual(readdirSync(dir), []);
    assert.deepEqual(await log.list(), []);
    assert.notEqual(log.session, id, 'the session goes on afresh');
    await log.append(sampleReport({ index: 9 }), CONTEXT);
    assert.deepEqual(readdirSync(dir), [`session-${log.session}.jsonl`]);
  });

  it('concurrent appends never interleave; each line is whole and in order', async () => {
    const dir = tempDir('lva-history-order-');
    const log = new SessionLog(dir);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => log.append(sampleReport({ index: i }), CONTEXT)));
    assert.deepEqual(results.map((r) => r.ok && r.turns), Array.from({ length: 25 }, (_, i) => i + 1));
    assert.deepEqual(linesOf(dir).map((t) => t.report.index), Array.from({ length: 25 }, (_, i) => i));
  });

  it('a write that fails is returned and reported once per message, never thrown', async () => {
    const dir = tempDir('lva-history-fail-');
    const blocked = path.join(dir, 'history');
    writeFileSync(blocked, 'a file where the folder should be');
    const errors: string[] = [];
    const recorder = new HistoryRecorder(blocked, { app: '0.1.0', catalog: TEST_CATALOG, onError: (m) => errors.push(m) });
    const first = await recorder.record(sampleReport({ index: 0 }), DEFAULT_SETTINGS, { llm: { id: 'test-llm-stories260k' } });
    await recorder.record(sampleReport({ index: 1 }), DEFAULT_SETTINGS, { llm: { id: 'test-llm-stories260k' } });
    assert.equal(first.ok, false);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /Could not write the conversation history/);
  });

  it('reads only sessions that are in the folder, by their exact id', async () => {
    const log = new SessionLog(FIXTURE);
    assert.equal((await log.read('2026-12-01T09-00-00Z-bbbb')).turns.length, 3);
    for (const id of ['2026-12-01T09-00-00Z-cccc', '../fixtures/history/session-2026-12-01T09-00-00Z-bbbb', '2026-12-01T09-00-00Z-bbbb.jsonl', '']) {
      await assert.rejects(log.read(id), /no conversation history session/, id);
    }
    const sessions = await log.list();
    assert.deepEqual(sessions.map((s) => [s.id, s.startedAt, s.turns, s.current]), [
      ['2026-12-01T09-00-00Z-bbbb', '2026-12-01T09:00:00.000Z', 3, false],
      ['2026-11-30T08-00-00Z-aaaa', '2026-11-30T08:00:00.000Z', 3, false],
    ]);
  });
});

describe('the microphone in the log', () => {
  const mic = { echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1 } as const;
  const at = '2026-12-02T10:00:00.000Z';

  it('is logged with each turn as the browser applied it, and read back; the device name never reaches the file', async () => {
    const dir = tempDir('lva-history-mic-');
    const recorder = new HistoryRecorder(dir, { app: '0.1.0', catalog: TEST_CATALOG });
    assert.equal((await recorder.record(sampleReport({ index: 0 }), DEFAULT_SETTINGS, {}, { ...mic, label: "Anna's AirPods" })).ok, true);
    assert.equal((await recorder.record(sampleReport({ index: 1 }), DEFAULT_SETTINGS, {}, null)).ok, true);
    const [file] = readdirSync(dir);
    const text = readFileSync(path.join(dir, file!), 'utf8');
    assert.ok(!text.includes('AirPods'), 'the label is not logged');
    const [withMic, without] = linesOf(dir);
    assert.deepEqual(withMic!.microphone, mic);
    assert.ok(!('microphone' in without!), 'no microphone reported: no field');
  });

  it('older lines without it still read; a damaged one is skipped and says why', () => {
    const old = readFileSync(path.join(FIXTURE, FIXTURE_A), 'utf8');
    const parsed = parseLogLines(old);
    assert.equal(parsed.turns.length, 3);
    assert.deepEqual(parsed.skipped, []);
    assert.ok(parsed.turns.every((t) => t.microphone === undefined));
    const line = (microphone: unknown) => JSON.stringify({ ...(JSON.parse(formatLogLine(sampleReport(), { ...CONTEXT, session: '2026-12-02T10-00-00Z-0000', at })) as object), microphone });
    const mixed = parseLogLines([line(mic), line({ ...mic, echoCancellation: 'remote-only' }), line({ ...mic, sampleRate: 'fast' }), line('on'), ''].join('\n'));
    assert.deepEqual(mixed.turns.map((t) => t.microphone?.echoCancellation), [false, 'remote-only']);
    assert.deepEqual(mixed.skipped, [
      { line: 3, reason: 'bad "microphone"' },
      { line: 4, reason: 'bad "microphone"' },
    ]);
  });
});

describe('the history requests from the window', () => {
  it('are validated: a session id must have the id shape, since must be a date, no extra fields', () => {
    const good = [{ type: 'history-sessions' }, { type: 'clear-history' }, { type: 'history-summary' }, { type: 'history-summary', since: '2026-12-01' }, { type: 'history-session', id: '2026-12-01T09-00-00Z-bbbb' }];
    for (const r of good) assert.deepEqual(parseRequest(r), { ok: true, value: r });
    const bad = [
      { type: 'history-session', id: '../../settings' },
      { type: 'history-session', id: 'session-2026-12-01T09-00-00Z-bbbb.jsonl' },
      { type: 'history-session', id: 42 },
      { type: 'history-session' },
      { type: 'history-summary', since: 'soon' },
      { type: 'history-summary', since: 5 },
      { type: 'clear-history', all: true },
      { type: 'history-sessions', dir: '/etc' },
    ];
    for (const r of bad) assert.equal(parseRequest(r).ok, false, JSON.stringify(r));
  });

  it('are answered by the controller from the data folder history/; errors come back as values', async () => {
    const dir = tempDir('lva-history-ctl-');
    mkdirSync(path.join(dir, 'history'));
    for (const f of readdirSync(FIXTURE)) copyFileSync(path.join(FIXTURE, f), path.join(dir, 'history', f));
    const c = new AssistantController({ settingsFile: path.join(dir, 'settings.json'), modelRoots: () => [], downloadRoot: path.join(dir, 'models'), audioSink: () => null });
    try {
      const list = await c.request({ type: 'history-sessions' });
      assert.ok(list.ok && 'sessions' in list);
      assert.deepEqual(list.sessions.map((s) => s.id), ['2026-12-01T09-00-00Z-bbbb', '2026-11-30T08-00-00Z-aaaa']);
      const one = await c.request({ type: 'history-session', id: '2026-11-30T08-00-00Z-aaaa' });
      assert.ok(one.ok && 'session' in one);
      assert.equal(one.session.turns.length, 3);
      assert.equal(one.session.skipped, 0);
      const unknown = await c.request({ type: 'history-session', id: '2026-11-30T08-00-00Z-ffff' });
      assert.equal(unknown.ok, false);
      const tricky = await c.request({ type: 'history-session', id: '../settings' });
      assert.equal(tricky.ok, false);
      const summary = await c.request({ type: 'history-summary', since: '2026-12-01' });
      assert.ok(summary.ok && 'summary' in summary);
      assert.equal(summary.summary.turns, 3);
      assert.deepEqual(await c.request({ type: 'clear-history' }), { ok: true });
      assert.deepEqual(readdirSync(path.join(dir, 'history')), []);
      const after = await c.request({ type: 'history-sessions' });
      assert.ok(after.ok && 'sessions' in after && after.sessions.length === 0);
    } finally {
      await c.dispose();
    }
  });
});
