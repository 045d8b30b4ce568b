/**
 * The contract (AssistantApi) over the dev/test WebSocket bridge: the same calls the app makes over
 * Electron IPC. Audio frames go as binary messages; everything else as JSON.
 *
 * Nothing over the bridge's message limit is sent: a long audio frame goes in pieces, an oversized
 * request is answered here with an error. Should the bridge still close the connection for a message
 * too big (code 1009), this reconnects once, says why in a notice, and `onReconnected` lets the page
 * fetch what it missed.
 */
import { BRIDGE_PATH, CLOSE_TOO_BIG, decodeAudio, MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES, tooLargeNotice, type ClientMessage, type ServerMessage } from '../../electron/bridge-protocol';
import { EventHub } from '../../electron/pipeline/events';
import type { AppEvent, AssistantApi, AssistantAudio, AssistantAudioControl, Request, ResponseOf } from '../../electron/ipc-contract';

/** A second close for a message too big within this long is not reconnected: something keeps sending one. */
const RECONNECT_WINDOW_MS = 10_000;
/** Samples per audio message: pieces of a long frame stay under the limit. */
const MAX_FRAME_SAMPLES = MAX_MESSAGE_BYTES / Float32Array.BYTES_PER_ELEMENT;

/** Connects to the bridge that served this page; `onClosed` hears when the connection is lost for good. */
export function connectWebSocketApi(onClosed: (reason: string) => void, onReconnected?: () => void): Promise<AssistantApi> {
  const url = new URL(BRIDGE_PATH, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const events = new EventHub<AppEvent>();
  const audio = new EventHub<AssistantAudio>();
  const controls = new EventHub<AssistantAudioControl>();
  const waiting = new Map<number, (response: unknown) => void>();
  let nextId = 1;
  let replaced = false;
  let reconnectedAt = -Infinity;
  let ws = open();

  function open(): WebSocket {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    socket.onmessage = onMessage;
    return socket;
  }

  function onMessage(e: MessageEvent<ArrayBuffer | string>): void {
    if (typeof e.data !== 'string') {
      const a = decodeAudio(e.data);
      if (a) audio.emit(a);
      return;
    }
    const m = JSON.parse(e.data) as ServerMessage;
    if (m.kind === 'event') events.emit(m.event);
    else if (m.kind === 'audio-control') controls.emit(m.control);
    else if (m.kind === 'response') {
      waiting.get(m.id)?.(m.response);
      waiting.delete(m.id);
    } else if (m.kind === 'replaced') replaced = true;
  }

  const notice = (message: string) => events.emit({ type: 'notice', level: 'error', message });

  /** Sends `m` unless it is over the limit; returns why not, or null when sent. */
  const sendJson = (m: ClientMessage): string | null => {
    const text = JSON.stringify(m);
    // Encoded only when it might be too large: a character is at most 3 bytes of UTF-8.
    const bytes = text.length * 3 > MAX_MESSAGE_BYTES ? new TextEncoder().encode(text).byteLength : text.length;
    if (bytes > MAX_MESSAGE_BYTES) return tooLargeNotice(bytes);
    if (ws.readyState === WebSocket.OPEN) ws.send(text);
    return null;
  };

  function onClose(e: CloseEvent): void {
    for (const fn of waiting.values()) fn({ ok: false, error: 'The connection to the assistant was lost.' });
    waiting.clear();
    if (replaced) return onClosed('The assistant was opened in another tab; this one is disconnected.');
    const lost = 'The connection to the assistant was lost. Restart `npm run dev:web` and reload this page.';
    if (e.code !== CLOSE_TOO_BIG || performance.now() - reconnectedAt < RECONNECT_WINDOW_MS) {
      return onClosed(e.code === CLOSE_TOO_BIG ? `A message from the window was over ${MAX_PAYLOAD_BYTES / 1024} kB, so the assistant closed the connection. Reload this page.` : lost);
    }
    reconnectedAt = performance.now();
    ws = open();
    ws.onclose = () => onClosed(lost);
    ws.onopen = () => {
      ws.onclose = onClose;
      notice(`A message from the window was over ${MAX_PAYLOAD_BYTES / 1024} kB, so the assistant closed the connection; it was reopened, and what that message carried was lost.`);
      onReconnected?.();
    };
  }

  const api: AssistantApi = {
    sendAudio(frame) {
      if (ws.readyState !== WebSocket.OPEN) return;
      // A long frame (a tab that was throttled, say) goes in pieces rather than be dropped whole.
      for (let i = 0; i < frame.length; i += MAX_FRAME_SAMPLES) ws.send(frame.subarray(i, i + MAX_FRAME_SAMPLES));
    },
    send(command) {
      const refused = sendJson({ kind: 'command', command });
      if (refused) notice(refused);
    },
    request<R extends Request>(request: R) {
      return new Promise<ResponseOf<R>>((resolve, reject) => {
        if (ws.readyState !== WebSocket.OPEN) {
          reject(new Error('Not connected to the assistant.'));
          return;
        }
        const id = nextId++;
        waiting.set(id, (r) => resolve(r as ResponseOf<R>));
        const refused = sendJson({ kind: 'request', id, request });
        if (refused) {
          waiting.delete(id);
          resolve({ ok: false, error: refused } as ResponseOf<R>);
        }
      });
    },
    onEvent: (cb) => events.on(cb),
    onAudio: (cb) => audio.on(cb),
    onAudioControl: (cb) => controls.on(cb),
  };

  return new Promise((resolve, reject) => {
    ws.onopen = () => {
      ws.onclose = onClose;
      resolve(api);
    };
    ws.onerror = () => reject(new Error(`Could not connect to the assistant at ${url.href}. Is \`npm run dev:web\` still running?`));
  });
}
