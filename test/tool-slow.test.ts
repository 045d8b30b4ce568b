/**
 * A slow tool in a spoken turn (issue 27), in process on the real speech engines with the language
 * model on a scripted OpenAI-compatible server and the tool on a real MCP server (the SDK, over
 * stdio): past the turn budget the holding phrase plays while the tool runs, and a barge-in during
 * a 5 s call aborts it, the server seeing the cancellation within 100 ms.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import type { PipelineEvent } from '../electron/pipeline/events';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { McpServers } from '../electron/tools/mcp/mcp-servers';
import { Toolbox } from '../electron/tools/toolbox';
import { loadClip16k } from './engine-fixtures';
import { tempDir } from './helpers';
import { talkInProcess } from './pipeline-run';
import { scriptedServer, speechOnlyModels, type ScriptedServer } from './scripted-tools-server';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'mcp-server.mjs');
const RATE = 16000;

/** What the model says before its call, and how long the call waits (set per test). */
let before_ = '';
let slowMs = 0;

let server: ScriptedServer;
let engines: LoadedEngines;
let servers: McpServers;
let marks = '';
let settings: Settings;

before(async () => {
  server = await scriptedServer((body) => {
    const result = body.messages.find((m) => m.role === 'tool');
    if (result) return [JSON.stringify({ choices: [{ index: 0, delta: { content: `The tool said ${String(result.content).slice(0, 40)}.` }, finish_reason: 'stop' }] })];
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'slow', arguments: JSON.stringify({ ms: slowMs }) } };
    return [JSON.stringify({ choices: [{ index: 0, delta: { ...(before_ ? { content: before_ } : {}), tool_calls: [call] }, finish_reason: 'tool_calls' }] })];
  });
  settings = mergeSettings(DEFAULT_SETTINGS, {
    turnBudgetMs: 1000,
    // The answer is not prepared during the pause: the committed turn makes the one call.
    prepareAnswers: false,
    llm: { maxTokens: 32, provider: 'openai-compatible', server: { baseUrl: server.baseUrl, model: 'm' } },
  });
  engines = await loadEngines(() => settings, [await speechOnlyModels()]);
  marks = path.join(tempDir('lva-slow-tool-'), 'marks.txt');
  writeFileSync(marks, '');
  servers = new McpServers({ env: async (s) => ('env' in s ? s.env : {}), notice: () => undefined, changed: () => undefined, timeoutMs: 15_000 });
  servers.apply([{ name: 'lab', command: process.execPath, args: [FIXTURE], env: { MCP_TEST_MARKS: marks }, enabled: true }]);
  await servers.settled();
  assert.ok(servers.tools().some((t) => t.spec.name === 'slow'), 'the server is ready');
});

after(async () => {
  await servers?.close();
  await engines?.dispose();
  await server?.close();
});

/** Clips joined with silence between them (seconds), and 6 s of silence after. */
async function clipOf(parts: (string | number)[]): Promise<Float32Array> {
  const pieces: Float32Array[] = [];
  for (const p of parts) pieces.push(typeof p === 'number' ? new Float32Array(Math.round(p * RATE)) : await loadClip16k(p));
  pieces.push(new Float32Array(6 * RATE));
  const all = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) (all.set(p, at), (at += p.length));
  return all;
}

function run(samples: Float32Array) {
  const toolbox = new Toolbox(() => servers.tools(), () => ({ timeoutMs: 10_000 }));
  const wall: { event: PipelineEvent; at: number }[] = [];
  return { wall, result: talkInProcess({ ...engines, tools: toolbox }, samples, settings, { onEvent: (event) => wall.push({ event, at: Date.now() }) }) };
}

describe('a slow tool in a spoken turn (real speech engines, a real MCP server)', () => {
  it('past the turn budget, the holding phrase plays while the tool runs; then the answer uses its result', async () => {
    before_ = '';
    slowMs = 2500;
    const { result } = run(await clipOf(['weather', 4]));
    const { reports, events } = await result;
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.equal(r.holdingPhrase, true, 'a holding phrase played');
    const phrase = events.find((e) => e.type === 'holding-phrase');
    assert.ok(phrase && phrase.t >= r.timings.endOfTurnMs + settings.turnBudgetMs - 50, JSON.stringify(phrase));
    assert.deepEqual(r.tools?.map((u) => [u.name, u.server, u.ok]), [['slow', 'lab', true]]);
    assert.ok(r.tools![0]!.ms >= slowMs - 50, `the call took ${r.tools![0]!.ms} ms`);
    assert.match(r.assistantText, /^The tool said /);
    // The phrase was said before the tool had answered.
    assert.ok(phrase!.t < r.tools![0]!.startMs + r.tools![0]!.ms, 'the phrase came while the tool ran');
  });

  it('a barge-in during a 5 s call aborts it: the MCP server sees the cancellation within 100 ms', async (t) => {
    before_ = 'Let me look that up for you, it can take a little while to come back.';
    slowMs = 5000;
    const from = readFileSync(marks, 'utf8').length;
    const { wall, result } = run(await clipOf(['weather', 1.2, 'interrupt']));
    const { reports } = await result;
    const interrupted = wall.find((w) => w.event.type === 'interrupted');
    assert.ok(interrupted, 'the answer was interrupted');
    const r = reports.find((x) => x.index === (interrupted.event as { turn: number }).turn)!;
    assert.deepEqual(r.tools?.map((u) => [u.name, u.ok, u.error]), [['slow', false, 'the turn was interrupted']]);
    const cancelled = readFileSync(marks, 'utf8').slice(from).split('\n').find((l) => l.startsWith('cancelled '));
    assert.ok(cancelled, 'the server saw notifications/cancelled');
    const lag = Number(cancelled.split(' ')[1]) - interrupted.at;
    t.diagnostic(`the server saw the cancellation ${lag} ms after the interruption`);
    assert.ok(lag <= 100, `the server saw the cancellation ${lag} ms after the barge-in`);
  });
});
