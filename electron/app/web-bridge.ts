/**
 * The development and test transport: serves the built renderer on 127.0.0.1 and carries the same
 * contract as Electron IPC over one WebSocket. Only pages served from this server's own origin may
 * connect (a WebSocket is not bound by the same-origin policy, so any website could otherwise talk
 * to the assistant through the user's browser). One client at a time: a new tab replaces the old.
 * A message over MAX_MESSAGE_BYTES is dropped and the window told so, on a connection that stays
 * open; only one over MAX_PAYLOAD_BYTES, which ws will not buffer, closes it (the window reconnects).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { BRIDGE_PATH, decodeMicFrame, encodeAudio, MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES, tooLargeNotice, type ClientMessage, type ServerMessage } from '../bridge-protocol';
import { appProtocolResponse } from '../static-files';
import type { AudioSink } from '../renderer-output';
import type { AssistantController } from './controller';

export interface WebBridge {
  url: string;
  close(): Promise<void>;
}

export interface WebBridgeOptions {
  /** The built renderer (dist/renderer). */
  staticDir: string;
  port?: number;
}

/** The sink a controller sends audio to; attach() connects it to the bridge once it exists. */
export class BridgeAudioSink implements AudioSink {
  client: WebSocket | null = null;
  audio(a: Parameters<AudioSink['audio']>[0]): void {
    if (this.client?.readyState === 1) this.client.send(encodeAudio(a));
  }
  control(c: Parameters<AudioSink['control']>[0]): void {
    send(this.client, { kind: 'audio-control', control: c });
  }
}

function send(ws: WebSocket | null, m: ServerMessage): void {
  if (ws?.readyState === 1) ws.send(encodeMessage(m));
}

/**
 * A message as its JSON text. One that cannot be written (nested too deep for the stack, a cycle)
 * must not take the process down: a response becomes that request's error, anything else a notice.
 */
export function encodeMessage(m: ServerMessage): string {
  try {
    return JSON.stringify(m);
  } catch (e) {
    const why = `the reply could not be encoded (${(e as Error).message})`;
    if (m.kind === 'response') return JSON.stringify({ kind: 'response', id: m.id, response: { ok: false, error: `The app could not send its answer: ${why}.` } });
    return JSON.stringify({ kind: 'event', event: { type: 'notice', level: 'error', message: `A message to the window was dropped: ${why}.` } });
  }
}

export async function startWebBridge(controller: AssistantController, sink: BridgeAudioSink, options: WebBridgeOptions): Promise<WebBridge> {
  const root = path.resolve(options.staticDir);
  const server = http.createServer((req, res) => void serveFile(root, req, res));
  // Up to the ceiling a message too large is answered and dropped (see onMessage); past it ws closes the connection.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  let origin = '';

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== BRIDGE_PATH || req.headers.origin !== origin) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws));
  });

  const off = controller.on((event) => send(sink.client, { kind: 'event', event }));

  function accept(ws: WebSocket): void {
    if (sink.client) {
      send(sink.client, { kind: 'replaced' });
      sink.client.close(4000, 'replaced by a newer connection');
    }
    sink.client = ws;
    ws.on('message', (data, isBinary) => {
      if (sink.client !== ws) return;
      const bytes = toBytes(data);
      if (bytes.byteLength > MAX_MESSAGE_BYTES) send(ws, { kind: 'event', event: { type: 'notice', level: 'error', message: tooLargeNotice(bytes.byteLength) } });
      else if (isBinary) controller.pushAudio(decodeMicFrame(bytes));
      else void onText(ws, bytes);
    });
    ws.on('close', () => {
      if (sink.client === ws) sink.client = null;
    });
    ws.on('error', () => ws.terminate());
  }

  async function onText(ws: WebSocket, data: Buffer): Promise<void> {
    let m: ClientMessage;
    try {
      m = JSON.parse(data.toString()) as ClientMessage;
    } catch {
      return;
    }
    if (m?.kind === 'command') controller.command(m.command);
    else if (m?.kind === 'request' && Number.isInteger(m.id)) send(ws, { kind: 'response', id: m.id, response: await controller.request(m.request) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    close: async () => {
      off();
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function toBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The bridge serves the page exactly as the app's own protocol does (same files, same headers). */
async function serveFile(root: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const r = await appProtocolResponse(root, req.url ?? '/', req.method);
  res.writeHead(r.status, Object.fromEntries(r.headers));
  res.end(Buffer.from(await r.arrayBuffer()));
}
