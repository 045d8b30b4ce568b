/**
 * MCP servers through the official SDK (issue 27), with a real server written with the SDK
 * (test/fixtures/mcp-server.mjs) over stdio and, in-process, over streamable HTTP: tools listed,
 * bounded and named for the model, called, timed; a barge-in's abort reaches the server as
 * notifications/cancelled within 100 ms; a server that dies is reported and started again with
 * backoff; settings changes restart only what changed; close() and the app's exit end the processes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerSettings, McpStdioServer } from '../electron/settings/mcp-servers';
import { resultText } from '../electron/tools/mcp/call-result';
import { McpServers, type McpServersOptions } from '../electron/tools/mcp/mcp-servers';
import { backoffMs, DEFAULT_BACKOFF } from '../electron/tools/mcp/server-runner';
import { changesSomething } from '../electron/tools/mcp/tool-list';
import { exposedNames } from '../electron/tools/mcp/tool-names';
import { Toolbox, type ToolUse } from '../electron/tools/toolbox';
import { makeServer } from './fixtures/mcp-server.mjs';
import { alive, ROOT, tempDir, until } from './helpers';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'mcp-server.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A marks file the fixture appends to, and what it holds. */
function marksFile(): { file: string; lines: () => string[]; pids: () => number[] } {
  const file = path.join(tempDir('lva-mcp-marks-'), 'marks.txt');
  writeFileSync(file, '');
  const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { file, lines, pids: () => lines().filter((l) => l.startsWith('started ')).map((l) => Number(l.split(' ')[1])) };
}

function fixture(name: string, marks: string, args: string[] = [], env: Record<string, string> = {}): McpStdioServer {
  return { name, command: process.execPath, args: [FIXTURE, ...args], env: { MCP_TEST_MARKS: marks, ...env }, enabled: true };
}

/** A manager whose settings entries carry their own values (as talk's do); notices kept. */
function manager(extra: Partial<McpServersOptions> = {}) {
  const notices: { level: string; message: string }[] = [];
  const servers = new McpServers({
    env: async (s) => ('env' in s ? s.env : {}),
    notice: (level, message) => notices.push({ level, message }),
    changed: () => undefined,
    backoff: { firstMs: 200, maxMs: 1000 },
    timeoutMs: 15_000,
    ...extra,
  });
  return { servers, notices };
}

const opened: McpServers[] = [];
after(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

describe('MCP servers over stdio (the SDK, a real server)', () => {
  it('lists and calls the tools; read-only and destructiveHint false change nothing, the rest asks; errors and times are kept', async () => {
    const marks = marksFile();
    const { servers } = manager();
    opened.push(servers);
    process.env.LVA_NOT_FOR_SERVERS = 'the app environment';
    servers.apply([fixture('files', marks.file, [], { TOKEN: 'abc123' })]);
    delete process.env.LVA_NOT_FOR_SERVERS;
    await servers.settled();
    const [s] = servers.status();
    assert.equal(s?.state, 'ready', s?.error ?? '');
    assert.equal(s?.transport, 'stdio');
    assert.deepEqual(s?.tools.map((t) => [t.name, t.changes]), [['echo', false], ['slow', false], ['env', false], ['crash', false], ['write_file', true], ['fail', false]]);
    const tools = servers.tools();
    const run = (name: string, args: Record<string, unknown> = {}) => tools.find((t) => t.spec.name === name)!.run(args, new AbortController().signal);
    assert.equal(await run('echo', { text: 'hello there' }), 'hello there');
    assert.equal(tools[0]?.server, 'files');
    assert.deepEqual(tools[0]?.spec.parameters, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    assert.equal(await run('env', { name: 'TOKEN' }), 'set, 6 characters');
    assert.equal(await run('env', { name: 'LVA_NOT_FOR_SERVERS' }), 'unset', 'the app\'s own environment is not passed on');
    assert.equal(await run('env', { name: 'PATH' }), `set, ${process.env.PATH!.length} characters`, 'a minimal safe environment is');
    await assert.rejects(run('fail'), /^Error: the disk is full$/);
    const echo = servers.status()[0]!.tools.find((t) => t.name === 'echo')!;
    assert.ok(echo.lastOk === true && typeof echo.lastMs === 'number' && echo.lastMs >= 0, JSON.stringify(echo));
    assert.equal(servers.status()[0]!.tools.find((t) => t.name === 'fail')!.lastOk, false);
    assert.equal(servers.status()[0]!.tools.find((t) => t.name === 'slow')!.lastMs, null);
  });

  it('bounds what a server lists and names every tool for the model: safe, unique, at most 64 tools', async () => {
    const marks = marksFile();
    const { servers, notices } = manager();
    opened.push(servers);
    servers.apply([fixture('odd one', marks.file, ['--odd']), fixture('many', marks.file, ['--extra', '70'])]);
    await servers.settled();
    const [odd, many] = servers.status();
    assert.equal(many?.tools.length, 64);
    const called = new Map(odd!.tools.map((t) => [t.name, t.calledAs]));
    // Both servers have echo: each is called by its server's name too. add_note is a built-in's.
    assert.equal(called.get('echo'), 'odd_one_echo');
    assert.equal(many!.tools.find((t) => t.name === 'echo')?.calledAs, 'many_echo');
    assert.equal(called.get('get weather!'), 'get_weather_');
    assert.equal(called.get('n'.repeat(100)), 'n'.repeat(64), 'cut to 64');
    assert.equal(odd!.tools.filter((t) => t.name === 'echo').length, 1, 'the first of a repeated name is kept');
    assert.equal(odd!.tools.find((t) => t.name === 'wordy')?.description.length, 1001);
    assert.ok(!odd!.tools.some((t) => t.name === 'huge_schema'));
    const reserved = ['add_note', 'read_notes'];
    const names = servers.tools(reserved).map((t) => t.spec.name);
    assert.ok(names.includes('odd_one_add_note'), names.join(' '));
    assert.equal(new Set([...names, ...reserved]).size, names.length + reserved.length, 'every name is unique');
    for (const n of names) assert.match(n, /^[A-Za-z0-9_-]{1,64}$/);
    assert.ok(notices.some((n) => n.level === 'info' && /"odd one" offers tools the app leaves out: .*a second tool named "echo".*"huge_schema", whose input schema is 40 kB/.test(n.message)), JSON.stringify(notices));
    assert.ok(notices.some((n) => /"many" offers tools the app leaves out: every tool after the first 64/.test(n.message)));
  });
});

describe('a barge-in, a death, a bad command (stdio)', () => {
  it('an abort reaches the server as notifications/cancelled within 100 ms, through the toolbox', async () => {
    const marks = marksFile();
    const { servers } = manager();
    opened.push(servers);
    servers.apply([fixture('slowpoke', marks.file)]);
    await servers.settled();
    const toolbox = new Toolbox(() => servers.tools(), () => ({ timeoutMs: 10_000 }));
    const turn = new AbortController();
    const uses: ToolUse[] = [];
    const result = toolbox.call({ id: 'c1', name: 'slow', arguments: '{"ms": 5000}' }, turn.signal, (u) => uses.push(u));
    await sleep(400);
    const abortedAt = Date.now();
    turn.abort(new Error('barge-in'));
    assert.equal(await result, 'error: the turn was interrupted');
    assert.ok(Date.now() - abortedAt < 100, 'the toolbox gave up at once');
    const line = await until('the server to see the cancellation', () => marks.lines().find((l) => l.startsWith('cancelled ')), 2000);
    const seenAt = Number(line.split(' ')[1]);
    assert.ok(seenAt - abortedAt < 100 && seenAt >= abortedAt - 5, `the server saw it ${seenAt - abortedAt} ms after the abort`);
    assert.deepEqual([uses[0]?.name, uses[0]?.server, uses[0]?.ok], ['slow', 'slowpoke', false]);
  });

  it('a server that dies is reported and started again with backoff; its tools come back; its old process is gone', async () => {
    const marks = marksFile();
    const { servers, notices } = manager();
    opened.push(servers);
    servers.apply([fixture('fragile', marks.file)]);
    await servers.settled();
    const first = marks.pids()[0]!;
    const crash = () => servers.tools().find((t) => t.spec.name === 'crash')!.run({}, new AbortController().signal).catch((e: Error) => e.message);
    assert.match(await crash(), /Connection closed/);
    await until('the state error', () => servers.status()[0]!.state === 'error');
    assert.equal(servers.status()[0]!.error, 'it stopped: it said: crashing on purpose');
    assert.deepEqual(servers.tools(), [], 'no tool is offered while it is down');
    assert.ok(notices.some((n) => n.level === 'error' && n.message === 'The MCP server "fragile" stopped (it said: crashing on purpose); it is started again in 200 ms.'), JSON.stringify(notices));
    await until('it to be ready again', () => servers.status()[0]!.state === 'ready');
    assert.equal(servers.status()[0]!.restarts, 1);
    assert.ok(notices.some((n) => n.level === 'info' && n.message === 'The MCP server "fragile" is running again (6 tools).'));
    assert.equal(await servers.tools().find((t) => t.spec.name === 'echo')!.run({ text: 'back' }, new AbortController().signal), 'back');
    assert.ok(!alive(first), 'the first process ended');
    // Again soon after: it had not run a minute, so the wait doubles.
    await crash();
    await until('the second death', () => notices.filter((n) => n.level === 'error').length === 2);
    assert.match(notices.filter((n) => n.level === 'error')[1]!.message, /it is started again in 400 ms\.$/);
    await until('ready again', () => servers.status()[0]!.state === 'ready');
    assert.equal(marks.pids().length, 3);
  });

  it('a program that is not there: one notice, the reason in its state, tried again quietly', async () => {
    const { servers, notices } = manager();
    opened.push(servers);
    servers.apply([{ name: 'ghost', command: 'no-such-mcp-server-xyz', args: [], env: { SECRET_VALUE: 'do-not-show-me' }, enabled: true }]);
    await servers.settled();
    assert.deepEqual(servers.status()[0]!.state, 'error');
    assert.equal(servers.status()[0]!.error, 'the program "no-such-mcp-server-xyz" was not found');
    await until('two retries', () => servers.status()[0]!.restarts >= 2, 5000);
    assert.deepEqual(notices, [{ level: 'error', message: 'The MCP server "ghost" could not start: the program "no-such-mcp-server-xyz" was not found. It is tried again in 200 ms.' }]);
    assert.ok(!JSON.stringify(servers.status()).includes('do-not-show-me'));
  });

  it('a server that never answers fails after the time limit, and its process is ended', async () => {
    const marks = marksFile();
    const { servers } = manager({ timeoutMs: 800 });
    opened.push(servers);
    const script = `require('fs').appendFileSync(${JSON.stringify(marks.file)}, 'started ' + process.pid + '\\n'); setInterval(() => {}, 1000)`;
    servers.apply([{ name: 'mute', command: process.execPath, args: ['-e', script], env: {}, enabled: true }]);
    await servers.settled();
    assert.equal(servers.status()[0]!.error, 'it did not answer within 0.8 s');
    const pid = marks.pids()[0]!;
    await until('its process to end', () => !alive(pid), 3000);
    await servers.close();
  });
});

describe('settings changes and the end of the app', () => {
  it('switching a tool off restarts nothing; new arguments restart the server; off stops it; removed, it ends', async () => {
    const marks = marksFile();
    const { servers } = manager();
    opened.push(servers);
    const base = fixture('tweak', marks.file);
    servers.apply([base]);
    await servers.settled();
    servers.apply([{ ...base, disabledTools: ['echo'] }]);
    assert.equal(servers.status()[0]!.state, 'ready');
    assert.equal(servers.status()[0]!.tools.find((t) => t.name === 'echo')?.enabled, false);
    assert.equal(servers.tools().find((t) => t.spec.name === 'echo')?.enabled?.(), false);
    assert.equal(marks.pids().length, 1, 'not restarted');
    servers.apply([{ ...base, args: [...base.args, '--extra', '1'] }]);
    await servers.settled();
    assert.equal(marks.pids().length, 2);
    assert.ok(servers.status()[0]!.tools.some((t) => t.name === 'extra_0'));
    await until('the first process to end', () => !alive(marks.pids()[0]!), 3000);
    servers.apply([{ ...base, enabled: false }]);
    assert.equal(servers.status()[0]!.state, 'off');
    await until('the second process to end', () => !alive(marks.pids()[1]!), 3000);
    servers.apply([{ ...base, enabled: true }]);
    await servers.settled();
    servers.apply([]);
    assert.deepEqual(servers.status(), []);
    await until('the third process to end', () => !alive(marks.pids()[2]!), 3000);
  });

  it('close() ends every server; a process that exits without closing them ends them too', async () => {
    const marks = marksFile();
    const { servers } = manager();
    servers.apply([fixture('a', marks.file), fixture('b', marks.file)]);
    await servers.settled();
    await servers.close();
    for (const pid of marks.pids()) assert.ok(!alive(pid), `process ${pid} ended`);
    // A separate app process that starts a server and exits without closing anything.
    const other = marksFile();
    const program = `
      import { McpServers } from ${JSON.stringify(path.join(ROOT, 'electron/tools/mcp/mcp-servers.ts'))};
      const s = new McpServers({ env: async (x) => x.env, notice: () => {}, changed: () => {} });
      s.apply([${JSON.stringify(fixture('orphan', other.file))}]);
      await s.settled();
      process.exit(0);`;
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { cwd: ROOT, timeout: 30_000 });
    const pid = other.pids()[0]!;
    assert.ok(pid > 0);
    await until('the orphan to end', () => !alive(pid), 3000);
  });
});

describe('an MCP server over streamable HTTP', () => {
  /** The fixture's tools behind the SDK's HTTP transport, one session per client (as real servers keep them). */
  function httpServer(): http.Server {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    return http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', async () => {
        const body = raw ? (JSON.parse(raw) as unknown) : undefined;
        const id = req.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? sessions.get(id) : undefined;
        if (!transport && isInitializeRequest(body)) {
          const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, t) });
          await makeServer({ onCrash: () => undefined }).connect(t);
          transport = t;
        }
        if (!transport) {
          res.writeHead(400).end('no session');
          return;
        }
        await transport.handleRequest(req, res, body);
      });
    });
  }

  it('lists and calls its tools, cancels a call, and is found gone by its ping and back when it returns', async () => {
    let server = httpServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const { servers, notices } = manager({ pingMs: 200 });
    opened.push(servers);
    const web: McpServerSettings = { name: 'web', url: `http://127.0.0.1:${port}/mcp`, enabled: true };
    servers.apply([web]);
    await servers.settled();
    assert.equal(servers.status()[0]!.state, 'ready', servers.status()[0]!.error ?? '');
    assert.equal(servers.status()[0]!.transport, 'http');
    const tool = (name: string) => servers.tools().find((t) => t.spec.name === name)!;
    assert.equal(await tool('echo').run({ text: 'over http' }, new AbortController().signal), 'over http');
    const ac = new AbortController();
    const slow = tool('slow').run({ ms: 5000 }, ac.signal).then(() => 'finished', () => 'aborted');
    await sleep(200);
    const t0 = Date.now();
    ac.abort(new Error('barge-in'));
    assert.equal(await slow, 'aborted');
    assert.ok(Date.now() - t0 < 100);

    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await until('the ping to find it gone', () => servers.status()[0]!.state === 'error', 5000);
    assert.ok(notices.some((n) => n.level === 'error' && /^The MCP server "web" stopped \(it stopped answering/.test(n.message)), JSON.stringify(notices));
    server = httpServer();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    await until('it to be ready again', () => servers.status()[0]!.state === 'ready', 8000);
    assert.equal(await tool('echo').run({ text: 'again' }, new AbortController().signal), 'again');
    await servers.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
});

describe('the pure parts', () => {
  it('a result as text: text joined, other content named, structured content when there is no text; an error thrown', () => {
    assert.equal(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x', mimeType: 'image/png' }, { type: 'text', text: 'b' }] }), 'a\n[an image]\nb');
    assert.equal(resultText({ content: [{ type: 'resource', resource: { uri: 'file:///x', text: 'inside' } }] }), 'inside');
    assert.equal(resultText({ content: [], structuredContent: { temp: 21 } }), '{"temp":21}');
    assert.equal(resultText({ content: [] }), 'The tool gave no result.');
    assert.equal(resultText({ content: [{ type: 'text', text: 'x'.repeat(40_000) }] }).length, 16_000);
    assert.throws(() => resultText({ content: [], isError: true }), /^Error: the tool reported an error$/);
  });

  it('whether a tool changes something: read-only or destructiveHint false do not; no hints, or destructive, do', () => {
    assert.equal(changesSomething({ readOnlyHint: true }), false);
    assert.equal(changesSomething({ readOnlyHint: false, destructiveHint: false }), false);
    assert.equal(changesSomething(undefined), true);
    assert.equal(changesSomething({ readOnlyHint: false }), true);
    assert.equal(changesSomething({ destructiveHint: true, readOnlyHint: false }), true);
  });

  it('names: a clash left after the server name gets a number', () => {
    const names = exposedNames([{ server: 'a', tools: ['x y', 'x_y'] }, { server: 'b', tools: ['z'] }], ['z']);
    assert.deepEqual([...names.get('a')!.values()], ['a_x_y', 'a_x_y_2']);
    assert.deepEqual([...names.get('b')!.values()], ['b_z']);
  });

  it('backoff doubles from 1 s and stops at 60 s', () => {
    assert.deepEqual([0, 1, 2, 5, 6, 7, 100].map((n) => backoffMs(n, DEFAULT_BACKOFF)), [1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000]);
  });
});
