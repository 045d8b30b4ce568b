/**
 * The controller behind the window and its WebSocket transport, without a browser: the contract's
 * validation, the bridge's origin check and static files, settings over the wire, and a missing
 * model reported as status, not a crash.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { AssistantController } from '../electron/app/controller';
import { BridgeAudioSink, encodeMessage, startWebBridge, type WebBridge } from '../electron/app/web-bridge';
import { BRIDGE_PATH, decodeAudio, encodeAudio, MAX_PAYLOAD_BYTES, type ServerMessage } from '../electron/bridge-protocol';
import { parseCommand, parseRequest, type AppEvent, type Snapshot } from '../electron/ipc-contract';
import { buildRenderer } from './browser-harness';
import { ROOT, tempDir } from './helpers';

describe('the IPC contract validates what the renderer sends', () => {
  it('accepts each well-formed command and request', () => {
    for (const c of [
      { type: 'set-listening', listening: false },
      { type: 'push-to-talk', down: true },
      { type: 'interrupt' },
      { type: 'reset-conversation' },
      { type: 'playback-progress', position: 1234.5 },
      { type: 'cancel-timer', id: 't3' },
      { type: 'stop-ringing' },
      { type: 'confirm-tool', id: 'confirm-3', run: true },
      { type: 'confirm-tool', id: 'confirm-3', run: false },
    ]) assert.deepEqual(parseCommand(c), { ok: true, value: c });
    for (const r of [{ type: 'get-snapshot' }, { type: 'reset-settings' }, { type: 'update-settings', patch: { mode: 'push-to-talk' } }]) {
      assert.deepEqual(parseRequest(r), { ok: true, value: r });
    }
  });

  it('refuses malformed ones with a message that says what was wrong', () => {
    const bad: [unknown, RegExp][] = [
      [null, /must be an object with a "type"/],
      ['interrupt', /must be an object/],
      [{ type: 'format-disk' }, /not a known command/],
      [{ type: 'push-to-talk', down: 'yes' }, /"down" must be true or false/],
      [{ type: 'push-to-talk' }, /"down" must be true or false/],
      [{ type: 'set-listening', listening: 1 }, /"listening" must be true or false/],
      [{ type: 'playback-progress', position: -1 }, /finite number/],
      [{ type: 'playback-progress', position: Number.NaN }, /finite number/],
      [{ type: 'interrupt', extra: 1 }, /unknown field\(s\) "extra"/],
      [{ type: 'cancel-timer' }, /"id" must be a timer id/],
      [{ type: 'cancel-timer', id: '' }, /"id" must be a timer id/],
      [{ type: 'cancel-timer', id: 3 }, /"id" must be a timer id/],
      [{ type: 'cancel-timer', id: 'x'.repeat(65) }, /"id" must be a timer id \(a string of 1 to 64 characters\)/],
      [{ type: 'cancel-timer', id: 't1', all: true }, /unknown field\(s\) "all"/],
      [{ type: 'stop-ringing', id: 't1' }, /unknown field\(s\) "id"/],
      [{ type: 'confirm-tool', id: 'confirm-3' }, /"run" must be true \(Run\) or false \(Cancel\)/],
      [{ type: 'confirm-tool', id: 'rm -rf', run: true }, /"id" must be the open question's id/],
      [{ type: 'confirm-tool', id: 'confirm-1', run: true, args: '{}' }, /unknown field\(s\) "args"/],
    ];
    for (const [input, message] of bad) {
      const r = parseCommand(input);
      assert.equal(r.ok, false, JSON.stringify(input));
      if (!r.ok) assert.match(r.error, message);
    }
    const r = parseRequest({ type: 'drop-tables' });
    assert.equal(r.ok, false);
  });

  it("validates the Memory panel's commands: a bounded fact id, nothing else", () => {
    for (const c of [{ type: 'forget-fact', id: 'f3' }, { type: 'forget-fact', id: 'x'.repeat(64) }, { type: 'clear-memory' }]) assert.deepEqual(parseCommand(c), { ok: true, value: c });
    const bad: [unknown, RegExp][] = [
      [{ type: 'forget-fact' }, /command "forget-fact": "id" must be a fact id/],
      [{ type: 'forget-fact', id: '' }, /"id" must be a fact id/],
      [{ type: 'forget-fact', id: 3 }, /"id" must be a fact id/],
      [{ type: 'forget-fact', id: { $ne: null } }, /"id" must be a fact id/],
      [{ type: 'forget-fact', id: 'x'.repeat(65) }, /"id" must be a fact id \(a string of 1 to 64 characters\)/],
      [{ type: 'forget-fact', id: 'f1', text: 'my sister' }, /unknown field\(s\) "text"/],
      [{ type: 'clear-memory', keep: [] }, /command "clear-memory": clear-memory has unknown field\(s\) "keep"/],
    ];
    for (const [input, message] of bad) {
      const r = parseCommand(input);
      assert.equal(r.ok, false, JSON.stringify(input));
      if (!r.ok) assert.match(r.error, message);
    }
  });

  it('validates what the browser applied to the microphone: the typed fields only, each in range', () => {
    const settings = { echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1, label: 'Fake Default Audio Input' };
    for (const c of [
      { type: 'microphone-settings', settings },
      { type: 'microphone-settings', settings: { ...settings, echoCancellation: 'remote-only', label: undefined } },
      { type: 'microphone-settings', settings: { echoCancellation: null, autoGainControl: null, noiseSuppression: null, sampleRate: null, channelCount: null } },
    ]) assert.deepEqual(parseCommand(c), { ok: true, value: c });
    const bad: [unknown, RegExp][] = [
      [{ type: 'microphone-settings' }, /"settings" must be an object/],
      [{ type: 'microphone-settings', settings, extra: 1 }, /unknown field\(s\) "extra"/],
      [{ type: 'microphone-settings', settings: { ...settings, deviceId: 'abc123' } }, /"settings" has unknown field\(s\) "deviceId"/],
      [{ type: 'microphone-settings', settings: { ...settings, echoCancellation: 'yes' } }, /"echoCancellation" must be true, false, "all", "remote-only" or null/],
      [{ type: 'microphone-settings', settings: { ...settings, autoGainControl: undefined } }, /"autoGainControl" must be true, false or null/],
      [{ type: 'microphone-settings', settings: { ...settings, noiseSuppression: 0 } }, /"noiseSuppression" must be true, false or null/],
      [{ type: 'microphone-settings', settings: { ...settings, sampleRate: 44100.5 } }, /"sampleRate" must be a whole number/],
      [{ type: 'microphone-settings', settings: { ...settings, sampleRate: 1e9 } }, /"sampleRate" must be a whole number/],
      [{ type: 'microphone-settings', settings: { ...settings, channelCount: 0 } }, /"channelCount" must be a whole number from 1/],
      [{ type: 'microphone-settings', settings: { ...settings, label: 'x'.repeat(201) } }, /"label" must be text of at most 200/],
    ];
    for (const [input, message] of bad) {
      const r = parseCommand(input);
      assert.equal(r.ok, false, JSON.stringify(input));
      if (!r.ok) assert.match(r.error, message);
    }
  });

  it('validates the LLM server requests, never echoing a key', () => {
    for (const r of [
      { type: 'llm-server-models' },
      { type: 'llm-server-models', baseUrl: 'http://localhost:11434/v1' },
      { type: 'llm-server-test', baseUrl: 'http://h/v1', model: 'm' },
      { type: 'set-api-key', key: 'sk-1' },
      { type: 'set-api-key', key: null },
    ]) assert.deepEqual(parseRequest(r), { ok: true, value: r });
    const bad: [unknown, RegExp][] = [
      [{ type: 'llm-server-models', baseUrl: 3 }, /"baseUrl" must be text/],
      [{ type: 'llm-server-test', model: 'x'.repeat(201) }, /"model" must be text of at most 200/],
      [{ type: 'llm-server-test', key: 'k' }, /unknown field\(s\) "key"/],
      [{ type: 'set-api-key' }, /"key" must be text, or null to remove it/],
      [{ type: 'set-api-key', key: 'sk-secret'.repeat(600) }, /^The API key is 5400 characters long; a key is at most 512\./],
      [{ type: 'set-api-key', key: 'sk-sec\nret' }, /^The API key may only have letters, digits and punctuation \(no spaces, line breaks/],
      [{ type: 'set-api-key', key: 'sk-secret\u0000x' }, /may only have letters, digits and punctuation/],
      [{ type: 'set-api-key', key: 'sk-secrét' }, /may only have letters, digits and punctuation/],
      [{ type: 'set-api-key', key: 'sk-secret with-space' }, /may only have letters, digits and punctuation/],
    ];
    for (const [input, message] of bad) {
      const r = parseRequest(input);
      assert.equal(r.ok, false, JSON.stringify(input).slice(0, 80));
      if (!r.ok) {
        assert.match(r.error, message);
        assert.ok(!r.error.includes('sk-secret'));
      }
    }
  });

  it('assistant audio survives the binary wire format', () => {
    const samples = Float32Array.from([0, 0.5, -0.25, 1]);
    const a = decodeAudio(encodeAudio({ samples, sampleRate: 22050, from: 1234.5, startMs: 9876.25 }));
    assert.deepEqual(a && { ...a, samples: [...a.samples] }, { samples: [0, 0.5, -0.25, 1], sampleRate: 22050, from: 1234.5, startMs: 9876.25 });
    assert.equal(decodeAudio(new ArrayBuffer(7)), null);
  });
});

interface Client {
  ws: WebSocket;
  messages: ServerMessage[];
  next(pred: (m: ServerMessage) => boolean, timeoutMs?: number): Promise<ServerMessage>;
  request(request: unknown): Promise<unknown>;
}

function connect(url: string, origin: string): Promise<Client> {
  const ws = new WebSocket(url, { origin });
  const messages: ServerMessage[] = [];
  const waiters: { pred: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void }[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const m = JSON.parse(data.toString()) as ServerMessage;
    messages.push(m);
    for (const w of waiters.splice(0)) {
      if (w.pred(m)) w.resolve(m);
      else waiters.push(w);
    }
  });
  // Unique per client: a repeated id would match an earlier response still in `messages`.
  let id = Math.floor(Math.random() * 1e6) * 1000;
  const client: Client = {
    ws,
    messages,
    next: (pred, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const seen = messages.find(pred);
        if (seen) return resolve(seen);
        const timer = setTimeout(() => reject(new Error(`no matching message; got ${JSON.stringify(messages).slice(0, 500)}`)), timeoutMs);
        waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      }),
    async request(request) {
      const myId = ++id;
      ws.send(JSON.stringify({ kind: 'request', id: myId, request }));
      const m = await client.next((x) => x.kind === 'response' && x.id === myId);
      return (m as Extract<ServerMessage, { kind: 'response' }>).response;
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('the WebSocket bridge', () => {
  let bridge: WebBridge;
  let controller: AssistantController;
  let settingsFile: string;
  let wsUrl: string;
  let origin: string;

  before(async () => {
    buildRenderer();
    const dir = tempDir('lva-bridge-');
    settingsFile = path.join(dir, 'settings.json');
    const sink = new BridgeAudioSink();
    // No models anywhere: the assistant must say so and keep running.
    controller = new AssistantController({
      settingsFile,
      modelRoots: () => [path.join(dir, 'no-models-here')],
      audioSink: () => sink,
      downloadRoot: path.join(dir, 'downloads'),
      detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
    });
    bridge = await startWebBridge(controller, sink, { staticDir: path.join(ROOT, 'dist', 'renderer'), port: 0 });
    origin = bridge.url.replace(/\/$/, '');
    wsUrl = `${origin.replace('http', 'ws')}${BRIDGE_PATH}`;
    await controller.start();
  });
  after(async () => {
    await bridge?.close();
    await controller?.dispose();
  });

  it('serves the renderer with the CSP, and nothing outside it', async () => {
    const page = await fetch(bridge.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.match(await page.text(), /<div id="root">/);
    assert.equal((await fetch(`${origin}/capture-worklet.js`)).status, 200);
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/missing.js', '/index.html%00.js']) {
      assert.equal((await fetch(`${origin}${p}`)).status, 404, p);
    }
    assert.equal((await fetch(bridge.url, { method: 'POST' })).status, 405);
  });

  it('refuses WebSocket connections from any other origin', async () => {
    await assert.rejects(connect(wsUrl, 'https://evil.example'), /HTTP 403/);
    await assert.rejects(connect(wsUrl, 'http://localhost:1'), /HTTP 403/);
  });

  it('with no models installed it offers the first-run downloads, and keeps answering', async () => {
    const c = await connect(wsUrl, origin);
    try {
      const snap = (await c.request({ type: 'get-snapshot' })) as Snapshot;
      assert.equal(snap.status.phase, 'setup');
      const setup = snap.status.setup!;
      assert.deepEqual(setup.models.map((m) => m.id), ['silero-vad', 'sherpa-onnx-streaming-zipformer-en-2023-06-26', 'qwen2.5-1.5b-instruct-q4_k_m', 'vits-piper-en_US-libritts_r-medium', 'smart-turn-v3.2-cpu']);
      assert.match(setup.recommendation?.reason ?? '', /No usable GPU/);
      assert.equal(setup.state, 'waiting');
      assert.ok(setup.totalBytes! > 1_000_000_000);
      // Audio and commands with no pipeline are harmless.
      c.ws.send(new Uint8Array([1, 2, 3]));
      c.ws.send(new Float32Array(320).fill(Number.NaN));
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'interrupt' } }));
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'cancel-timer', id: 't1' } }));
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'stop-ringing' } }));
      c.ws.send('not json');
      const after = (await c.request({ type: 'get-snapshot' })) as Snapshot;
      assert.equal(after.status.phase, 'setup');
      assert.deepEqual(after.timers, [], 'no timers stored here');
    } finally {
      c.ws.close();
    }
  });

  it('settings: an invalid patch is refused and writes nothing; a valid one is saved and broadcast', async () => {
    const c = await connect(wsUrl, origin);
    try {
      const bad = (await c.request({ type: 'update-settings', patch: { endpointing: { silenceMs: 'long' }, nope: 1 } })) as { ok: boolean; error: string };
      assert.equal(bad.ok, false);
      assert.match(bad.error, /endpointing\.silenceMs must be a whole number between 100 and 5000/);
      assert.match(bad.error, /nope is an unknown setting/);
      assert.equal(existsSync(settingsFile), false, 'nothing written');
      const good = (await c.request({ type: 'update-settings', patch: { endpointing: { silenceMs: 750 } } })) as { ok: boolean };
      assert.equal(good.ok, true);
      const event = (await c.next((m) => m.kind === 'event' && m.event.type === 'settings')) as { event: Extract<AppEvent, { type: 'settings' }> };
      assert.equal(event.event.settings.endpointing.silenceMs, 750);
      assert.equal((JSON.parse(await readFile(settingsFile, 'utf8')) as { endpointing: { silenceMs: number } }).endpointing.silenceMs, 750);
      const reset = (await c.request({ type: 'reset-settings' })) as { ok: boolean; settings: { endpointing: { silenceMs: number } } };
      assert.equal(reset.settings.endpointing.silenceMs, 600);
    } finally {
      c.ws.close();
    }
  });

  it('a malformed command is reported back, not acted on', async () => {
    const c = await connect(wsUrl, origin);
    try {
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'push-to-talk', down: 'maybe' } }));
      const m = (await c.next((x) => x.kind === 'event' && x.event.type === 'notice')) as { event: Extract<AppEvent, { type: 'notice' }> };
      assert.equal(m.event.level, 'error');
      assert.match(m.event.message, /malformed message.*"down" must be true or false/);
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'cancel-timer', id: { $ne: null } } }));
      const t = (await c.next((x) => x.kind === 'event' && x.event.type === 'notice' && /cancel-timer/.test(x.event.message))) as { event: Extract<AppEvent, { type: 'notice' }> };
      assert.match(t.event.message, /malformed message.*"id" must be a timer id/);
    } finally {
      c.ws.close();
    }
  });

  it('a message over the limit is dropped with a notice and the connection stays; past the ceiling it is closed as too big', async () => {
    const c = await connect(wsUrl, origin);
    const tooLarge = (x: ServerMessage) => x.kind === 'event' && x.event.type === 'notice' && /too large/.test(x.event.message);
    try {
      // Ten seconds of microphone audio in one frame (16 kHz float32: 625 kB).
      c.ws.send(new Float32Array(160_000));
      const m = (await c.next(tooLarge)) as { event: Extract<AppEvent, { type: 'notice' }> };
      assert.equal(m.event.level, 'error');
      assert.equal(m.event.message, 'A message from the window was too large (625 kB, limit 256 kB) and was dropped.');
      c.ws.send(JSON.stringify({ kind: 'command', command: { type: 'interrupt', pad: 'x'.repeat(300_000) } }));
      await c.next((x) => tooLarge(x) && x !== m);
      assert.equal(c.ws.readyState, WebSocket.OPEN);
      assert.equal(((await c.request({ type: 'get-snapshot' })) as Snapshot).status.phase, 'setup', 'still answering on the same connection');
      // Past the ceiling ws closes rather than buffer it: 1009, "message too big".
      const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
      c.ws.send(new Uint8Array(MAX_PAYLOAD_BYTES + 4));
      assert.equal(await closed, 1009);
    } finally {
      c.ws.close();
    }
    const again = await connect(wsUrl, origin);
    try {
      assert.equal(((await again.request({ type: 'get-snapshot' })) as Snapshot).status.phase, 'setup', 'a new connection is served');
    } finally {
      again.ws.close();
    }
  });

  it('a second tab replaces the first, which is told why', async () => {
    const first = await connect(wsUrl, origin);
    const closed = new Promise<number>((resolve) => first.ws.once('close', (code) => resolve(code)));
    const second = await connect(wsUrl, origin);
    try {
      await first.next((m) => m.kind === 'replaced');
      assert.equal(await closed, 4000);
      assert.equal(((await second.request({ type: 'get-snapshot' })) as Snapshot).status.phase, 'setup');
    } finally {
      second.ws.close();
    }
  });
});

describe('bridge messages that cannot be encoded', () => {
  it('a reply nested too deep for JSON.stringify becomes that request\'s error, never a crash', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 20_000; i++) deep = deep.a = {};
    const reply = JSON.parse(encodeMessage({ kind: 'response', id: 7, response: { ok: true, value: top } })) as ServerMessage;
    assert.deepEqual(Object.keys(reply), ['kind', 'id', 'response']);
    assert.equal((reply as { id: number }).id, 7);
    assert.match(JSON.stringify(reply), /"ok":false,"error":"The app could not send its answer: the reply could not be encoded/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const event = JSON.parse(encodeMessage({ kind: 'event', event: { type: 'notice', level: 'info', message: cyclic as unknown as string } })) as { event: { type: string; level: string } };
    assert.deepEqual([event.event.type, event.event.level], ['notice', 'error']);
  });
});

