/**
 * A misbehaving OpenAI-compatible HTTP server on 127.0.0.1 for tests and the hostile bench (not a
 * test file): each way a real server can fail to end, flood or confuse a client, chosen by the first
 * path segment of the address (`http://127.0.0.1:PORT/<mode>/v1`). Endless modes honour back
 * pressure and stop when the client goes away, so the server's own memory stays flat.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE_MODES = {
  /** A short, well-formed answer: the control. */
  ok: 'a short, well-formed answer',
  /** One token, then the connection stays open with nothing more. */
  'never-ends': 'one token, then nothing, forever',
  /** One token, then `: keep-alive` comments forever. */
  'keep-alive': 'one token, then keep-alive comments forever',
  /** One token, then a chunk dripped one byte at a time. */
  drip: 'one token, then one byte every 200 ms',
  /** One token, then one line that grows forever. */
  'long-line': 'one token, then a line that never ends',
  /** Text forever, fast: far past any max_tokens. */
  'endless-text': 'text forever, ignoring max_tokens',
  /** One 20 MB piece of text with no punctuation. */
  'huge-chunk': 'one 20 MB piece of text',
  /** One 512 kB piece: within a line's cap, far past an answer's. */
  'big-chunk': 'one 512 kB piece of text',
  /** A web page (its web UI's address given instead of the API's). */
  html: 'a web page instead of an event stream',
  /** A web page, labelled as an event stream. */
  'html-as-stream': 'a web page labelled text/event-stream',
  /** Chunks with an empty `choices`. */
  'empty-choices': 'chunks with no choices',
  /** A tool call instead of text. */
  'tool-calls': 'a tool call instead of an answer',
  /** An application/json body that never ends (completions and the model list). */
  'endless-json': 'a JSON body that never ends',
  /** Headers never come. */
  silent: 'no answer at all',
  /** Error bodies and non-JSON data that echo the Authorization header back. */
  'echo-key': 'errors that repeat the API key',
} as const;

export type HostileMode = keyof typeof HOSTILE_MODES;

export interface HostileServer {
  /** The address of one mode, ending in /v1. */
  url(mode: HostileMode): string;
  /** Responses still being sent (a client that gave up must have closed its connection). */
  openResponses(): number;
  /** The Authorization header of every request, in order ('' when none was sent). */
  authorizations: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunk(delta: object, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'h', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** The socket's buffer drained, or the client left; no listener outlives the wait. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes until the client leaves, waiting whenever the socket's buffer is full. */
async function forever(res: http.ServerResponse, next: () => string, pauseMs = 0): Promise<void> {
  while (!res.destroyed && !res.writableEnded) {
    if (!res.write(next())) await drained(res);
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

const HTML = (key: string) => `<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>Welcome ${key}</body></html>`;

async function complete(mode: HostileMode, res: http.ServerResponse, key: string): Promise<void> {
  const sse = () => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }));
  };
  switch (mode) {
    case 'ok':
      sse();
      for (const w of ['Hello', ' there', '.']) res.write(chunk({ content: w }));
      res.write(chunk({}, 'stop'));
      return void res.end('data: [DONE]\n\n');
    case 'never-ends':
      sse();
      res.write(chunk({ content: 'Once' }));
      return;
    case 'keep-alive':
      sse();
      res.write(chunk({ content: 'Once' }));
      return forever(res, () => ': keep-alive\n\n', 20);
    case 'drip': {
      sse();
      res.write(chunk({ content: 'Once' }));
      const text = chunk({ content: ' upon' });
      let i = 0;
      return forever(res, () => text[i++ % text.length]!, 200);
    }
    case 'long-line': {
      sse();
      res.write(chunk({ content: 'Once' }));
      res.write('data: {"choices":[{"delta":{"content":"');
      const piece = 'a'.repeat(64 * 1024);
      return forever(res, () => piece);
    }
    case 'endless-text':
      sse();
      return forever(res, () => chunk({ content: 'word ' }));
    case 'huge-chunk':
      sse();
      res.write(chunk({ content: 'x'.repeat(20 * 1024 * 1024) }));
      res.write(chunk({}, 'stop'));
      return void res.end('data: [DONE]\n\n');
    case 'big-chunk':
      sse();
      res.write(chunk({ content: 'y'.repeat(512 * 1024) }));
      res.write(chunk({}, 'stop'));
      return void res.end('data: [DONE]\n\n');
    case 'html':
      return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(HTML(key));
    case 'html-as-stream':
      return void res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end(HTML(key));
    case 'empty-choices':
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (let i = 0; i < 3; i++) res.write(`data: ${JSON.stringify({ id: 'h', choices: [] })}\n\n`);
      return void res.end('data: [DONE]\n\n');
    case 'tool-calls':
      sse();
      res.write(chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }));
      res.write(chunk({}, 'tool_calls'));
      return void res.end('data: [DONE]\n\n');
    case 'endless-json':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"choices":[{"message":{"content":"');
      return forever(res, () => 'x'.repeat(64 * 1024));
    case 'silent':
      return;
    case 'echo-key':
      sse();
      res.write(chunk({ content: 'Once' }));
      return void res.end(`data: not json, your key was ${key} and ${JSON.stringify(key)}\n\n`);
  }
}

async function models(mode: HostileMode, res: http.ServerResponse, key: string): Promise<void> {
  switch (mode) {
    case 'endless-json':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"data":[');
      return forever(res, () => '{"id":"m"},'.repeat(1000));
    case 'drip': {
      // Slow enough that a timeout restarted by each byte would never fire.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return forever(res, () => ' ', 100);
    }
    case 'html':
    case 'html-as-stream':
      return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(HTML(key));
    case 'silent':
      return;
    case 'echo-key':
      return void res.writeHead(401, { 'Content-Type': 'text/plain' }).end(`key ${key} refused; ${JSON.stringify({ key })}`);
    default:
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
  }
}

export async function startHostileServer(): Promise<HostileServer> {
  let open = 0;
  const authorizations: string[] = [];
  const server = http.createServer((req, res) => {
    open++;
    authorizations.push(req.headers.authorization ?? '');
    res.on('close', () => open--);
    const parts = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
    const mode = parts[0] as HostileMode;
    const route = parts.slice(2).join('/');
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    req.resume();
    req.on('end', () => {
      if (!(mode in HOSTILE_MODES)) return void res.writeHead(404).end();
      const work = route === 'models' ? models(mode, res, key) : route === 'chat/completions' ? complete(mode, res, key) : Promise.resolve(void res.writeHead(404).end());
      work.catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (mode) => `http://127.0.0.1:${port}/${mode}/v1`,
    openResponses: () => open,
    authorizations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
