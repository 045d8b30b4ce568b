/**
 * The preload: runs sandboxed and exposes only the narrow `window.assistant` API (ipc-contract.ts).
 * The page never sees ipcRenderer or the IPC event object. Built as one CommonJS file (sandboxed
 * preloads cannot load ES modules or anything but 'electron').
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC, isMicFrame, MAX_MIC_FRAME_SAMPLES, type AssistantApi } from './ipc-contract';

/** Subscribes `cb` to `channel`, passing only the payload; returns the unsubscribe function. */
function subscribe<T>(channel: string, cb: (payload: T) => void): () => void {
  if (typeof cb !== 'function') throw new TypeError('callback must be a function');
  const listener = (_event: IpcRendererEvent, payload: T) => cb(payload);
  ipcRenderer.on(channel, listener);
  return () => {
    ipcRenderer.removeListener(channel, listener);
  };
}

const api: AssistantApi = {
  sendAudio(frame) {
    if (!isMicFrame(frame)) throw new TypeError(`sendAudio expects a Float32Array of 1 to ${MAX_MIC_FRAME_SAMPLES} samples`);
    // Structured clone of a typed array: the samples travel as bytes, not JSON.
    ipcRenderer.send(IPC.micAudio, frame);
  },
  send: (command) => ipcRenderer.send(IPC.command, command),
  request: (request) => ipcRenderer.invoke(IPC.request, request),
  onEvent: (cb) => subscribe(IPC.appEvent, cb),
  onAudio: (cb) => subscribe(IPC.assistantAudio, cb),
  onAudioControl: (cb) => subscribe(IPC.assistantAudioControl, cb),
};

contextBridge.exposeInMainWorld('assistant', api);
