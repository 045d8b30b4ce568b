/**
 * `talk` against hostile command lines and files (issue 24): a bad --log, --output or --report is
 * one line before any model loads, never a hang or a stack trace after the run; a long input costs
 * no more memory than a short one; a server model is described as one.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { UserError } from '../electron/errors';
import { checkDistinct, checkOutputFile, prepareLogFolder } from '../electron/cli/talk-paths';
import { MODELS, ROOT, SPEECH, tempDir, within } from './helpers';
import { talkHere } from './talk-here';

const dir = tempDir('lva-talk-inputs-');
const RATE = 192_000;
const weather = path.join(SPEECH, 'weather.wav');
const silence = path.join(SPEECH, 'silence.wav');
const aFile = path.join(dir, 'notes.txt');
writeFileSync(aFile, 'not a folder');
const aFolder = path.join(dir, 'folder');
mkdirSync(aFolder);

/** A usage error: exit 1, one `error:` line matching `message`, no stack, and no model loaded first. */
async function refused(args: string[], message: RegExp): Promise<void> {
  // A bound on a hang, not a timing: the old --log /proc/nope never returned.
  const res = await within(talkHere(['--input', weather, '--models', MODELS, ...args]), 30_000, 'talk');
  const lines = res.stderr.trim().split('\n').filter((l) => !/^npm warn/.test(l));
  assert.equal(lines.length, 1, `one line, got:\n${res.stderr}`);
  assert.match(lines[0]!, /^error: /);
  assert.match(lines[0]!, message);
  assert.equal(res.code, 1);
  assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(res.stdout, /models:/, 'refused before any model loaded');
}

/** Runs `check`, expecting a usage UserError whose message matches `message`. */
async function refusedHere(check: () => Promise<void>, message: RegExp): Promise<void> {
  await assert.rejects(check(), (e: unknown) => {
    assert.ok(e instanceof UserError, String(e));
    assert.equal(e.code, 'usage');
    assert.match(e.message, message);
    assert.doesNotMatch(e.message, /\n/);
    return true;
  });
}

describe('--log DIR: the folder is checked and made without recursive mkdir', () => {
  it('/proc/nope is refused at once (recursive mkdir spun on it forever)', { skip: !existsSync('/proc/self') && 'no /proc here' }, () =>
    refusedHere(() => prepareLogFolder('/proc/nope/deeper'), /^--log: cannot (write in \/proc|make the folder \/proc\/nope) \(.*\); give a folder you can write to$/),
  );

  it('an existing file, or a folder under one, is refused naming the file', async () => {
    await refusedHere(() => prepareLogFolder(aFile), /^--log: .*notes\.txt is a file, not a folder; give a folder$/);
    await refusedHere(() => prepareLogFolder(path.join(aFile, 'a', 'b')), /^--log: .*notes\.txt is a file, so .*notes\.txt\/a\/b cannot be made inside it; give a folder$/);
    await refusedHere(() => prepareLogFolder('/dev/null'), /^--log: \/dev\/null is a device, pipe or socket, not a folder; give a folder$/);
  });

  it('missing folders under a writable one are made, one by one, and an existing one is kept', async () => {
    const deep = path.join(dir, 'made', 'one', 'by', 'one');
    await prepareLogFolder(deep);
    assert.ok(statSync(deep).isDirectory());
    await prepareLogFolder(deep);
    assert.deepEqual(readdirSync(deep), [], 'no probe file left behind');
  });
});

describe('--output, --report, --cleaned: checked before the run', () => {
  const missing = path.join(dir, 'no-such-folder');
  const cases: [string, () => Promise<void>, RegExp][] = [
    ['into a missing folder', () => checkOutputFile('--output', path.join(missing, 'out.wav'), 'out.wav'), /^--output: the folder .*no-such-folder does not exist; create it first$/],
    ['onto a folder', () => checkOutputFile('--report', aFolder, 'report.json'), /^--report: .*folder is a folder; give a file name \(example: --report .*folder\/report\.json\)$/],
    ['onto a device', () => checkOutputFile('--output', '/dev/null', 'out.wav'), /^--output: \/dev\/null is not a plain file/],
    ['under a file', () => checkOutputFile('--cleaned', path.join(aFile, 'c.wav'), 'clean.wav'), /^--cleaned: the folder .*notes\.txt does not exist; create it first$/],
    ['an empty name', () => checkOutputFile('--output', '', 'out.wav'), /^--output needs a file name/],
  ];
  for (const [name, check, message] of cases) it(name, () => refusedHere(check, message));

  it('a file in a folder that exists passes, and nothing is left there', async () => {
    await checkOutputFile('--output', path.join(aFolder, 'out.wav'), 'out.wav');
    assert.deepEqual(readdirSync(aFolder), []);
  });

  it('two options naming one file are refused', () => {
    const same = path.join(dir, 'same');
    assert.throws(() => checkDistinct([['--input', weather, 'the input'], ['--output', same, 'the output'], ['--report', same, 'the report']]), /^UserError: --report: .*same is also the output; give it a name of its own$/);
    assert.throws(() => checkDistinct([['--input', weather, 'the input'], ['--cleaned', `${path.dirname(weather)}/./weather.wav`, 'x']]), /--cleaned: .* is also the input/);
    checkDistinct([['--input', weather, 'the input'], ['--output', undefined, 'the output'], ['--report', same, 'the report']]);
  });
});

describe('talk: a bad --log, --output or --report is one line before any model loads', { concurrency: true }, () => {
  // /proc/nope: the old talk spun in mkdir for ever; the others printed a stack after the whole run.
  const cases: [string, string[], RegExp][] = [
    ['--log /proc/nope', ['--log', '/proc/nope'], /^error: --log: cannot (write in \/proc|make the folder \/proc\/nope) \(.*\); give a folder you can write to$/],
    ['--log onto a file', ['--log', aFile], /^error: --log: .*notes\.txt is a file, not a folder; give a folder$/],
    ['--output into a missing folder', ['--output', path.join(dir, 'no-such-folder', 'out.wav')], /^error: --output: the folder .*no-such-folder does not exist; create it first$/],
    ['--report onto a folder', ['--report', aFolder], /^error: --report: .*folder is a folder; give a file name/],
  ];
  for (const [name, args, message] of cases) it(name, () => refused(args, message));

  it('--log: missing folders are made, and the run goes on', async () => {
    const logDir = path.join(dir, 'new', 'deeper', 'history');
    const res = await talkHere(['--input', silence, '--models', MODELS, '--fast', '--quiet', '--log', logDir]);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(statSync(logDir).isDirectory());
  });
});

describe('talk: a server model is described as one', () => {
  it('says where the model runs, with no undefined and no password', async () => {
    const settings = path.join(dir, 'server.json');
    // Nothing listens there; the silent clip has no turn, so nothing asks it.
    writeFileSync(settings, JSON.stringify({ llm: { provider: 'openai-compatible', server: { baseUrl: 'http://me:hunter2@127.0.0.1:9/v1', model: 'tiny' } } }));
    const res = await talkHere(['--input', silence, '--models', MODELS, '--fast', '--settings', settings]);
    assert.equal(res.code, 0, res.stderr);
    const line = res.stdout.split('\n').find((l) => l.startsWith('models:')) ?? '';
    assert.match(line, /llm openai-compatible:tiny \(on the server at http:\/\/127\.0\.0\.1:9\/v1(; local fallback test-llm-\S+, \w+, \d+\/\d+ layers on GPU|, no local fallback)\)/);
    assert.doesNotMatch(line, /undefined|hunter2/);
  });
});

/** A silent WAV of `seconds` at 192 kHz, stereo, 64-bit float: 3 MB a second, the most talk takes. */
function silentWav(file: string, seconds: number): void {
  const bytes = seconds * RATE * 2 * 8;
  const head = Buffer.alloc(44);
  head.write('RIFFxxxxWAVEfmt ', 0, 'ascii');
  head.writeUInt32LE(36 + bytes, 4);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(3, 20);
  head.writeUInt16LE(2, 22);
  head.writeUInt32LE(RATE, 24);
  head.writeUInt32LE(RATE * 16, 28);
  head.writeUInt16LE(16, 32);
  head.writeUInt16LE(64, 34);
  head.write('data', 36, 'ascii');
  head.writeUInt32LE(bytes, 40);
  writeFileSync(file, Buffer.concat([head, Buffer.alloc(bytes)]));
}

/** Peak resident memory (MB) of a talk run on `input`, writing OUT.wav and the cleaned microphone too. */
function peakMb(input: string): Promise<number> {
  const rssFile = `${input}.rss`;
  const args = ['--import', 'tsx', '--import', path.join(ROOT, 'test/max-rss.ts'), path.join(ROOT, 'electron/cli/talk.ts')];
  args.push('--input', input, '--models', MODELS, '--fast', '--quiet', '--output', `${input}.out.wav`, '--cleaned', `${input}.clean.wav`);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: 120_000, env: { ...process.env, LVA_MAX_RSS_FILE: rssFile } }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`talk failed: ${stderr}`));
      else resolve(Number(readFileSync(rssFile, 'utf8')) / 1024);
    });
  });
}

describe('talk: a long input costs no more memory than a short one', () => {
  it('a minute of 192 kHz stereo float 64 (184 MB) peaks within 100 MB of five seconds of it', async () => {
    const short = path.join(dir, 'short.wav');
    const long = path.join(dir, 'long.wav');
    silentWav(short, 5);
    silentWav(long, 60);
    try {
      const [a, b] = [await peakMb(short), await peakMb(long)];
      // Read whole with its decoded copies, the minute peaked 220 MB above the five seconds; streamed, 30 MB.
      assert.ok(b - a < 100, `peak ${b.toFixed(0)} MB for a minute against ${a.toFixed(0)} MB for five seconds`);
      assert.equal(statSync(`${long}.clean.wav`).size, 44 + 60 * 16000 * 2, 'the cleaned microphone is as long as the input');
    } finally {
      rmSync(long, { force: true });
    }
  });
});
