/**
 * Tool calls through the OpenAI-compatible client (issue 27's engine layer): a local HTTP server
 * scripted per test streams `tool_calls` the ways servers do (OpenAI's indexed pieces, Ollama's
 * whole calls, a non-streamed body) and garbled ones; the client offers the tools, assembles the
 * calls, sends the rounds back as the providers expect, and bounds what it takes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenAiCompatibleLlm } from '../electron/engines/openai-llm';
import { TOOL_CALL_LIMITS, ToolCallAssembler, ToolCallProblem, type ToolSpec } from '../electron/engines/tool-calls';

type Reply = (res: http.ServerResponse) => void;

let server: http.Server;
let base = '';
const bodies: Record<string, unknown>[] = [];
let reply: Reply = (res) => res.end();

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      reply(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(() => new Promise<void>((r) => server.close(() => r())));

const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Streams `events` (each already `data: …`), then [DONE]. */
function streams(events: string[]): Reply {
  return (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const e of events) res.write(e);
    res.end('data: [DONE]\n\n');
  };
}

const WEATHER: ToolSpec = { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const NOTE: ToolSpec = { name: 'add_note', description: 'Adds a note.', parameters: { type: 'object', properties: { text: { type: 'string' } } } };

const llm = () => new OpenAiCompatibleLlm({ baseUrl: base, model: 'tiny', timeoutMs: 5000, stallMs: 2000 });
const ask = [{ role: 'user' as const, text: 'What is the weather in Paris, and note it down.' }];
const opts = (extra = {}) => ({ maxTokens: 64, temperature: 0, onText: () => undefined, tools: [WEATHER, NOTE], ...extra });

describe('tool calls from an OpenAI-compatible server', () => {
  it('offers the tools, and assembles calls streamed in pieces (OpenAI: by index, arguments split, two calls interleaved)', async () => {
    reply = streams([
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'add_note', arguments: '{"te' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"weather"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const r = await llm().generate(ask, opts());
    assert.equal(r.stopReason, 'toolCalls');
    assert.deepEqual(r.toolCalls, [
      { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_b', name: 'add_note', arguments: '{"text":"weather"}' },
    ]);
    const sent = bodies.at(-1)!;
    assert.equal(sent.tool_choice, 'auto');
    assert.deepEqual((sent.tools as { function: { name: string } }[]).map((t) => t.function.name), ['get_weather', 'add_note']);
  });

  it('sends the rounds already run after the user message: the model’s calls, then each result by id', async () => {
    reply = streams([chunk({ content: 'It is sunny in Paris.' }, 'stop')]);
    const calls = [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    const r = await llm().generate(ask, opts({ toolRounds: [{ calls, results: [{ id: 'call_a', content: '{"sky":"sunny"}' }] }] }));
    assert.equal(r.text, 'It is sunny in Paris.');
    assert.equal(r.toolCalls, undefined);
    const messages = bodies.at(-1)!.messages as Record<string, unknown>[];
    assert.deepEqual(messages.slice(1), [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"sunny"}' },
    ]);
  });

  it('takes whole calls without an index (Ollama), with object arguments, and a non-streamed body', async () => {
    reply = streams([chunk({ tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }, { function: { name: 'add_note', arguments: { text: 'cold' } } }] }, 'tool_calls')]);
    const r = await llm().generate(ask, opts());
    assert.deepEqual(r.toolCalls, [
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_1', name: 'add_note', arguments: '{"text":"cold"}' },
    ]);
    reply = (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 'x1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] }, finish_reason: 'tool_calls' }] }));
    };
    const whole = await llm().generate(ask, opts());
    assert.deepEqual(whole.toolCalls, [{ id: 'x1', name: 'get_weather', arguments: '{"city":"Rome"}' }]);
  });

  it('text said before the call is kept beside it ("let me check")', async () => {
    reply = streams([chunk({ content: 'Let me check. ' }), chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'get_weather', arguments: '{}' } }] }, 'tool_calls')]);
    const r = await llm().generate(ask, opts());
    assert.equal(r.text, 'Let me check. ');
    assert.equal(r.toolCalls?.[0]?.name, 'get_weather');
  });

  it('garbled calls are one clear error each, never a crash or unbounded memory', async () => {
    const cases: [string, string[], RegExp][] = [
      ['arguments not JSON', [chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'get_weather', arguments: '{"city": Par' } }] }, 'tool_calls')], /the arguments of "get_weather" are not JSON/],
      ['arguments a list', [chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'get_weather', arguments: '[1]' } }] }, 'tool_calls')], /not a JSON object/],
      ['no name', [chunk({ tool_calls: [{ index: 0, id: 'c', function: { arguments: '{}' } }] }, 'tool_calls')], /a tool call without a name/],
      ['a name no tool could have', [chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'rm -rf /', arguments: '{}' } }] }, 'tool_calls')], /invalid name/],
      ['an index far out', [chunk({ tool_calls: [{ index: 5000, function: { name: 'x', arguments: '{}' } }] })], /numbered 5000/],
      ['arguments without end', Array.from({ length: 40 }, () => chunk({ tool_calls: [{ index: 0, function: { name: '', arguments: 'x'.repeat(4096) } }] })), /went on past 64 kB/],
      ['tool_calls not a list', [chunk({ tool_calls: { name: 'x' } })], /not a list/],
    ];
    for (const [name, events, message] of cases) {
      reply = streams(events);
      await assert.rejects(llm().generate(ask, opts()), (e: Error) => {
        assert.match(e.message, message, name);
        assert.doesNotMatch(e.message, /\n\s+at /);
        return true;
      });
    }
  });

  it('without tools offered nothing changes: no tools in the request, and a call is said as before', async () => {
    reply = streams([chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'get_weather', arguments: '{}' } }] }, 'tool_calls')]);
    await assert.rejects(llm().generate(ask, { maxTokens: 64, temperature: 0, onText: () => undefined }), /the model asked to call a tool \("get_weather"\)/);
    assert.equal(bodies.at(-1)!.tools, undefined);
    assert.equal(bodies.at(-1)!.tool_choice, undefined);
  });
});

describe('an answer that runs its tools through callTool', () => {
  const toolCall = (id: string) => streams([chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, 'tool_calls')]);
  /** Each request gets the next reply. */
  const inTurn = (...replies: Reply[]) => {
    reply = (res) => (replies.shift() ?? streams([chunk({ content: 'no more' }, 'stop')]))(res);
  };

  it('runs the call once, sends its result back, and the answer goes on with it', async () => {
    inTurn(streams([chunk({ content: 'Let me check. ' }), chunk({ tool_calls: [{ index: 0, id: 'w1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, 'tool_calls')]), streams([chunk({ content: 'Sunny, 21 degrees.' }, 'stop')]));
    const calls: string[] = [];
    const spoken: string[] = [];
    const from = bodies.length;
    const r = await llm().generate(ask, opts({ onText: (d: string) => spoken.push(d), callTool: async (c: { name: string; arguments: string }) => (calls.push(`${c.name} ${c.arguments}`), '{"sky":"sunny","c":21}') }));
    assert.deepEqual(calls, ['get_weather {"city":"Paris"}']);
    assert.equal(r.text, 'Let me check. Sunny, 21 degrees.');
    assert.equal(spoken.join(''), r.text, 'every round’s text is spoken as it comes');
    assert.equal(r.stopReason, 'eogToken');
    assert.equal(bodies.length - from, 2);
    const second = bodies.at(-1)!.messages as Record<string, unknown>[];
    assert.deepEqual(second.at(-1), { role: 'tool', tool_call_id: 'w1', content: '{"sky":"sunny","c":21}' });
  });

  it('a model the server says cannot take tools (Ollama: 400 "does not support tools") answers without them, and is not offered them again', async () => {
    reply = (res) => {
      const last = bodies.at(-1)!;
      if (last.tools) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: 'registry.ollama.ai/library/tiny:latest does not support tools' } }));
      }
      streams([chunk({ content: 'Hello.' }, 'stop')])(res);
    };
    const model = llm();
    const from = bodies.length;
    const r = await model.generate(ask, opts({ callTool: async () => 'x' }));
    assert.equal(r.text, 'Hello.');
    await model.generate(ask, opts({ callTool: async () => 'x' }));
    assert.deepEqual(bodies.slice(from).map((b) => b.tools !== undefined), [true, false, false]);
  });

  it('another 400 is still the turn’s error', async () => {
    reply = (res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'max_tokens is too large' } }));
    };
    await assert.rejects(llm().generate(ask, opts({ callTool: async () => 'x' })), /HTTP 400: max_tokens is too large/);
  });

  it('at most 3 rounds: the fourth request allows no call, and a server that calls anyway gets none run', async () => {
    inTurn(toolCall('a'), toolCall('b'), toolCall('c'), toolCall('d'));
    let n = 0;
    const from = bodies.length;
    const r = await llm().generate(ask, opts({ callTool: async () => String(++n) }));
    assert.equal(n, 3);
    assert.equal(r.stopReason, 'toolRounds');
    assert.deepEqual(bodies.slice(from).map((b) => b.tool_choice), ['auto', 'auto', 'auto', 'none']);
  });

  it('an abort while a tool runs ends the answer: no further request', async () => {
    inTurn(toolCall('a'), streams([chunk({ content: 'never asked' }, 'stop')]));
    const ac = new AbortController();
    const from = bodies.length;
    const r = await llm().generate(ask, opts({ signal: ac.signal, callTool: async () => (ac.abort(), 'late') }));
    assert.equal(r.stopReason, 'abort');
    assert.equal(bodies.length - from, 1);
  });
});

describe('the tool-call assembler alone', () => {
  it('a streamed name in pieces, an id that comes late, and the limits', () => {
    const a = new ToolCallAssembler();
    a.push([{ index: 0, function: { name: 'get_' } }]);
    a.push([{ index: 0, id: 'late', function: { name: 'weather', arguments: '' } }]);
    assert.deepEqual(a.finish(), [{ id: 'late', name: 'get_weather', arguments: '{}' }]);
    const many = new ToolCallAssembler();
    for (let i = 0; i < TOOL_CALL_LIMITS.calls; i++) many.push([{ function: { name: `t${i}`, arguments: '{}' } }]);
    assert.throws(() => many.push([{ function: { name: 'one_more', arguments: '{}' } }]), ToolCallProblem);
    assert.throws(() => new ToolCallAssembler().push([{ index: 0, function: { name: 'n'.repeat(65) } }]), /longer than 64/);
  });
});
