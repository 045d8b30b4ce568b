/** The connected AssistantApi (IPC in the app, WebSocket in a browser), set once at start-up. */
import type { AssistantApi } from '../../electron/ipc-contract';

let current: AssistantApi | null = null;

export function setApi(api: AssistantApi): void {
  current = api;
}

export function api(): AssistantApi {
  if (!current) throw new Error('Not connected to the assistant yet.');
  return current;
}
