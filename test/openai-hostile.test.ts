/**
 * The server client against a hostile OpenAI-compatible server on 127.0.0.1 (test/hostile-server.ts):
 * every mode ends within the first-text deadline plus the stall limit, with one clear message (or a
 * capped answer), bounded memory, its connection closed, and never the API key in what it says.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LLM_SERVER_ERROR } from '../electron/engines/openai-errors';
import { listModels, OpenAiCompatibleLlm, testConnection } from '../electron/engines/openai-llm';
import { SseReader, SseTooLong } from '../electron/engines/sse';
import { isUserError } from '../electron/errors';
import { startHostileServer, type HostileMode, type HostileServer } from './hostile-server';
import { within } from './helpers';

const KEY = 'sk-hostile-0123456789abcdefSECRET';
const FIRST_MS = 1500;
const STALL_MS = 400;
/** The deadline plus the stall limit, with room for a loaded 2-core machine. */
const ENDS_WITHIN_MS = FIRST_MS + STALL_MS + 3000;
const MB = 1024 * 1024;

let server: HostileServer;

before(async () => {
  server = await startHostileServer();
});

after(async () => {
  await server?.close();
});

interface Outcome {
  text: string;
  stopReason?: string;
  error?: string;
  code?: string;
  ms: number;
}

async function ask(mode: HostileMode, maxTokens = 64): Promise<Outcome> {
  const llm = new OpenAiCompatibleLlm({ baseUrl: server.url(mode), model: 'm', apiKey: KEY, timeoutMs: FIRST_MS, stallMs: STALL_MS });
  let text = '';
  const t0 = performance.now();
  try {
    const r = await within(llm.generate([{ role: 'user', text: 'Hello.' }], { maxTokens, temperature: 0, onText: (d) => (text += d) }), ENDS_WITHIN_MS, mode);
    assert.equal(r.text, text, 'what was delivered is the answer');
    return { text, stopReason: r.stopReason, ms: performance.now() - t0 };
  } catch (e) {
    assert.ok(isUserError(e), `${mode}: not a UserError: ${String(e)}`);
    assert.ok(!e.message.includes(KEY.slice(0, 8)) && !e.message.includes(KEY.slice(-8)), `${mode}: the key is in ${e.message}`);
    return { text, error: e.message, code: e.code, ms: performance.now() - t0 };
  }
}

async function closed(): Promise<void> {
  for (let i = 0; i < 100 && server.openResponses() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(server.openResponses(), 0, 'the client closed its connection');
}

describe('the server client against a hostile server', () => {
  test('a well-behaved answer (the control) is unchanged', async () => {
    const r = await ask('ok');
    assert.deepEqual([r.text, r.stopReason, r.error], ['Hello there.', 'eogToken', undefined]);
  });

  for (const mode of ['never-ends', 'keep-alive', 'drip'] as const) {
    test(`${mode}: the answer ends at the stall limit with what arrived, and says why`, async () => {
      const r = await ask(mode);
      assert.equal(r.text, 'Once');
      assert.equal(r.code, LLM_SERVER_ERROR.stream, r.error);
      assert.match(r.error!, /^The LLM server's stream broke after 4 characters: no new text for 0\.4 s/);
      if (mode !== 'never-ends') assert.match(r.error!, /it went on sending data, \d+ kB, with no text in it/, 'data arriving is not "no data"');
      await closed();
    });
  }

  test('long-line: a line that never ends is refused at its cap, not buffered', async () => {
    const rss = process.memoryUsage().rss;
    const r = await ask('long-line');
    assert.equal(r.text, 'Once');
    assert.match(r.error ?? '', /stream broke after 4 characters: it sent a line or event longer than 1024 kB/);
    assert.ok(process.memoryUsage().rss - rss < 200 * MB, 'bounded memory');
    await closed();
  });

  test('endless-text: max_tokens is enforced by the client', async () => {
    const r = await ask('endless-text', 32);
    assert.equal(r.stopReason, 'maxTokens');
    assert.equal(r.text, 'word '.repeat(32));
    await closed();
  });

  test('huge-chunk: one 20 MB piece is refused at the line cap; a 512 kB one is cut to what the answer may hold', async () => {
    const huge = await ask('huge-chunk', 64);
    assert.equal(huge.text, '');
    assert.match(huge.error ?? '', /stream broke after 0 characters: it sent a line or event longer than 1024 kB/);
    const big = await ask('big-chunk', 64);
    assert.equal(big.stopReason, 'maxTokens');
    assert.equal(big.text, 'y'.repeat(64 * 8), 'maxTokens × 8 characters at most');
    await closed();
  });

  test('a web page instead of completions says so, with the address', async () => {
    for (const mode of ['html', 'html-as-stream'] as const) {
      const r = await ask(mode);
      assert.equal(r.code, LLM_SERVER_ERROR.http, r.error);
      assert.match(r.error!, /sent a web page \(HTML\) instead of completions; check that http:\/\/127\.0\.0\.1:\d+\/html(-as-stream)?\/v1 is its OpenAI-compatible address/);
    }
    await closed();
  });

  test('no choices, or a tool call instead of text: said, not an empty answer', async () => {
    const empty = await ask('empty-choices');
    assert.match(empty.error ?? '', /its answer had no choices \(3 chunks, none with text\)/);
    const tool = await ask('tool-calls');
    assert.match(tool.error ?? '', /the model asked to call a tool \("get_weather"\) instead of answering/);
  });

  test('a JSON body that never ends is refused at its cap, in bounded memory', async () => {
    const rss = process.memoryUsage().rss;
    const r = await ask('endless-json');
    assert.match(r.error ?? '', /its answer went on past 16 MB/);
    await assert.rejects(listModels(server.url('endless-json'), KEY), (e: Error) => /went on past 8 MB/.test(e.message));
    assert.ok(process.memoryUsage().rss - rss < 300 * MB, 'bounded memory');
    await closed();
  });

  test('silent: no answer within the first-text deadline', async () => {
    const r = await ask('silent');
    assert.equal(r.code, LLM_SERVER_ERROR.unreachable);
    assert.match(r.error!, /no answer in 1\.5 s/);
    await closed();
  });

  test('a key echoed in error bodies and non-JSON data never shows', async () => {
    const r = await ask('echo-key');
    assert.match(r.error ?? '', /not JSON \("not json, your key was \*\*\* and/);
    await assert.rejects(listModels(server.url('echo-key'), KEY), (e: Error) => !e.message.includes(KEY.slice(4, 12)) && /refused the API key/.test(e.message));
  });

  test('Test connection keeps to its whole timeout while data trickles in', async () => {
    const t0 = performance.now();
    await assert.rejects(
      within(testConnection({ baseUrl: server.url('drip'), model: 'm', apiKey: KEY, timeoutMs: 800 }), 5000, 'the test'),
      (e: Error) => /no answer in 0\.8 s|not whole in 0\.8 s|no text in 0\.8 s/.test(e.message) || assert.fail(e.message),
    );
    assert.ok(performance.now() - t0 < 3000, 'one timeout for the whole test, not one per byte');
    await closed();
  });
});

describe('SseReader bounds', () => {
  test('a 20 MB line in 64 kB pieces is linear and refused at the cap', () => {
    const r = new SseReader();
    const piece = 'a'.repeat(64 * 1024);
    let pushes = 0;
    assert.throws(() => {
      r.push('data: ');
      for (let i = 0; i < 320; i++, pushes++) r.push(piece);
    }, SseTooLong);
    assert.equal(pushes, 15, 'refused as soon as the line passed 1 MB');
  });

  test('a long but allowed line in small pieces arrives whole', () => {
    const r = new SseReader(4 * MB);
    const text = 'b'.repeat(2 * MB);
    const events: string[] = [];
    events.push(...r.push('data: '));
    for (let i = 0; i < text.length; i += 1000) events.push(...r.push(text.slice(i, i + 1000)));
    events.push(...r.push('\n\n'));
    assert.deepEqual(events.map((e) => e.length), [2 * MB]);
  });
});
