/**
 * A real OpenAI-compatible HTTP server for tests (not a test file): it serves the stories260K test
 * model through the repo's own local engine (node-llama-cpp) and streams its real tokens as chat
 * completion chunks, the way Ollama, llama.cpp's server or vLLM do. Fault switches make it fail the
 * next request, cut the connection mid-answer, or wait before the first token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LlamaEngine, type LlmOptions } from '../electron/engines/llm';
import type { ChatMessage, GenerateResult, LanguageModel } from '../electron/engines/llm-types';
import { pickModel } from '../native-models/resolver';
import { MODEL_ROOTS } from './engine-fixtures';

export const TEST_MODEL_OPTS: LlmOptions = {
  systemPrompt: 'You are a helpful assistant.',
  gpu: 'auto',
  gpuLayers: 'auto',
  contextSize: 1024,
  threads: 1,
};

/** How the server saw a chat completion end. */
export type Ending = 'finished' | 'client-closed' | 'broken';

export interface ServedRequest {
  method: string;
  /** Without the /v1 prefix: '/models', '/chat/completions'. */
  path: string;
  authorization: string | undefined;
  body: unknown;
  /** Settles when the connection's response is over. */
  ending: Promise<Ending>;
  /** The engine's own result, for completions that reached it. */
  generated?: Promise<GenerateResult>;
}

export interface OpenAiTestServer {
  /** Ending in /v1, as real servers document theirs. */
  baseUrl: string;
  /** The one model served (the test catalog's id). */
  model: string;
  /** The local engine behind it, to compare answers with. */
  engine: LanguageModel;
  requests: ServedRequest[];
  /** The next request (any path) is answered with this status and body, nothing else. */
  failWith(status: number, body: string | object): void;
  /** The next completion's socket is destroyed once this many characters of answer were sent. */
  breakAfter(nChars: number): void;
  /**
   * The next completion sends this many characters, then an error event (a 500, as llama.cpp's
   * server and vLLM report a failure after the stream has begun) and ends the response.
   */
  errorAfter(nChars: number): void;
  /** Completions wait this long (after their headers) before the first token; 0 turns it off. */
  delayFirstTokenMs(ms: number): void;
  /** Completions send one piece of text every `ms` (a server on a slow GPU); 0 sends them as made. */
  paceTokensMs(ms: number): void;
  close(): Promise<void>;
}

export interface OpenAiServerOptions {
  /** Requests without `Authorization: Bearer <apiKey>` get a 401 (none: no key needed). */
  apiKey?: string;
  /** Serve this engine instead of loading the test model (it is then not disposed on close). */
  engine?: LanguageModel;
}

export async function startOpenAiServer(opts: OpenAiServerOptions = {}): Promise<OpenAiTestServer> {
  const resolved = await pickModel('llm', MODEL_ROOTS);
  const model = resolved.entry.id;
  const engine = opts.engine ?? (await LlamaEngine.load(resolved, TEST_MODEL_OPTS));
  const requests: ServedRequest[] = [];
  let failure: { status: number; body: string } | null = null;
  let breakAt: number | null = null;
  let cutWith: 'break' | 'error' = 'break';
  let firstTokenDelay = 0;
  let tokenPace = 0;
  // One engine answers one request at a time, like a server with a single slot: the rest queue.
  let queue: Promise<unknown> = Promise.resolve();

  const server = http.createServer((req, res) => {
    let ended!: (e: Ending) => void;
    const served: ServedRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/v1/, ''),
      authorization: req.headers.authorization,
      body: undefined,
      ending: new Promise((r) => (ended = r)),
    };
    requests.push(served);
    let broken = false;
    res.on('close', () => ended(broken ? 'broken' : res.writableFinished ? 'finished' : 'client-closed'));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        served.body = text ? JSON.parse(text) : undefined;
      } catch {
        return json(res, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
      }
      if (failure) {
        const f = failure;
        failure = null;
        res.writeHead(f.status, { 'Content-Type': f.body.startsWith('{') ? 'application/json' : 'text/plain' }).end(f.body);
        return;
      }
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return json(res, 401, { error: { message: 'Invalid API key.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      if (served.method === 'GET' && served.path === '/models') {
        return json(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'test' }] });
      }
      if (served.method === 'POST' && served.path === '/chat/completions') {
        const body = (served.body ?? {}) as CompletionRequest;
        // Ollama's and OpenAI's wording and shape for a model it does not have.
        if (body.model !== model) {
          return json(res, 404, { error: { message: `model '${String(body.model)}' not found`, type: 'not_found_error', code: 'model_not_found' } });
        }
        const cut = breakAt === null ? null : { at: breakAt, with: cutWith };
        breakAt = null;
        const run = () => complete(res, body, cut, firstTokenDelay, served, () => (broken = true));
        const turn = queue.then(run);
        queue = turn.catch(() => {});
        return;
      }
      json(res, 404, { error: { message: `no route ${served.method} ${req.url}`, type: 'not_found_error' } });
    });
  });

  /** Streams one answer from the engine as chat.completion.chunk events (or one JSON answer). */
  async function complete(res: http.ServerResponse, body: CompletionRequest, cut: { at: number; with: 'break' | 'error' } | null, delay: number, served: ServedRequest, markBroken: () => void): Promise<void> {
    if (res.destroyed) return;
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const messages: ChatMessage[] = (body.messages ?? []).map((m) => ({ role: m.role, text: typeof m.content === 'string' ? m.content : '' }));
    const id = `chatcmpl-${requests.length}`;
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const stream = body.stream === true;
    if (stream) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.flushHeaders();
      if (delay > 0) await sleep(delay, ac.signal);
      if (ac.signal.aborted) return;
      res.write(chunk({ role: 'assistant', content: '' }, null));
    }
    let sent = 0;
    let paced = Promise.resolve();
    const pace = tokenPace;
    const generated = engine.generate(messages, {
      signal: ac.signal,
      maxTokens: body.max_tokens ?? 256,
      temperature: body.temperature ?? 0.8,
      onText: (delta) => {
        if (!stream || ac.signal.aborted) return;
        if (pace <= 0) return write(delta);
        paced = paced.then(async () => {
          await sleep(pace, ac.signal);
          if (!ac.signal.aborted) write(delta);
        });
      },
    });
    function write(delta: string): void {
      if (cut !== null && sent + delta.length >= cut.at) {
        ac.abort();
        const part = chunk({ content: delta.slice(0, cut.at - sent) }, null);
        sent = cut.at;
        if (cut.with === 'error') {
          res.write(part);
          res.end(`data: ${JSON.stringify({ error: { code: 500, message: 'the model crashed (test fault)', type: 'server_error' } })}\n\n`);
          return;
        }
        // Send exactly `cut` characters, then drop the connection once they are on the wire. The
        // pause lets the client read them first: a fetch body that errors drops what it has queued.
        markBroken();
        res.write(part, () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      sent += delta.length;
      res.write(chunk({ content: delta }, null));
    }
    served.generated = generated;
    const r = await generated;
    await paced;
    if (ac.signal.aborted || res.destroyed || res.writableEnded) return;
    const finish = r.stopReason === 'maxTokens' ? 'length' : 'stop';
    if (stream) {
      res.write(chunk({}, finish));
      res.end('data: [DONE]\n\n');
    } else {
      json(res, 200, { id, object: 'chat.completion', created: 0, model, choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: finish }] });
    }
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model,
    engine,
    requests,
    failWith: (status, body) => (failure = { status, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    breakAfter: (n) => {
      breakAt = n;
      cutWith = 'break';
    },
    errorAfter: (n) => {
      breakAt = n;
      cutWith = 'error';
    },
    delayFirstTokenMs: (ms) => (firstTokenDelay = ms),
    paceTokensMs: (ms) => (tokenPace = ms),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await queue;
      if (!opts.engine) await engine.dispose();
    },
  };
}

/** An address where nothing listens: a port that was just free. */
export async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

interface CompletionRequest {
  model?: unknown;
  messages?: { role: ChatMessage['role']; content: unknown }[];
  max_tokens?: number;
  temperature?: number;
  stream?: boolean;
}

function json(res: http.ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
