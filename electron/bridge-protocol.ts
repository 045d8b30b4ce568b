/**
 * The WebSocket bridge's wire format (browser-safe, no Node imports): JSON text frames for
 * commands, requests, responses and events; binary frames for audio, so samples are never JSON.
 */
import type { AppEvent, AssistantAudio, AssistantAudioControl } from './ipc-contract';

/** The path the bridge listens on, next to the renderer's files. */
export const BRIDGE_PATH = '/bridge';

/**
 * The largest message the window may send: a settings patch or a second of microphone audio is far
 * smaller. A larger one is dropped and the window told why (`tooLargeNotice`); the connection stays.
 */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/**
 * The largest message the bridge reads at all: a message is buffered whole before it can be looked
 * at, so past this the bridge closes the connection instead (code CLOSE_TOO_BIG), and the window
 * reconnects. Bounds the bridge's memory whatever a client sends.
 */
export const MAX_PAYLOAD_BYTES = 8 * MAX_MESSAGE_BYTES;
/** The WebSocket close code for a message over MAX_PAYLOAD_BYTES (RFC 6455: "message too big"). */
export const CLOSE_TOO_BIG = 1009;

/** The notice for a message over MAX_MESSAGE_BYTES, on whichever side refused it. */
export function tooLargeNotice(bytes: number): string {
  return `A message from the window was too large (${Math.ceil(bytes / 1024)} kB, limit ${MAX_MESSAGE_BYTES / 1024} kB) and was dropped.`;
}

export type ClientMessage =
  | { kind: 'command'; command: unknown }
  | { kind: 'request'; id: number; request: unknown };

export type ServerMessage =
  | { kind: 'event'; event: AppEvent }
  | { kind: 'response'; id: number; response: unknown }
  | { kind: 'audio-control'; control: AssistantAudioControl }
  /** This connection was replaced by a newer one (another tab); it gets nothing more. */
  | { kind: 'replaced' };

/** Binary server frames: a 24-byte header (from, startMs as float64; sampleRate as uint32), then float32 samples. */
const HEADER_BYTES = 24;

export function encodeAudio(a: AssistantAudio): ArrayBuffer {
  const buf = new ArrayBuffer(HEADER_BYTES + a.samples.length * 4);
  const view = new DataView(buf);
  view.setFloat64(0, a.from, true);
  view.setFloat64(8, a.startMs, true);
  view.setUint32(16, a.sampleRate, true);
  new Float32Array(buf, HEADER_BYTES).set(a.samples);
  return buf;
}

export function decodeAudio(buf: ArrayBuffer): AssistantAudio | null {
  if (buf.byteLength < HEADER_BYTES || (buf.byteLength - HEADER_BYTES) % 4 !== 0) return null;
  const view = new DataView(buf);
  const sampleRate = view.getUint32(16, true);
  if (sampleRate < 8000 || sampleRate > 192000) return null;
  return { from: view.getFloat64(0, true), startMs: view.getFloat64(8, true), sampleRate, samples: new Float32Array(buf.slice(HEADER_BYTES)) };
}

/** Binary client frames are microphone audio: raw little-endian float32 samples. */
export function decodeMicFrame(data: Uint8Array): Float32Array | null {
  if (data.byteLength === 0 || data.byteLength % 4 !== 0) return null;
  // Copied: the socket's buffer may be pooled and unaligned.
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return new Float32Array(copy.buffer);
}
