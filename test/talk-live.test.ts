/**
 * `talk` as a tool people run: a turn is printed as soon as its answer starts, not once it has
 * played; interim words rewrite one terminal line; Ctrl+C and SIGTERM end the run with everything
 * up to that moment written. Real engines, in real time (no --fast), stopped early by a signal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readWavFile } from '../electron/audio/wav';
import { formatTurn, TalkConsole } from '../electron/cli/talk-console';
import type { PipelineEvent } from '../electron/pipeline/events';
import type { TurnReport } from '../electron/pipeline/report';
import { MANIFEST, MODELS, ROOT, SPEECH, tempDir, words } from './helpers';

interface Line {
  /** ms since the process was started. */
  at: number;
  text: string;
}

interface LiveRun {
  lines: Line[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs talk on weather.wav in real time, reading stdout as it comes; once a line matches `until`,
 * waits `afterMs` and sends `signal`. The answer (512 tokens, about 50 s of speech) is far from over.
 */
function talkUntil(args: string[], until: RegExp, afterMs: number, signal: NodeJS.Signals): Promise<LiveRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'electron/cli/talk.ts'), '--input', path.join(SPEECH, 'weather.wav'), '--models', MODELS, ...args], { cwd: ROOT });
  const lines: Line[] = [];
  let stderr = '';
  let rest = '';
  let sent = false;
  // Never hangs the suite: whatever happened, the process is gone after this.
  const limit = setTimeout(() => child.kill('SIGKILL'), 150_000);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const at = performance.now() - started;
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const text of parts) {
      lines.push({ at, text });
      if (!sent && until.test(text)) {
        sent = true;
        setTimeout(() => child.kill(signal), afterMs);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code, sig) => {
      clearTimeout(limit);
      resolve({ lines, code, signal: sig, stderr });
    }),
  );
}

const SPEECH_END_MS = MANIFEST.weather!.speech[0]!.end * 1000;

describe('talk in real time: printed as it goes, stopped cleanly', () => {
  // Both runs at once: each spends most of its time loading models.
  const termDir = tempDir('lva-live-');
  const intDir = tempDir('lva-live-');
  let termRun: Promise<LiveRun>;
  let intRun: Promise<LiveRun>;
  before(() => {
    termRun = talkUntil(['--report', path.join(termDir, 'r.json')], /^ {2}latency: /, 0, 'SIGTERM');
    intRun = talkUntil(['--report', path.join(intDir, 'r.json'), '--output', path.join(intDir, 'out.wav'), '--log', path.join(intDir, 'log')], /^ {2}latency: /, 2000, 'SIGINT');
  });

  it("prints the turn's latencies once its answer starts, long before the answer has played (SIGTERM ends it: 143)", async (t) => {
    const report = path.join(termDir, 'r.json');
    const run = await termRun;
    const out = run.lines.map((l) => l.text).join('\n');
    assert.equal(run.code, 143, `exit status 143 after SIGTERM:\n${out}\n${run.stderr}`);
    const models = run.lines.find((l) => l.text.startsWith('models:'));
    const latency = run.lines.find((l) => /^ {2}latency: /.test(l.text));
    assert.ok(models && latency, out);
    // The input starts playing after the models line: the speech ends no sooner than this.
    const speechEnd = models.at + SPEECH_END_MS;
    const after = latency.at - speechEnd;
    t.diagnostic(`latency line ${Math.round(after)} ms after the end of speech (at most; the input starts after the models line)`);
    // The done-when is 1 s on an idle machine; a loaded 2-core one gets room, and the line still
    // comes tens of seconds before the answer would have finished playing.
    assert.ok(after < 20_000, `latency line ${Math.round(after)} ms after the end of speech`);
    // The answer was still playing when the signal came, right after the line: it stopped it.
    const r = JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[]; stoppedBy: { signal: string; atMs: number } };
    assert.equal(r.stoppedBy.signal, 'SIGTERM');
    assert.equal(r.turns.length, 1);
    assert.equal(r.turns[0]!.interrupted, true, 'the answer had not finished when its latencies were printed');
    assert.match(out, /^turn 0 finished: the answer was stopped at /m);
  });

  it('Ctrl+C 2 s into the answer: exit 130, a report with that turn, the WAV and the history up to that moment', async () => {
    const report = path.join(intDir, 'r.json');
    const wavFile = path.join(intDir, 'out.wav');
    const logDir = path.join(intDir, 'log');
    const run = await intRun;
    const out = run.lines.map((l) => l.text).join('\n');
    assert.equal(run.code, 130, `exit status 130 after SIGINT:\n${out}\n${run.stderr}`);
    assert.match(out, /SIGINT: stopping/);

    const r = JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[]; stoppedBy: { signal: string; atMs: number } };
    assert.equal(r.stoppedBy.signal, 'SIGINT');
    assert.equal(r.turns.length, 1);
    const turn = r.turns[0]!;
    assert.deepEqual(words(turn.userText), words(MANIFEST.weather!.speech[0]!.text));
    assert.equal(turn.interrupted, true);
    const first = turn.timings.firstAudioMs!;
    const last = turn.timings.lastAudioMs!;
    // Stopped about 2 s into the answer (more on a loaded machine), where the run stopped.
    assert.ok(last - first >= 1500, `played ${last - first} ms before the stop`);
    assert.ok(Math.abs(last - r.stoppedBy.atMs) <= 100, `playback stopped at ${last}, the run at ${r.stoppedBy.atMs}`);
    assert.ok(turn.heardText.length > 0 && turn.assistantText.startsWith(turn.heardText.slice(0, 10)), 'the heard part is the start of the answer');

    // The WAV: the input's timeline up to the stop, the answer in it from its first audio.
    const wav = await readWavFile(wavFile);
    const samples = wav.channelData[0]!;
    const lengthMs = (samples.length / wav.sampleRate) * 1000;
    assert.ok(Math.abs(lengthMs - r.stoppedBy.atMs) <= 50, `WAV ${lengthMs} ms long, stopped at ${r.stoppedBy.atMs} ms`);
    const at = (ms: number) => Math.floor((ms / 1000) * wav.sampleRate);
    const energy = (from: number, to: number) => samples.subarray(at(from), at(to)).reduce((a, x) => a + x * x, 0);
    // Nothing before the turn ended (a holding phrase, on a machine too busy for the turn budget, may precede the answer).
    assert.equal(energy(0, turn.timings.endOfTurnMs - 5), 0, 'silent until the turn ended');
    assert.ok(energy(first, last) > 0, 'the answer up to the stop is in the WAV');

    // The history holds the turn too.
    const files = readdirSync(logDir).filter((f) => f.endsWith('.jsonl'));
    assert.equal(files.length, 1);
    const logged = readFileSync(path.join(logDir, files[0]!), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { report: TurnReport });
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.report.interrupted, true);
  });
});

/** A terminal or a pipe that keeps what was written to it. */
function screen(isTTY: boolean, columns = 60) {
  const written: string[] = [];
  return { out: { isTTY, columns, write: (s: string) => written.push(s) }, written };
}

const partial = (text: string, t: number): PipelineEvent => ({ type: 'partial', t, turn: 0, text });

function report(over: Partial<TurnReport> = {}): TurnReport {
  return {
    index: 0,
    userText: 'tell me a story',
    assistantText: 'Once upon a time.',
    heardText: 'Once upon a time.',
    interrupted: false,
    startedBy: 'speech',
    endReason: 'silence',
    bargeIn: null,
    backchannels: [],
    holdingPhrase: false,
    mergedContinuation: false,
    inputGainDb: 0,
    turnDetector: null,
    command: null,
    llmUsed: true,
    llm: null,
    prepared: 'none',
    preparedLeadMs: null,
    timings: { speechStartMs: 500, speechEndMs: 2100, endOfTurnMs: 2400, sttFinalMs: 2420, llmFirstTokenMs: 2500, firstClauseMs: 2550, firstAudioMs: 2600, lastAudioMs: 9000 },
    latency: { endpointMs: 300, sttMs: 20, llmTtftMs: 80, ttsFirstAudioMs: 50, voiceToVoiceMs: 500 },
    engine: { sttFinalDecodeMs: 10, llmUntilFirstClauseMs: 130, ttsFirstClauseMs: 40 },
    echo: null,
    ...over,
  };
}

describe('talk console', () => {
  it('in a terminal, interim words rewrite one line; the next line leaves the last of them standing', () => {
    const { out, written } = screen(true);
    const c = new TalkConsole(out);
    c.event(partial('what', 800));
    c.event(partial('what is the', 1100));
    c.line('next');
    assert.deepEqual(written, ['\r\x1b[2K  … what (0.80 s)', '\r\x1b[2K  … what is the (1.10 s)', '\n', 'next\n']);
  });

  it('in a terminal, interim words wider than it keep their newest words on one row', () => {
    const { out, written } = screen(true, 30);
    new TalkConsole(out).event(partial('what is the weather like today in the town', 2000));
    const shown = written[0]!.replace('\r\x1b[2K', '');
    assert.ok(shown.length <= 29, shown);
    assert.match(shown, /^….*town \(2\.00 s\)$/);
  });

  it('a question about a tool says what waits for a yes, and when it closes', () => {
    const { out, written } = screen(false);
    const c = new TalkConsole(out);
    c.event({ type: 'confirmation', t: 3000, pending: { id: 'confirm-1', turn: 0, tool: 'open', server: 'built-in', action: 'open example.com', askedAtMs: 3000 } });
    c.event({ type: 'confirmation', t: 9000, pending: null });
    assert.deepEqual(written, ['  ? asks first: open example.com (say yes or no; 3.00 s)\n', '  ? the question about a tool is closed (9.00 s)\n']);
  });

  it('piped, each interim result is a line of its own, as before', () => {
    const { out, written } = screen(false);
    const c = new TalkConsole(out);
    c.event(partial('what', 800));
    c.event(partial('what is the', 1100));
    assert.deepEqual(written, ['  … what (0.80 s)\n', '  … what is the (1.10 s)\n']);
  });

  it('a turn prints when its answer starts, then one "finished" block; the console shows at most 3 lines of the answer', () => {
    const { out, written } = screen(false);
    const c = new TalkConsole(out);
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    c.event({ type: 'answer-start', t: 2600, turn: 0, report: report({ assistantText: 'Once upon', heardText: '' }) });
    assert.equal(written.length, 1);
    assert.match(written[0]!, /^turn 0 {2}\(0\.50-2\.10 s, ended by silence\)\n {2}user: {6}tell me a story\n {2}assistant: Once upon …\n {2}latency: {3}endpoint 300 ms/);
    c.event({ type: 'turn', t: 9000, turn: 0, report: report({ assistantText: long, heardText: long }) });
    const done = written[1]!;
    assert.match(done, /^turn 0 finished: the answer played to the end \(9\.00 s\)\n {2}assistant: word0 /);
    assert.doesNotMatch(done, /latency:/, 'the figures did not change: not said twice');
    const answerLines = done.trimEnd().split('\n').slice(1);
    assert.equal(answerLines.length, 3);
    assert.match(answerLines[2]!, / …$/);
    assert.doesNotMatch(done, /word59/);
  });

  it("a command's answer is whole when it starts: no \"…\", and not said again when it finishes", () => {
    const { out, written } = screen(false);
    const c = new TalkConsole(out);
    const timer = report({ userText: 'set a timer for five seconds', assistantText: 'Timer set for five seconds.', command: { name: 'timer.start', slots: { durationMs: 5000 } }, llmUsed: false });
    c.event({ type: 'answer-start', t: 2600, turn: 0, report: timer });
    assert.match(written[0]!, /\n {2}assistant: Timer set for five seconds\.\n/);
    c.event({ type: 'turn', t: 4500, turn: 0, report: timer });
    assert.equal(written[1], 'turn 0 finished: the answer played to the end (9.00 s)\n');
  });

  it('an answer stopped before any of it played says so, not that it played to the end', () => {
    const { out, written } = screen(false);
    const c = new TalkConsole(out);
    c.event({ type: 'answer-start', t: 2600, turn: 0, report: report({ assistantText: 'Once upon', heardText: '' }) });
    c.event({ type: 'turn', t: 2700, turn: 0, report: report({ assistantText: 'Once upon', heardText: '' }) });
    assert.match(written[1]!, /^turn 0 finished: the answer was dropped before any of it played\n/);
  });

  it('a turn whose answer never played prints whole when it ends, as before', () => {
    const { out, written } = screen(false);
    new TalkConsole(out).event({ type: 'turn', t: 3000, turn: 0, report: report({ assistantText: '', heardText: '', error: 'The language model failed: boom' }) });
    assert.equal(written[0], `${formatTurn(report({ assistantText: '', heardText: '', error: 'The language model failed: boom' }))}\n`);
    assert.match(written[0]!, /error: {5}The language model failed: boom/);
  });
});
