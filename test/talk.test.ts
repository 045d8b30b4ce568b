import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { encodeWav, readWavFile } from '../electron/audio/wav';
import type { TurnReport } from '../electron/pipeline/report';
import { MANIFEST, MODELS, SPEECH, runCli, tempDir, words } from './helpers';
import { talkHere } from './talk-here';

/** The shared rooms' impulse responses (../shared/rooms). */
const ROOMS = path.resolve(SPEECH, '../rooms');

const dir = tempDir();
const shortReplies = path.join(dir, 'short.json');
writeFileSync(shortReplies, JSON.stringify({ llm: { maxTokens: 48 } }));

async function talk(clip: string, extra: string[] = []) {
  const report = path.join(dir, `${clip}-${Math.random().toString(36).slice(2)}.json`);
  const output = report.replace(/\.json$/, '.wav');
  const input = path.join(SPEECH, `${clip}.wav`);
  const res = await talkHere(['--input', input, '--models', MODELS, '--report', report, '--output', output, '--fast', '--settings', shortReplies, ...extra]);
  assert.equal(res.code, 0, `talk failed: ${res.stderr}`);
  const parsed = JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[]; models: Record<string, { id: string }>; settings: unknown };
  return { ...res, report: parsed, output };
}

describe('talk (headless pipeline on the real engines)', () => {
  it('weather: one turn with every timing present and in order', async () => {
    const { report, stdout, output } = await talk('weather');
    assert.equal(report.turns.length, 1);
    const turn = report.turns[0]!;
    assert.deepEqual(words(turn.userText), words(MANIFEST.weather!.speech[0]!.text));
    assert.ok(turn.assistantText.length > 0, 'the assistant answered');
    assert.equal(turn.heardText, turn.assistantText);
    assert.equal(turn.interrupted, false, `not interrupted:\n${stdout}`);
    const t = turn.timings;
    for (const [k, v] of Object.entries(t)) assert.equal(typeof v, 'number', `${k} is present`);
    assert.ok(t.speechStartMs < t.speechEndMs);
    assert.ok(t.speechEndMs <= t.endOfTurnMs);
    assert.ok(t.endOfTurnMs <= t.sttFinalMs);
    assert.ok(t.sttFinalMs <= t.firstAudioMs!);
    assert.ok(t.llmFirstTokenMs! <= t.firstAudioMs!);
    assert.ok(t.firstAudioMs! < t.lastAudioMs!);
    // speechEndMs is when the user stopped talking, not when the silence ran out.
    assert.ok(Math.abs(t.speechEndMs - MANIFEST.weather!.speech[0]!.end * 1000) <= 100, `speechEndMs ${t.speechEndMs}`);
    assert.equal(turn.latency.voiceToVoiceMs, Math.round((t.firstAudioMs! - t.speechEndMs) * 10) / 10);
    for (const kind of ['vad', 'stt', 'llm', 'tts']) assert.ok(report.models[kind]?.id, `${kind} model reported`);
    assert.match(stdout, /what is the weather like today/);
    assert.match(stdout, /voice to voice \d+ ms/);
    // The answer's audio lies on the input's timeline, starting at firstAudioMs.
    const wav = await readWavFile(output);
    const samples = wav.channelData[0]!;
    const at = (ms: number) => Math.floor((ms / 1000) * wav.sampleRate);
    const energy = (from: number, to: number) => samples.subarray(at(from), at(to)).reduce((a, x) => a + x * x, 0);
    assert.equal(energy(0, t.firstAudioMs! - 5), 0, 'silent before the answer');
    assert.ok(energy(t.firstAudioMs!, t.lastAudioMs!) > 0, 'the answer is in OUT.wav');
  });

  it("--report and `log -- summary --json` agree on every figure they share, for a turn with a prepared answer; no duration is negative", async () => {
    const log = tempDir();
    const { report } = await talk('weather', ['--log', log]);
    const turn = report.turns[0]!;
    assert.equal(turn.prepared, 'used', 'the answer was prepared during the pause');
    const res = await runCli('electron/cli/log.ts', ['summary', '--dir', log, '--json']);
    assert.equal(res.code, 0, res.stderr);
    const stages = (JSON.parse(res.stdout) as { turns: number; stages: Record<string, { n: number; median: number | null }> }).stages;
    const shared: Record<string, number | null> = { ...turn.latency, preparedLeadMs: turn.preparedLeadMs };
    const compared = Object.keys(shared).filter((k) => k in stages);
    assert.deepEqual(compared.sort(), ['endpointMs', 'llmTtftMs', 'preparedLeadMs', 'sttMs', 'ttsFirstAudioMs', 'voiceToVoiceMs']);
    for (const k of compared) assert.equal(stages[k]!.median, shared[k], `${k}: --report ${shared[k]}, log summary ${stages[k]!.median}`);
    for (const [k, v] of Object.entries({ ...turn.latency, ...turn.engine })) assert.ok(v === null || v >= 0, `${k} ${v}`);
  });

  it('two_turns: two turns with the right words', async () => {
    const { report } = await talk('two_turns');
    assert.equal(report.turns.length, 2);
    MANIFEST.two_turns!.speech.forEach((seg, i) => {
      assert.deepEqual(words(report.turns[i]!.userText), words(seg.text));
    });
  });

  it('the offline (VAD-segmented) recognizer gives the same turns', async () => {
    const settings = path.join(dir, 'offline.json');
    writeFileSync(settings, JSON.stringify({ llm: { maxTokens: 32 }, models: { stt: 'test-stt-espeak-ctc' } }));
    const { report } = await talk('two_turns', ['--settings', settings]);
    assert.equal(report.turns.length, 2);
    assert.deepEqual(words(report.turns[1]!.userText), words(MANIFEST.two_turns!.speech[1]!.text));
  });

  it('push-to-talk (--ptt 0.4-2.3 over weather): one turn ended by the release, with no silence wait', async () => {
    const { report } = await talk('weather', ['--ptt', '0.4-2.3']);
    assert.equal(report.turns.length, 1);
    const turn = report.turns[0]!;
    assert.equal(turn.endReason, 'push-to-talk');
    assert.deepEqual(words(turn.userText), words(MANIFEST.weather!.speech[0]!.text));
    const eot = turn.timings.endOfTurnMs;
    assert.ok(eot >= 2300 && eot <= 2350, `endOfTurnMs ${eot} within 50 ms after the release at 2300`);
    assert.ok(Math.abs(turn.timings.speechEndMs - MANIFEST.weather!.speech[0]!.end * 1000) <= 100);
  });

  it('one-shot (--activate 0.2 over weather): one turn, started by the activation, and the activation in the log', async () => {
    const { report, stdout } = await talk('weather', ['--activate', '0.2']);
    assert.equal(report.turns.length, 1);
    const turn = report.turns[0]!;
    assert.equal(turn.startedBy, 'activation');
    assert.deepEqual(words(turn.userText), words(MANIFEST.weather!.speech[0]!.text));
    assert.equal((report.settings as { mode: string }).mode, 'one-shot');
    assert.match(stdout, /activation: listening for one turn \(0\.2\d s\)/);
    assert.match(stdout, /started by activation, ended by (silence|turn-model)/);
  });

  it('--room with --cleaned: the answer comes back through a room, and the cleaned microphone is as long as the input', async () => {
    const cleaned = path.join(dir, 'weather-cleaned.wav');
    const { report, stdout } = await talk('weather', ['--room', path.join(ROOMS, 'laptop_small_room.wav'), '--echo', '0.5:10', '--cleaned', cleaned]);
    assert.match(stdout, /room: .*laptop_small_room\.wav \(200 ms\), gain 0\.5, delay 10 ms/);
    assert.ok(report.turns.length >= 1, 'the question was heard');
    assert.deepEqual(words(report.turns[0]!.userText), words(MANIFEST.weather!.speech[0]!.text));
    const input = await readWavFile(path.join(SPEECH, 'weather.wav'));
    const wav = await readWavFile(cleaned);
    assert.equal(wav.sampleRate, 16000);
    assert.equal(wav.channelData[0]!.length, input.channelData[0]!.length, 'one sample per input sample');
    // Before anything played, the canceller has nothing to take out: the words come through.
    const loud = (x: Float32Array) => x.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    assert.ok(loud(wav.channelData[0]!.subarray(8000, 32000)) > 0.05, 'the user\'s words are in the cleaned signal');
  });

  for (const clip of ['silence', 'noise']) {
    it(`${clip}: no turn`, async () => {
      const { report, output } = await talk(clip);
      assert.equal(report.turns.length, 0);
      const wav = await readWavFile(output);
      assert.ok(wav.channelData[0]!.every((x) => x === 0), 'nothing was spoken');
    });
  }
});

describe('talk: user errors give one clear line and a non-zero exit', () => {
  const bad = tempDir('lva-bad-');
  const notWav = path.join(bad, 'notes.wav');
  writeFileSync(notWav, 'this is not audio');
  const weather = readFileSync(path.join(SPEECH, 'weather.wav'));
  const truncated = path.join(bad, 'truncated.wav');
  writeFileSync(truncated, weather.subarray(0, 20_000));
  const alaw = path.join(bad, 'alaw.wav');
  const alawBuf = Buffer.from(weather);
  alawBuf.writeUInt16LE(6, 20); // format code 6: A-law
  alawBuf.writeUInt16LE(8, 34);
  writeFileSync(alaw, alawBuf);
  const badJson = path.join(bad, 'broken.json');
  writeFileSync(badJson, '{\n  "llm": {\n    "maxTokens": 48\n    "temperature": 0.2\n  }\n}\n');
  const badSettings = path.join(bad, 'settings.json');
  writeFileSync(badSettings, JSON.stringify({ endpointing: { silenceMs: -5 }, llm: { temperature: 'hot' } }));
  const emptyModels = tempDir('lva-nomodels-');
  const weatherPath = path.join(SPEECH, 'weather.wav');
  const longIr = path.join(bad, 'hall.wav');
  writeFileSync(longIr, encodeWav(new Float32Array(16000 * 3).fill(0.01), 16000));

  const cases: [string, string[], RegExp][] = [
    ['missing input file', ['--input', path.join(bad, 'nope.wav'), '--models', MODELS], /nope\.wav.*not found/i],
    ['not a WAV', ['--input', notWav, '--models', MODELS], /notes\.wav.*not a WAV/i],
    ['truncated WAV', ['--input', truncated, '--models', MODELS], /truncated/i],
    ['unsupported encoding', ['--input', alaw, '--models', MODELS], /A-law/i],
    ['missing model', ['--input', weatherPath, '--models', emptyModels], /model/i],
    ['invalid settings', ['--input', weatherPath, '--models', MODELS, '--settings', badSettings], /endpointing\.silenceMs.*llm\.temperature/],
    ['missing --input', ['--models', MODELS], /--input/],
    ['unknown option', ['--input', weatherPath, '--bogus'], /bogus/],
    ['bad --ptt', ['--input', weatherPath, '--models', MODELS, '--ptt', '2.3-0.4'], /--ptt/],
    // A value that begins with a dash is the option's value, and the option says what is wrong with it (no "ambiguous", no usage).
    ['--ptt -1-2', ['--input', weatherPath, '--models', MODELS, '--ptt', '-1-2'], /^error: --ptt: "-1-2" is not START-END in seconds with END after START \(example: --ptt 0\.4-2\.3,5-6\.5\)$/],
    ['--tail -5', ['--input', weatherPath, '--models', MODELS, '--tail', '-5'], /^error: --tail must be a number of seconds from 0 to 3600, got "-5"$/],
    ['--models with no value', ['--input', weatherPath, '--models', '--fast'], /^error: --models needs a value, got the option --fast/],
    ['settings file with a JSON error', ['--input', weatherPath, '--models', MODELS, '--settings', badJson], /broken\.json is not valid JSON \(line 4, column 5: expected ',' or '\}' after the property's value\)$/],
    ['bad --activate', ['--input', weatherPath, '--models', MODELS, '--activate', '0.2,soon'], /--activate: "soon" is not a time in seconds/],
    ['--room: missing file', ['--input', weatherPath, '--models', MODELS, '--room', path.join(bad, 'nope.wav')], /^error: --room: .*nope\.wav not found/],
    ['--room: not a WAV', ['--input', weatherPath, '--models', MODELS, '--room', notWav], /^error: --room: .*notes\.wav.*not a WAV/i],
    ['--room: longer than 2 s', ['--input', weatherPath, '--models', MODELS, '--room', longIr], /^error: --room: .*hall\.wav is 3\.00 s long; an impulse response may last at most 2 s/],
    ['--cleaned: no such folder', ['--input', weatherPath, '--models', MODELS, '--cleaned', path.join(bad, 'no', 'clean.wav')], /^error: --cleaned: the folder .* does not exist/],
    ['--cleaned: not a .wav', ['--input', weatherPath, '--models', MODELS, '--cleaned', path.join(bad, 'clean.txt')], /^error: --cleaned: ".*clean\.txt" is not a \.wav file name/],
    ['--cleaned over the input', ['--input', weatherPath, '--models', MODELS, '--cleaned', weatherPath], /^error: --cleaned: .* is also the input; give it a name of its own$/],
    ['--activate past the input', ['--input', weatherPath, '--models', MODELS, '--activate', '12'], /--activate: 12 s is not within the input/],
  ];
  /** What the command prints for its failure, run in this process (talkMain and cliFailure are what `talk` itself runs). */
  const check = (res: { code: number; stderr: string }, message: RegExp) => {
    assert.notEqual(res.code, 0);
    const lines = res.stderr.trim().split('\n').filter((l) => !/^npm warn/.test(l));
    assert.equal(lines.length, 1, `one line, got:\n${res.stderr}`);
    assert.match(lines[0]!, /^error: /);
    assert.match(lines[0]!, message);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  };
  for (const [name, args, message] of cases) it(name, async () => check(await talkHere(args), message));
  // Two as the command itself, so the printing and the exit status are the real ones too.
  for (const [name, args, message] of cases.filter(([n]) => n === 'missing input file' || n === 'settings file with a JSON error')) {
    it(`${name} (the command in its own process)`, async () => check(await runCli('electron/cli/talk.ts', args), message));
  }
});
