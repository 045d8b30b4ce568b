/**
 * An MCP server in the app's controller (issue 27), on the real speech engines with the language
 * model on a scripted OpenAI-compatible server that asks for the MCP server's `echo`: the server is
 * started from settings.json (its environment value moved to the secret store), its tools are in the
 * status beside the built-ins, a spoken turn calls it, and killing it mid-session gives a notice and
 * a restart while the app goes on answering; dispose() ends its process.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { AppEvent, McpServerStatus } from '../electron/ipc-contract';
import type { TurnReport } from '../electron/pipeline/report';
import { loadClip16k } from './engine-fixtures';
import { alive, ROOT, tempDir, until } from './helpers';
import { scriptedServer, speechOnlyModels, type ScriptedBody, type ScriptedServer } from './scripted-tools-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECRET = 'mcp-env-secret-9731';

/** Asks for echo until a tool result is in the conversation, then answers with it. */
function answer(body: ScriptedBody): string[] {
  const last = body.messages.at(-1);
  if (last?.role === 'tool') return [JSON.stringify({ choices: [{ index: 0, delta: { content: `Echoed: ${String(last.content).slice(0, 40)}` }, finish_reason: 'stop' }] })];
  const call = { index: 0, id: `call_${body.messages.length}`, type: 'function', function: { name: 'echo', arguments: '{"text": "hello from the app"}' } };
  return [JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: 'tool_calls' }] })];
}

describe('an MCP server in the app', () => {
  let llm: ScriptedServer;
  let controller: AssistantController;
  const events: AppEvent[] = [];
  const dir = tempDir('lva-mcp-app-');
  const marks = path.join(dir, 'marks.txt');

  before(async () => {
    llm = await scriptedServer(answer);
    const models = await speechOnlyModels();
    writeFileSync(marks, '');
    const settings = {
      llm: { maxTokens: 32, provider: 'openai-compatible', server: { baseUrl: llm.baseUrl, model: 'm' } },
      endpointing: { turnModel: false },
      tools: { mcpServers: [{ name: 'echoes', command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'mcp-server.mjs')], env: { MCP_TEST_MARKS: marks, TOKEN: SECRET } }] },
    };
    writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
    controller = new AssistantController({ settingsFile: path.join(dir, 'settings.json'), modelRoots: () => [models], downloadRoot: path.join(dir, 'downloads'), audioSink: () => null });
    controller.on((e) => events.push(e));
    await controller.start();
  });
  after(async () => {
    await controller?.dispose();
    await llm?.close();
  });

  const server = (): McpServerStatus | undefined => controller.snapshot().status.tools.servers[0];
  const turns = () => events.flatMap((e) => (e.type === 'pipeline' && e.event.type === 'turn' ? [e.event.report as TurnReport] : []));
  const pids = () => readFileSync(marks, 'utf8').split('\n').filter((l) => l.startsWith('started ')).map((l) => Number(l.split(' ')[1]));

  /** The weather clip as a microphone sends it (20 ms frames in real time), then a second of silence. */
  async function speak(): Promise<void> {
    const clip = await loadClip16k('weather');
    const total = clip.length + 16000;
    const t0 = performance.now();
    for (let i = 0; i < total; i += 320) {
      const frame = new Float32Array(320);
      if (i < clip.length) frame.set(clip.subarray(i, Math.min(i + 320, clip.length)));
      controller.pushAudio(frame);
      await sleep(Math.max(0, t0 + ((i + 320) / 16000) * 1000 - performance.now()));
    }
  }

  it('starts the server from settings: ready, its tools beside the built-ins, its value out of settings.json', async () => {
    assert.equal(controller.snapshot().status.phase, 'ready', controller.snapshot().status.error ?? '');
    await until('the MCP server to be ready', () => server()?.state === 'ready', 30_000);
    const s = server()!;
    assert.deepEqual([s.name, s.transport, s.enabled, s.error, s.restarts], ['echoes', 'stdio', true, null, 0]);
    assert.deepEqual(s.tools.map((t) => t.name), ['echo', 'slow', 'env', 'crash', 'write_file', 'fail']);
    assert.deepEqual(controller.snapshot().status.tools.builtIn.map((t) => [t.name, t.setting, t.enabled]), [['add_note', 'notes', true], ['read_notes', 'notes', true]]);
    assert.ok(!readFileSync(path.join(dir, 'settings.json'), 'utf8').includes(SECRET));
  });

  it('a spoken turn calls its echo: the report names the server, the status times the call', async () => {
    await speak();
    const t = await until('a turn', () => turns()[0], 30_000);
    assert.deepEqual(t.tools?.map((u) => [u.name, u.server, u.ok]), [['echo', 'echoes', true]]);
    assert.equal(t.assistantText, 'Echoed: hello from the app');
    const echo = server()!.tools.find((x) => x.name === 'echo')!;
    assert.ok(echo.lastOk === true && echo.lastMs !== null, JSON.stringify(echo));
  });

  it('killed mid-session, it is reported and started again, and the app goes on answering with it', async () => {
    const first = pids()[0]!;
    process.kill(first, 'SIGKILL');
    const notice = await until('a notice', () => events.find((e) => e.type === 'notice' && /MCP server "echoes" stopped/.test(e.message)));
    assert.ok(notice.type === 'notice' && notice.level === 'error' && /it is started again in 1 s\.$/.test(notice.message), JSON.stringify(notice));
    await until('the restart', () => server()?.state === 'ready' && server()!.restarts === 1, 10_000);
    assert.equal(pids().length, 2);
    await speak();
    const t = await until('a second turn', () => turns()[1], 30_000);
    assert.deepEqual(t.tools?.map((u) => [u.name, u.server, u.ok]), [['echo', 'echoes', true]]);
    assert.ok(!JSON.stringify([controller.snapshot(), events]).includes(SECRET), 'the value never reached the window');
    const logs = await readdir(path.join(dir, 'history'));
    assert.ok(logs.length > 0, 'the turns were logged');
    for (const f of logs) assert.ok(!readFileSync(path.join(dir, 'history', f), 'utf8').includes(SECRET), `the value is in the log ${f}`);
  });

  it('dispose() ends its process', async () => {
    const pid = pids().at(-1)!;
    await controller.dispose();
    await until('the process to end', () => !alive(pid), 3000);
  });
});
