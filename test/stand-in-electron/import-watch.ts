/**
 * Module hooks (node:module register) that the stand-in for Electron installs in the child, to see
 * when the built main process imports its controller chunk (and with it the native engines):
 * `resolve` numbers the moment the chunk is first asked for, in the same sequence as every call the
 * stand-in records (a counter shared between the hooks thread and the main thread), and `load`
 * appends one line to the chunk that reports the end of its evaluation. Runs on the loader's thread.
 */
import type { InitializeHook, LoadHook, ResolveHook } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import { CONTROLLER_CHUNK, MARKER_KEY } from './protocol';

export interface WatchData {
  /** One Int32: the last sequence number given out. */
  counter: SharedArrayBuffer;
  port: MessagePort;
}

let counter: Int32Array | null = null;
let port: MessagePort | null = null;
const reported = new Set<string>();

export const initialize: InitializeHook<WatchData> = (data) => {
  counter = new Int32Array(data.counter);
  port = data.port;
};

export const resolve: ResolveHook = async (specifier, context, next) => {
  const result = await next(specifier, context);
  if (counter && port && CONTROLLER_CHUNK.test(result.url) && !reported.has(result.url)) {
    reported.add(result.url);
    port.postMessage({ seq: Atomics.add(counter, 0, 1) + 1, url: result.url });
  }
  return result;
};

export const load: LoadHook = async (url, context, next) => {
  const result = await next(url, context);
  if (!CONTROLLER_CHUNK.test(url) || result.source === undefined || result.source === null) return result;
  const source = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
  // Runs after the chunk's own statements, so once every engine it imports has been evaluated.
  const marker = `\n;globalThis[Symbol.for(${JSON.stringify(MARKER_KEY)})]?.(${JSON.stringify(url)});\n`;
  return { ...result, source: source + marker };
};
