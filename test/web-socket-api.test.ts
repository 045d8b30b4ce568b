/**
 * The window's side of the WebSocket bridge (renderer/api/web-socket-api.ts), run in Node with ws
 * standing in for the browser's WebSocket: it never sends a message over the bridge's limit (a long
 * audio frame goes in pieces, an oversized request is refused on the spot), and when the bridge
 * closes the connection for a message too big anyway, it reconnects and says why.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { BRIDGE_PATH, MAX_MESSAGE_BYTES, type ServerMessage } from '../electron/bridge-protocol';
import type { AppEvent, Snapshot } from '../electron/ipc-contract';
import { connectWebSocketApi } from '../renderer/api/web-socket-api';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A callback, and a promise of its first call. */
function signal<T extends unknown[]>(): { fn: (...args: T) => void; called: Promise<T>; calls: T[] } {
  const calls: T[] = [];
  let resolve!: (args: T) => void;
  const called = new Promise<T>((r) => (resolve = r));
  return { fn: (...args: T) => (calls.push(args), resolve(args)), called, calls };
}

/** A stand-in bridge: records what arrives, answers get-snapshot, and closes connections on request. */
function fakeBridge() {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: BRIDGE_PATH });
  const received: { connection: number; bytes: number; binary: boolean }[] = [];
  const sockets: WebSocket[] = [];
  wss.on('connection', (ws) => {
    const connection = sockets.push(ws);
    ws.on('message', (data, binary) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      received.push({ connection, bytes: bytes.byteLength, binary });
      if (binary) return;
      const m = JSON.parse(bytes.toString()) as { kind: string; id: number; request?: { type: string } };
      if (m.kind === 'request') ws.send(JSON.stringify({ kind: 'response', id: m.id, response: { connection } } satisfies ServerMessage));
    });
  });
  return { wss, received, sockets, url: () => `http://127.0.0.1:${(wss.address() as AddressInfo).port}/` };
}

describe('the window\'s WebSocket client', { timeout: 10_000 }, () => {
  const globals = globalThis as unknown as Record<string, unknown>;
  const saved = { WebSocket: globals.WebSocket, location: globals.location };
  let bridge: ReturnType<typeof fakeBridge>;

  before(async () => {
    bridge = fakeBridge();
    await new Promise((r) => bridge.wss.once('listening', r));
    globals.WebSocket = WebSocket;
    globals.location = new URL(bridge.url());
  });
  after(() => {
    Object.assign(globals, saved);
    for (const ws of bridge.sockets) ws.terminate();
    bridge.wss.close();
  });

  it('sends a long audio frame in pieces under the limit, and refuses an oversized request without sending it', async () => {
    const closed = signal<[string]>();
    const api = await connectWebSocketApi(closed.fn);
    const before = bridge.received.length;
    api.sendAudio(new Float32Array(160_000).fill(0.25));
    while (bridge.received.length - before < 3) await sleep(10);
    assert.deepEqual(bridge.received.slice(before).map((p) => [p.binary, p.bytes]), [[true, MAX_MESSAGE_BYTES], [true, MAX_MESSAGE_BYTES], [true, 640_000 - 2 * MAX_MESSAGE_BYTES]]);
    const r = (await api.request({ type: 'update-settings', patch: { llm: { systemPrompt: 'é'.repeat(150_000) } } })) as unknown as { ok: boolean; error: string };
    assert.deepEqual(r, { ok: false, error: 'A message from the window was too large (294 kB, limit 256 kB) and was dropped.' });
    await sleep(50);
    assert.equal(bridge.received.length - before, 3, 'nothing more was sent');
    assert.deepEqual(closed.calls, []);
  });

  it('when the bridge closes the connection as too big (1009), it reconnects, says why, and is served again', async () => {
    const closed = signal<[string]>();
    const reconnected = signal<[]>();
    const notices: string[] = [];
    const api = await connectWebSocketApi(closed.fn, reconnected.fn);
    api.onEvent((e: AppEvent) => {
      if (e.type === 'notice') notices.push(e.message);
    });
    const first = (await api.request({ type: 'get-snapshot' })) as unknown as { connection: number };
    bridge.sockets[first.connection - 1]!.close(1009);
    await reconnected.called;
    assert.deepEqual(notices, ['A message from the window was over 2048 kB, so the assistant closed the connection; it was reopened, and what that message carried was lost.']);
    const second = (await api.request({ type: 'get-snapshot' })) as unknown as Snapshot & { connection: number };
    assert.ok(second.connection > first.connection, 'served on a new connection');
    // Another such close at once is not retried (something keeps sending one): the page says to reload.
    bridge.sockets[second.connection - 1]!.close(1009);
    const [reason] = await closed.called;
    assert.match(reason, /over 2048 kB, so the assistant closed the connection\. Reload this page/);
    assert.equal(reconnected.calls.length, 1);
  });

  it('any other close is reported as a lost connection, not reconnected', async () => {
    const closed = signal<[string]>();
    const reconnected = signal<[]>();
    const api = await connectWebSocketApi(closed.fn, reconnected.fn);
    const { connection } = (await api.request({ type: 'get-snapshot' })) as unknown as { connection: number };
    bridge.sockets[connection - 1]!.close(1001);
    const [reason] = await closed.called;
    assert.match(reason, /The connection to the assistant was lost/);
    assert.equal(reconnected.calls.length, 0);
  });
});
