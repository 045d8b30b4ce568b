/**
 * A tool that changes something asks first (issue 27): the words of a reply to the question as a
 * pure policy on scripted timelines, and `talk` on the real speech engines with a language model on
 * a local OpenAI-compatible server scripted to ask for the built-in `open` tool. "Yes" runs it once,
 * "no" and 30 s of silence do not, and the conversation keeps the call.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWavFile, writeWavFile } from '../electron/audio/wav';
import { talkMain } from '../electron/cli/talk';
import type { TurnReport } from '../electron/pipeline/report';
import { CONFIRM_WINDOW_MS, ToolConfirmations, confirmWords, questionFor } from '../electron/pipeline/respond/confirmation';
import { tempDir } from './helpers';
import { scriptedServer, speechOnlyModels, type ScriptedBody, type ScriptedServer } from './scripted-tools-server';
import { withoutNow } from './conversation-text';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'speech');

describe('the reply to a question about a tool (pure)', () => {
  it('a yes is only yes-words ("yes", "do it", "go ahead", with please), a no only no-words; anything else is a request', () => {
    for (const t of ['Yes.', 'yes please', 'Yes, do it.', 'go ahead', 'OK, go ahead please.', 'Yeah, go for it!', 'do it']) assert.equal(confirmWords(t), 'yes', t);
    for (const t of ['No.', 'no thanks', "Don't.", 'cancel', 'No, stop.', 'never mind']) assert.equal(confirmWords(t), 'no', t);
    for (const t of ['', 'yes no', 'what time is it', 'yes open the other one', 'please', 'sure thing', 'yes '.repeat(40)]) assert.equal(confirmWords(t), 'other', t);
  });

  it('one question open at a time: the next turn answers it, the window decides it by id, silence past the window lapses it', () => {
    const c = new ToolConfirmations();
    const request = (target: string) => ({ call: { id: 'c1', name: 'open', arguments: JSON.stringify({ target }) }, server: 'built-in', action: `open ${target}` });
    const { pending, question } = c.ask(request('a.org'), 3, 1000);
    assert.equal(question, questionFor('open a.org'));
    assert.equal(question, "I'm about to open a.org. Shall I go ahead?");
    assert.equal(c.answer('yes', 3), null, 'the asking turn does not answer itself');
    assert.equal(c.expiresAtMs, 1000 + CONFIRM_WINDOW_MS);
    assert.equal(c.expire(1000 + CONFIRM_WINDOW_MS, true), null, 'not while the user is talking');
    const yes = c.answer('Yes, please.', 4);
    assert.deepEqual(yes && { words: yes.words, target: JSON.parse(yes.request.call.arguments).target, id: yes.pending.id }, { words: 'yes', target: 'a.org', id: pending.id });
    assert.equal(c.pending, null);
    assert.equal(c.answer('yes', 5), null, 'answered once');

    c.ask(request('a.org'), 5, 2000);
    const second = c.ask(request('b.org'), 6, 3000);
    assert.equal(c.decide(pending.id, true), null, 'an old id decides nothing');
    assert.equal(c.decide(second.pending.id, true)?.action, 'open b.org', 'a new question replaced the old');
    c.ask(request('c.org'), 7, 4000);
    assert.equal(c.expire(4000 + CONFIRM_WINDOW_MS - 1, false), null);
    assert.equal(c.expire(4000 + CONFIRM_WINDOW_MS, false)?.action, 'open c.org');
    assert.equal(c.answer('yes', 8), null, 'a lapsed question is not answered');
    c.ask(request('d.org'), 8, 5000);
    assert.equal(c.answer('what time is it', 9)?.words, 'other');
    assert.equal(c.pending, null, 'another request drops the question');
  });
});

let server: ScriptedServer;
let models = '';

/** Asks to open example.com until a call is in the conversation; then says what the user said last. */
function answer(body: ScriptedBody): string[] {
  const called = body.messages.some((m) => m.tool_calls?.length);
  if (!called) return [JSON.stringify({ choices: [{ index: 0, delta: { content: 'Sure.', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'open', arguments: '{"target":"example.com"}' } }] }, finish_reason: 'tool_calls' }] })];
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return [JSON.stringify({ choices: [{ index: 0, delta: { content: `You said ${withoutNow(String(last?.content))}.` }, finish_reason: 'stop' }] })];
}

before(async () => {
  server = await scriptedServer(answer);
  models = await speechOnlyModels();
});

after(() => server.close());

/** The request, `gapS` of silence, the reply (if any), 3 s of silence: one clip. */
async function clip(dir: string, gapS: number, reply: 'yes' | 'no' | null): Promise<string> {
  const parts = [await readWavFile(path.join(FIXTURES, 'open_weather.wav'))];
  if (reply) parts.push(await readWavFile(path.join(FIXTURES, `${reply}.wav`)));
  const rate = 16000;
  const pieces = [parts[0]!.channelData[0]!, new Float32Array(gapS * rate), ...(parts[1] ? [parts[1].channelData[0]!] : []), new Float32Array(3 * rate)];
  const all = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) (all.set(p, at), (at += p.length));
  const file = path.join(dir, 'input.wav');
  await writeWavFile(file, all, rate);
  return file;
}

async function talk(gapS: number, reply: 'yes' | 'no' | null): Promise<{ code: number; turns: TurnReport[]; opened: string[]; from: number }> {
  const dir = tempDir('lva-confirm-');
  const settings = path.join(dir, 'settings.json');
  await writeFile(settings, JSON.stringify({ llm: { maxTokens: 32, provider: 'openai-compatible', server: { baseUrl: server.baseUrl, model: 'm' } } }));
  const report = path.join(dir, 'report.json');
  const log = path.join(dir, 'opened.txt');
  const from = server.requests.length;
  const code = await talkMain(['--input', await clip(dir, gapS, reply), '--models', models, '--settings', settings, '--tail', '1', '--fast', '--quiet', '--report', report, '--open-log', log]);
  const opened = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { code, turns: (JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[] }).turns, opened, from };
}

describe('a tool that changes something asks first (server model, real speech engines)', () => {
  it('the answer asks; "yes" in the next turn runs the tool once and says so, and the call is in the conversation', async () => {
    const { code, turns, opened, from } = await talk(8, 'yes');
    assert.equal(code, 0);
    assert.equal(turns.length, 2, JSON.stringify(turns.map((t) => t.userText)));
    const [ask, yes] = turns as [TurnReport, TurnReport];
    assert.equal(ask.assistantText, "Sure. I'm about to open example.com. Shall I go ahead?");
    assert.deepEqual(ask.confirmation, { tool: 'open', server: 'built-in', outcome: 'asked' });
    assert.deepEqual(ask.tools, [], 'nothing ran while asking');
    assert.match(yes.userText, /^yes\b/i);
    assert.deepEqual(yes.confirmation, { tool: 'open', server: 'built-in', outcome: 'ran' });
    assert.deepEqual(yes.tools?.map((u) => [u.name, u.server, u.ok]), [['open', 'built-in', true]]);
    assert.equal(yes.assistantText, 'Done.');
    assert.equal(yes.llmUsed, false, 'the yes is not a question for the model');
    assert.deepEqual(opened, ['https://example.com/'], 'opened once');
    assert.ok(server.requests.slice(from).every((b) => b.tools?.some((t) => t.function.name === 'open')), 'open is offered');
  });

  it('"no" runs nothing and says so', async () => {
    const { turns, opened } = await talk(8, 'no');
    assert.equal(turns.length, 2);
    assert.deepEqual(turns[1]!.confirmation, { tool: 'open', server: 'built-in', outcome: 'declined' });
    assert.equal(turns[1]!.assistantText, "Okay, I won't.");
    assert.deepEqual(turns[1]!.tools, []);
    assert.deepEqual(opened, []);
  });

  it('silence past the window cancels: a later "yes" runs nothing and goes to the model, which sees the call it made', async () => {
    const { turns, opened, from } = await talk(Math.ceil(CONFIRM_WINDOW_MS / 1000) + 3, 'yes');
    assert.equal(turns.length, 2);
    assert.deepEqual(opened, []);
    const later = turns[1]!;
    assert.equal(later.confirmation ?? null, null);
    assert.equal(later.llmUsed, true);
    assert.match(later.assistantText, /^You said yes/i);
    const last = server.requests.slice(from).at(-1)!;
    const call = last.messages.find((m) => m.tool_calls?.length);
    assert.equal(call?.tool_calls?.[0]?.function.name, 'open', 'the conversation keeps the call');
    assert.match(String(last.messages.find((m) => m.role === 'tool')?.content), /asked to confirm/);
  });
});
