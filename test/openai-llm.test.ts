/**
 * OpenAiCompatibleLlm against a real OpenAI-compatible server (test/openai-server.ts) serving the
 * stories260K model through the local engine: streaming, the same answer as the local engine,
 * abort, every failure's one message, the model list and the connection test. The API key must
 * never show in an error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../electron/engines/llm-types';
import { LLM_SERVER_ERROR } from '../electron/engines/openai-errors';
import { listModels, OpenAiCompatibleLlm, testConnection } from '../electron/engines/openai-llm';
import { SseReader } from '../electron/engines/sse';
import { isUserError, type UserError } from '../electron/errors';
import { closedPortUrl, startOpenAiServer, TEST_MODEL_OPTS, type OpenAiTestServer, type ServedRequest } from './openai-server';
import { within } from './helpers';

const KEY = 'sk-test-0123456789-SECRET';
/** Generous for a shared 2-core machine; the local engine's own limit is 100 ms. */
const ABORT_LIMIT_MS = 250;

let server: OpenAiTestServer;
let llm: OpenAiCompatibleLlm;
/** Every error message seen, checked for the key at the end. */
const messages: string[] = [];

const ask = (text: string): ChatMessage[] => [
  { role: 'system', text: TEST_MODEL_OPTS.systemPrompt },
  { role: 'user', text },
];

async function rejection(p: Promise<unknown>, code: string): Promise<UserError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isUserError(e), `not a UserError: ${String(e)}`);
    messages.push(e.message);
    assert.equal(e.code, code, e.message);
    assert.ok(!e.message.includes(KEY), `the key is in: ${e.message}`);
    return e;
  }
  assert.fail(`expected an error with code ${code}`);
}

function lastCompletion(): ServedRequest {
  const r = server.requests.filter((q) => q.path === '/chat/completions').at(-1);
  assert.ok(r, 'the server saw no completion');
  return r;
}

before(async () => {
  server = await startOpenAiServer({ apiKey: KEY });
  llm = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: server.model, apiKey: KEY });
});

after(async () => {
  await server?.close();
});

describe('OpenAiCompatibleLlm against a real server (stories260K)', () => {
  test('streams the answer in several deltas, the same answer as the local engine', async () => {
    const deltas: string[] = [];
    const r = await llm.generate(ask('Tell me a story about a dragon.'), { maxTokens: 48, temperature: 0, onText: (d) => deltas.push(d) });
    assert.ok(deltas.length > 1, `${deltas.length} delta(s)`);
    assert.equal(deltas.join(''), r.text);
    assert.ok(['maxTokens', 'eogToken'].includes(r.stopReason), r.stopReason);
    const local = await server.engine.generate(ask('Tell me a story about a dragon.'), { maxTokens: 48, temperature: 0, onText: () => {} });
    assert.equal(r.text, local.text);
    assert.equal(r.stopReason, local.stopReason);
    assert.equal(lastCompletion().authorization, `Bearer ${KEY}`, 'the key goes in the Authorization header');
    assert.equal(await within(lastCompletion().ending, 2000, 'the response end'), 'finished');
  });

  test('abort mid-stream returns at once with "abort", and the server sees the connection closed', async (t) => {
    const ac = new AbortController();
    const delivered: string[] = [];
    let abortedAt = 0;
    let late = 0;
    const r = await llm.generate(ask('Tell me a long story about a brave knight.'), {
      signal: ac.signal,
      maxTokens: 400,
      temperature: 0.8,
      onText: (d) => {
        if (abortedAt) late++;
        delivered.push(d);
        if (delivered.length === 3) {
          abortedAt = performance.now();
          ac.abort();
        }
      },
    });
    const ms = performance.now() - abortedAt;
    t.diagnostic(`resolved ${ms.toFixed(1)} ms after abort()`);
    assert.ok(abortedAt > 0, `the answer ended (${r.stopReason}) before its third delta`);
    assert.equal(r.stopReason, 'abort');
    assert.ok(ms < ABORT_LIMIT_MS, `resolved ${ms.toFixed(1)} ms after abort()`);
    assert.equal(late, 0, 'no delta after abort()');
    assert.equal(r.text, delivered.join(''));
    const req = lastCompletion();
    assert.equal(await within(req.ending, 2000, 'the server noticing'), 'client-closed');
    assert.equal((await within(req.generated!, 2000, 'the engine stopping')).stopReason, 'abort', 'the server stopped generating');
  });

  test('abort before the first token (a slow server) returns at once, with nothing delivered', async () => {
    server.delayFirstTokenMs(5000);
    try {
      const ac = new AbortController();
      const chunks: string[] = [];
      const p = llm.generate(ask('Tell me a story.'), { signal: ac.signal, maxTokens: 32, temperature: 0, onText: (d) => chunks.push(d) });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      ac.abort();
      const r = await p;
      assert.ok(performance.now() - t0 < ABORT_LIMIT_MS);
      assert.deepEqual(r, { text: '', stopReason: 'abort' });
      assert.deepEqual(chunks, []);
      assert.equal(await within(lastCompletion().ending, 2000, 'the server noticing'), 'client-closed');
    } finally {
      server.delayFirstTokenMs(0);
    }
  });

  test('an already-aborted signal sends nothing', async () => {
    const before = server.requests.length;
    const r = await llm.generate(ask('Hello.'), { signal: AbortSignal.abort(), maxTokens: 8, temperature: 0, onText: () => assert.fail('no text') });
    assert.deepEqual(r, { text: '', stopReason: 'abort' });
    assert.equal(server.requests.length, before);
  });

  test('server down: the unreachable message', async () => {
    const baseUrl = await closedPortUrl();
    const down = new OpenAiCompatibleLlm({ baseUrl, model: server.model, apiKey: KEY });
    const e = await rejection(down.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.unreachable);
    assert.match(e.message, /^Cannot reach the LLM server at http:\/\/127\.0\.0\.1:\d+\/v1: connection refused \(ECONNREFUSED\)\. Is it running\?$/);
    await rejection(listModels(baseUrl, KEY), LLM_SERVER_ERROR.unreachable);
    // A password in the address is not repeated either.
    const withUser = baseUrl.replace('http://', 'http://me:hunter2@');
    const e2 = await rejection(listModels(withUser), LLM_SERVER_ERROR.unreachable);
    assert.ok(!e2.message.includes('hunter2') && e2.message.includes('http://127.0.0.1:'), e2.message);
  });

  test('401: the key is refused (and never repeated, even when the server echoes it)', async () => {
    const wrong = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: server.model, apiKey: 'sk-wrong' });
    const e = await rejection(wrong.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.auth);
    assert.match(e.message, /^The LLM server refused the API key \(401\): Invalid API key\./);
    const none = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: server.model });
    assert.match((await rejection(none.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.auth)).message, /wants an API key, and none is set \(401\)/);
    server.failWith(401, { error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error' } });
    const echoed = await rejection(llm.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.auth);
    assert.match(echoed.message, /Incorrect API key provided: \*\*\*/);
    server.failWith(403, 'Forbidden');
    await rejection(listModels(server.baseUrl, KEY), LLM_SERVER_ERROR.auth);
  });

  test('a key echoed by the server never shows, not cut, not escaped, not with its whitespace collapsed', async () => {
    // As the hostile tester found: an 81-character message, then a 164-character key; the message was cut at 200.
    const long = `sk-proj-${'Ab3xY9'.repeat(26)}`;
    assert.equal(long.length, 164);
    const said = 'Incorrect API key provided. You can find your API key at the usual place, thanks:';
    const cases: { key: string; body: string | object; why: string }[] = [
      { key: long, body: { error: { message: `${said} ${long}` } }, why: 'cut at 200 characters mid-key' },
      { key: long, body: `${said} ${long} and more`, why: 'a plain-text body' },
      { key: 'sk-with\ttab-and  two-spaces-0123456789', body: `Bad key: sk-with\ttab-and  two-spaces-0123456789`, why: 'whitespace inside the key' },
      { key: 'sk-"quoted"\\slash-0123456789', body: `<html>key ${JSON.stringify('sk-"quoted"\\slash-0123456789')} refused</html>`, why: 'JSON-escaped in a non-JSON body' },
    ];
    for (const c of cases) {
      server.failWith(401, c.body);
      const client = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: server.model, apiKey: c.key });
      const e = await rejection(client.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.auth);
      for (let i = 0; i + 8 <= c.key.length; i++) assert.ok(!e.message.includes(c.key.slice(i, i + 8)), `${c.why}: "${c.key.slice(i, i + 8)}" in ${e.message}`);
      assert.match(e.message, /^The LLM server refused the API key \(401\)/, c.why);
    }
  });

  test('404: an unknown model, with what the server said', async () => {
    const other = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: 'no-such-model', apiKey: KEY });
    const e = await rejection(other.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.model);
    assert.match(e.message, /^The LLM server has no model 'no-such-model' \(404\): model 'no-such-model' not found\./);
  });

  test('429: busy or rate-limited', async () => {
    server.failWith(429, { error: { message: 'Rate limit reached, retry in 20s', type: 'rate_limit_error' } });
    const e = await rejection(llm.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.busy);
    assert.match(e.message, /^The LLM server is busy or rate-limited \(429\): Rate limit reached, retry in 20s\./);
  });

  test('other HTTP errors: the status and the start of the body', async () => {
    server.failWith(500, `upstream exploded\n${'x'.repeat(1000)}`);
    const e = await rejection(llm.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.http);
    assert.match(e.message, /answered \/chat\/completions with HTTP 500: upstream exploded x+…\.$/);
    assert.ok(e.message.length < 400, 'an excerpt, not the whole body');
  });

  test('a stream that breaks mid-answer: the broken-stream message, after what arrived was delivered', async () => {
    server.breakAfter(20);
    const delivered: string[] = [];
    const e = await rejection(
      llm.generate(ask('Tell me a story about a dragon.'), { maxTokens: 64, temperature: 0, onText: (d) => delivered.push(d) }),
      LLM_SERVER_ERROR.stream,
    );
    assert.match(e.message, /^The LLM server's stream broke after 20 characters: /);
    assert.equal(delivered.join('').length, 20);
    assert.equal(await within(lastCompletion().ending, 2000, 'the server'), 'broken');
  });

  test('a server that stops sending: the broken-stream message once the timeout passes', async () => {
    server.delayFirstTokenMs(3000);
    try {
      const impatient = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, model: server.model, apiKey: KEY, timeoutMs: 200 });
      const e = await rejection(impatient.generate(ask('Hello.'), { maxTokens: 8, temperature: 0, onText: () => {} }), LLM_SERVER_ERROR.stream);
      assert.equal(e.message, "The LLM server's stream broke after 0 characters: no text in 0.2 s.");
      assert.equal(await within(lastCompletion().ending, 2000, 'the server noticing'), 'client-closed');
    } finally {
      server.delayFirstTokenMs(0);
    }
  });

  test('listModels returns the served model; testConnection times a one-token answer', async () => {
    assert.deepEqual(await listModels(server.baseUrl, KEY), [server.model]);
    server.delayFirstTokenMs(150);
    try {
      const r = await testConnection({ baseUrl: `${server.baseUrl}/`, model: server.model, apiKey: KEY });
      assert.deepEqual(r.models, [server.model]);
      assert.ok(r.firstTokenMs >= 150 && r.firstTokenMs < 5000, `firstTokenMs ${r.firstTokenMs}`);
    } finally {
      server.delayFirstTokenMs(0);
    }
  });

  test('info and the token estimate', () => {
    assert.equal(llm.info.id, `openai-compatible:${server.model}`);
    assert.equal(llm.info.backend, 'server');
    assert.equal(llm.info.contextSize, 4096);
    assert.equal(llm.countTokens('abcd'.repeat(10)), 10);
    assert.equal(llm.countTokens(''), 0);
    assert.throws(() => new OpenAiCompatibleLlm({ baseUrl: 'localhost:11434/v1', model: 'm' }), (e: unknown) => isUserError(e) && e.code === LLM_SERVER_ERROR.address);
  });

  test('no error message carried the API key', (t) => {
    assert.ok(messages.length >= 8, `${messages.length} messages`);
    for (const m of messages) {
      t.diagnostic(m);
      assert.ok(!m.includes(KEY), m);
    }
  });
});

describe('SseReader', () => {
  test('events split anywhere across chunks, CRLF split in two, comments and multi-line data', () => {
    const stream = ': keep-alive\r\ndata: {"a":1}\r\n\r\ndata:x\ndata: y\n\nevent: e\ndata: [DONE]';
    for (let cut = 0; cut <= stream.length; cut++) {
      const r = new SseReader();
      const events = [...r.push(stream.slice(0, cut)), ...r.push(stream.slice(cut)), ...r.end()];
      assert.deepEqual(events, ['{"a":1}', 'x\ny', '[DONE]'], `cut at ${cut}`);
    }
  });
});
