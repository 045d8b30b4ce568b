/**
 * Whole turns against a hostile OpenAI-compatible server (test/hostile-server.ts): `talk` on the real
 * engines asks each misbehaving mode one question. Every turn must end, soon after the server's
 * deadlines (4 × turnBudgetMs to the first text with no local model, then the stall limit), with its
 * answer capped or a message said; memory stays bounded; and the API key is nowhere in what it
 * printed, the report or the conversation history. `talk --fast` skips only idle waiting (the clip,
 * the tail, the message playing): the server's deadlines still pass on the wall clock.
 *
 * The runs are the command's own code in this process (talkHere), one after another, so each one's
 * memory is what the process gained while it ran; the printing and exit status of the command in
 * its own process are tested in talk.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MODELS_DIR, SPEECH_DIR } from './engine-fixtures';
import { tempDir } from './helpers';
import type { HostileMode } from './hostile-server';
import { startHostileServerApart, type HostileServerApart } from './hostile-server-apart';
import { talkHere } from './talk-here';

const KEY = 'sk-Zq7RtW9vKp0123456789abcdefPLMN';
const TURN_BUDGET_MS = 500;
const STALL_MS = 1000;
/** The clip (2.1 s), the tail, the server's deadlines (4 budgets, then the stall), the spoken line, and a loaded machine's slack. */
const RUN_LIMIT_MS = 60_000;
/**
 * What the process may gain while one run loads its engines and talks to the server, once a first
 * run has paid for what is loaded once (the native libraries, compiled code): 30-50 MB for most
 * modes here (the server runs in a process of its own).
 */
const MAX_GROWTH_MB = 200;

/** What each mode must end with: a capped answer, or the message for what the server did. */
const EXPECT: Partial<Record<HostileMode, RegExp>> = {
  'never-ends': /no new text for 1 s/,
  'keep-alive': /no new text for 1 s \(it went on sending data/,
  drip: /no new text for 1 s \(it went on sending data/,
  'long-line': /a line or event longer than 1024 kB/,
  'huge-chunk': /a line or event longer than 1024 kB/,
  html: /sent a web page \(HTML\) instead of completions/,
  'empty-choices': /its answer had no choices/,
  'tool-calls': /the model asked to call a tool \("get_weather"\)/,
  'endless-json': /its answer went on past 16 MB/,
  silent: /sent no answer within 2 s/,
  'echo-key': /not JSON \("not json, your key was \*\*\*/,
};

let server: HostileServerApart;
let models: string;

before(async () => {
  server = await startHostileServerApart();
  // The stand-in models without a language model: the server answers alone, with no local fallback to hide its faults.
  models = tempDir('lva-hostile-models-');
  for (const kind of ['vad', 'stt', 'tts-synthetic', 'turn']) await symlink(path.join(MODELS_DIR, kind), path.join(models, kind));
  await talk('html');
});

after(async () => {
  await server?.close();
});

interface Run {
  code: number;
  out: string;
  ms: number;
  growthMb: number;
  report: string;
  history: string;
}

async function talk(mode: HostileMode, maxTokens = 32): Promise<Run> {
  const dir = tempDir(`lva-hostile-${mode}-`);
  const settings = path.join(dir, 'settings.json');
  // No tool offered (memory off takes remember, forget and search_history away): 'tool-calls' is a server calling one all the same.
  await writeFile(settings, JSON.stringify({ turnBudgetMs: TURN_BUDGET_MS, memory: { enabled: false }, llm: { maxTokens, provider: 'openai-compatible', server: { baseUrl: server.url(mode), model: 'm', apiKey: KEY, stallMs: STALL_MS } } }));
  const history = path.join(dir, 'history');
  await mkdir(history);
  const args = ['--input', path.join(SPEECH_DIR, 'weather.wav'), '--models', models, '--settings', settings, '--tail', '1', '--fast', '--report', path.join(dir, 'report.json'), '--log', history];
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  const { code, stdout, stderr } = await talkHere(args).finally(() => clearInterval(sampler));
  const ms = performance.now() - t0;
  const report = await readFile(path.join(dir, 'report.json'), 'utf8').catch(() => '');
  const logs = await readdir(history, { recursive: true });
  const texts = await Promise.all(logs.map((f) => readFile(path.join(history, f), 'utf8').catch(() => '')));
  return { code, out: `${stdout}\n${stderr}`, ms, growthMb: (Math.max(peak, process.memoryUsage().rss) - before) / 2 ** 20, report, history: texts.join('\n') };
}

function keyIn(text: string): boolean {
  for (let i = 0; i + 8 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 8))) return true;
  return false;
}

describe('whole turns against a hostile server', { timeout: 12 * 2 * RUN_LIMIT_MS }, () => {
  for (const [mode, expected] of Object.entries(EXPECT) as [HostileMode, RegExp][]) {
    it(`${mode}: the turn ends with the message, in bounded memory, and the key is nowhere`, async (t) => {
      const r = await talk(mode);
      t.diagnostic(`${mode}: ${Math.round(r.ms)} ms, gained ${Math.round(r.growthMb)} MB`);
      assert.equal(r.code, 0, r.out.slice(-3000));
      assert.ok(r.ms < RUN_LIMIT_MS, `${Math.round(r.ms)} ms`);
      assert.ok(r.growthMb < MAX_GROWTH_MB, `gained ${Math.round(r.growthMb)} MB`);
      const turns = (JSON.parse(r.report) as { turns: { llm: { error: string | null } | null }[] }).turns;
      assert.equal(turns.length, 1, r.out.slice(-3000));
      assert.match(turns[0]!.llm?.error ?? '', expected);
      assert.match(r.out, /! Said: "/, 'the trouble was said aloud');
      for (const [where, text] of [['output', r.out], ['report', r.report], ['history', r.history]] as const) assert.ok(!keyIn(text), `the key is in the ${where}`);
    });
  }

  it('endless-text: the answer stops at llm.maxTokens on the client, and the turn ends', async () => {
    const r = await talk('endless-text', 16);
    assert.equal(r.code, 0, r.out.slice(-3000));
    const turns = (JSON.parse(r.report) as { turns: { assistantText: string; llm: { error: string | null } | null }[] }).turns;
    assert.equal(turns[0]!.assistantText.trim(), Array(16).fill('word').join(' '));
    assert.equal(turns[0]!.llm?.error, null);
    assert.ok(r.growthMb < MAX_GROWTH_MB, `gained ${Math.round(r.growthMb)} MB`);
  });
});
