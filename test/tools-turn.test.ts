/**
 * A spoken turn that calls a tool (issue 27): `talk` on the real engines (VAD, recognizer, voice,
 * end-of-turn model) with the language model on a local OpenAI-compatible server scripted to ask
 * for a built-in tool, then to answer with its result. The tool runs once (a prepared answer runs
 * none), its result goes back to the model, and the turn's report lists the call.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { talkMain } from '../electron/cli/talk';
import type { TurnReport } from '../electron/pipeline/report';
import { SPEECH_DIR } from './engine-fixtures';
import { alive, tempDir, until } from './helpers';
import { scriptedServer, speechOnlyModels, type ScriptedBody, type ScriptedServer } from './scripted-tools-server';

let server: ScriptedServer;
let models = '';

/** Asks for `tool` with `args` until a tool result is in the conversation; then answers with that result. */
function script(tool: string, args: Record<string, unknown>) {
  return (body: ScriptedBody): string[] => {
    const result = [...body.messages].reverse().find((m) => m.role === 'tool');
    if (result) return [JSON.stringify({ choices: [{ index: 0, delta: { content: `Done: ${String(result.content).slice(0, 60)}` }, finish_reason: 'stop' }] })];
    return [JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: tool, arguments: JSON.stringify(args) } }] }, finish_reason: 'tool_calls' }] })];
  };
}
let answer = script('add_note', { text: 'buy milk' });

before(async () => {
  server = await scriptedServer((body) => answer(body));
  models = await speechOnlyModels();
});

after(() => server.close());

async function talk(extra: string[], settings: Record<string, unknown> = {}): Promise<{ code: number; turns: TurnReport[]; dir: string }> {
  const dir = tempDir('lva-tools-turn-');
  const file = path.join(dir, 'settings.json');
  await writeFile(file, JSON.stringify({ llm: { maxTokens: 32, provider: 'openai-compatible', server: { baseUrl: server.baseUrl, model: 'm' } }, ...settings }));
  const report = path.join(dir, 'report.json');
  const code = await talkMain(['--input', path.join(SPEECH_DIR, 'weather.wav'), '--models', models, '--settings', file, '--tail', '1', '--fast', '--quiet', '--report', report, ...extra]);
  return { code, turns: (JSON.parse(readFileSync(report, 'utf8')) as { turns: TurnReport[] }).turns, dir };
}

describe('a spoken turn that calls a tool (server model, real speech engines)', () => {
  it('add_note runs once, its result goes back to the model, the answer uses it, and the report lists the call', async () => {
    const notes = path.join(tempDir('lva-tools-notes-'), 'notes');
    await mkdir(notes);
    const from = server.requests.length;
    const { code, turns } = await talk(['--notes', notes]);
    assert.equal(code, 0);
    assert.equal(turns.length, 1);
    const t = turns[0]!;
    assert.equal(t.assistantText, 'Done: Noted: buy milk');
    assert.equal(t.tools?.length, 1, JSON.stringify(t.tools));
    const use = t.tools![0]!;
    assert.deepEqual({ name: use.name, server: use.server, ok: use.ok, error: use.error }, { name: 'add_note', server: 'built-in', ok: true, error: null });
    assert.ok(use.ms >= 0 && use.startMs >= t.timings.endOfTurnMs, JSON.stringify(use));
    const stage = t.timeline?.find((s) => s.stage === 'tool');
    assert.equal(stage?.name, 'add_note', JSON.stringify(t.timeline));
    // Once: a prepared answer that wanted the tool ran none.
    const text = readFileSync(path.join(notes, 'notes.md'), 'utf8');
    assert.equal(text.match(/^- buy milk/gm)?.length, 1, text);
    const mine = server.requests.slice(from);
    assert.ok(mine.every((b) => b.tools?.some((x) => x.function.name === 'add_note')), 'the tools are offered');
    assert.ok(!mine.some((b) => b.tools?.some((x) => x.function.name === 'read_clipboard')), 'no clipboard tool without a clipboard');
    assert.equal(mine.filter((b) => b.messages.some((m) => m.role === 'tool')).length, 1, 'one request carried the result');
  });

  it('read_clipboard reads what talk is given; a tool switched off in settings is not offered', async () => {
    answer = script('read_clipboard', {});
    const { turns } = await talk(['--clipboard', 'the quarterly numbers']);
    assert.equal(turns[0]!.assistantText, 'Done: the quarterly numbers');
    // A tool that only reads runs for the answer prepared during the pause, which the turn then takes: once.
    assert.equal(turns[0]!.prepared, 'used');
    assert.deepEqual(turns[0]!.tools?.map((u) => [u.name, u.ok]), [['read_clipboard', true]]);
    const from = server.requests.length;
    answer = script('read_clipboard', {});
    // Memory off too: its tools (remember, forget, search_history) are offered whenever it is on.
    const off = await talk(['--clipboard', 'secret'], { tools: { builtIn: { clipboard: false } }, memory: { enabled: false } });
    assert.ok(server.requests.slice(from).every((b) => b.tools === undefined), 'nothing offered when no tool is on');
    // The model asked anyway: with no tools offered, that is the answer's one error.
    assert.match(off.turns[0]!.llm?.error ?? '', /asked to call a tool/);
    assert.deepEqual(off.turns[0]!.tools, []);
  });

  it('a tool that fails is recorded as not ok, and the model is told what went wrong', async () => {
    answer = script('read_notes', {});
    // notes.md is a folder: reading it fails.
    const notes = tempDir('lva-tools-bad-');
    await mkdir(path.join(notes, 'notes.md'));
    const { turns } = await talk(['--notes', notes]);
    const use = turns[0]!.tools?.[0];
    assert.equal(use?.ok, false, JSON.stringify(turns[0]!.tools));
    assert.match(turns[0]!.assistantText, /^Done: error: /);
  });

  it("an MCP server's tool (a real SDK server over stdio, from --settings): echo runs once, the report names the server, the settings keep no value", async () => {
    answer = script('echo', { text: 'from the mcp server' });
    const marks = path.join(tempDir('lva-tools-mcp-'), 'marks.txt');
    await writeFile(marks, '');
    const mcpServers = [{ name: 'test mcp', command: process.execPath, args: [path.join(import.meta.dirname, 'fixtures', 'mcp-server.mjs')], env: { MCP_TEST_MARKS: marks, API_TOKEN: 'tok-secret-4242' } }];
    const from = server.requests.length;
    const { code, turns, dir } = await talk([], { tools: { mcpServers } });
    assert.equal(code, 0);
    const t = turns[0]!;
    assert.equal(t.assistantText, 'Done: from the mcp server');
    assert.deepEqual(t.tools?.map((u) => [u.name, u.server, u.ok]), [['echo', 'test mcp', true]]);
    assert.ok(server.requests.slice(from).every((b) => b.tools?.some((x) => x.function.name === 'echo')), 'the server\'s tools are offered');
    const report = readFileSync(path.join(dir, 'report.json'), 'utf8');
    assert.ok(!report.includes('tok-secret-4242'), 'an environment value reached the report');
    assert.match(report, /"API_TOKEN": ""/);
    // talk ended the server it started.
    const pid = Number(readFileSync(marks, 'utf8').split('\n')[0]!.split(' ')[1]);
    assert.ok(pid > 0);
    await until('the server process to end with talk', () => !alive(pid), 2000);
  });
});
