/**
 * The contract (AssistantApi) over the dev/test WebSocket bridge: the same calls the app makes over
 * Electron IPC. Audio frames go as binary messages; everything else as JSON.
 */
import { BRIDGE_PATH, decodeAudio, type ClientMessage, type ServerMessage } from '../../electron/bridge-protocol';
import { EventHub } from '../../electron/pipeline/events';
import type { AppEvent, AssistantApi, AssistantAudio, AssistantAudioControl, Request, ResponseOf } from '../../electron/ipc-contract';

/** Connects to the bridge that served this page; `onClosed` hears when the connection is lost. */
export function connectWebSocketApi(onClosed: (reason: string) => void): Promise<AssistantApi> {
  const url = new URL(BRIDGE_PATH, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  const events = new EventHub<AppEvent>();
  const audio = new EventHub<AssistantAudio>();
  const controls = new EventHub<AssistantAudioControl>();
  const waiting = new Map<number, (response: unknown) => void>();
  let nextId = 1;
  let replaced = false;

  const sendJson = (m: ClientMessage) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
  };

  ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
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
  };

  const api: AssistantApi = {
    sendAudio(frame) {
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    },
    send: (command) => sendJson({ kind: 'command', command }),
    request<R extends Request>(request: R) {
      return new Promise<ResponseOf<R>>((resolve, reject) => {
        if (ws.readyState !== WebSocket.OPEN) {
          reject(new Error('Not connected to the assistant.'));
          return;
        }
        const id = nextId++;
        waiting.set(id, (r) => resolve(r as ResponseOf<R>));
        sendJson({ kind: 'request', id, request });
      });
    },
    onEvent: (cb) => events.on(cb),
    onAudio: (cb) => audio.on(cb),
    onAudioControl: (cb) => controls.on(cb),
  };

  return new Promise((resolve, reject) => {
    ws.onopen = () => resolve(api);
    ws.onerror = () => reject(new Error(`Could not connect to the assistant at ${url.href}. Is \`npm run dev:web\` still running?`));
    ws.onclose = () => {
      for (const fn of waiting.values()) fn({ ok: false, error: 'The connection to the assistant was lost.' });
      waiting.clear();
      onClosed(replaced ? 'The assistant was opened in another tab; this one is disconnected.' : 'The connection to the assistant was lost. Restart `npm run dev:web` and reload this page.');
    };
  });
}
