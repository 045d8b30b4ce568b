/** Words the window uses for models and backends, in one place. */
import type { MicrophoneSettings, ModelKind, ModelStatus } from '../../electron/ipc-contract';
import { notHonoured, PROCESSING_NAMES, processingOn, REQUESTED_CHANNELS, type ProcessingName } from '../../electron/microphone-settings';
import { acceleratorLabel } from '../../electron/settings/accelerator';

export const KIND_LABELS: Record<ModelKind, string> = {
  vad: 'Voice activity',
  stt: 'Speech to text',
  llm: 'Language model',
  tts: 'Text to speech',
  turn: 'End of turn',
};

/** A kind's label in the first-run list, saying when the assistant works without it. */
export function plannedKindLabel(kind: ModelKind, optional: boolean): string {
  return optional ? `${KIND_LABELS[kind]} (optional)` : KIND_LABELS[kind];
}

/** The models panel's words for one model: its name, its state. */
export function modelLine(m: ModelStatus): { name: string; state: string } {
  const name = m.name ?? (m.state === 'loading' ? 'loading…' : m.state === 'waiting' ? 'waiting' : m.state === 'missing' ? 'none installed' : '—');
  const state = m.state === 'ready' ? `loaded in ${m.loadMs !== undefined ? Math.round(m.loadMs) : '?'} ms` : m.state === 'missing' ? 'optional' : m.state;
  return { name, state };
}

export function backendLabel(backend: string): string {
  return backend === 'cpu' ? 'CPU' : backend === 'server' ? 'a server' : backend.toUpperCase();
}

/** The host (and port) of a server address, as a short label ("localhost:11434"); the address itself when it is no URL. */
export function serverHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return baseUrl;
  }
}

/** Where the language model runs, for the status bar: "LLM on CUDA · 33/33 layers", "LLM llama3.2:3b on localhost:11434". */
export function llmLine(llm: { backend: string; gpuLayers: number; totalLayers: number; server?: { baseUrl: string; model: string } }): string {
  if (llm.backend === 'server' && llm.server) return `LLM ${llm.server.model} on ${serverHost(llm.server.baseUrl)}`;
  return `LLM on ${backendLabel(llm.backend)}${llm.backend !== 'cpu' ? ` · ${llm.gpuLayers}/${llm.totalLayers} layers` : ''}`;
}

const PROCESSING_WORDS: Record<ProcessingName, string> = {
  echoCancellation: 'echo cancellation',
  autoGainControl: 'auto gain',
  noiseSuppression: 'noise suppression',
};

/** A processing value in words: "on", "off", "on (remote audio only)", "not reported". */
function processingWord(v: MicrophoneSettings[ProcessingName]): string {
  if (v === 'all') return 'on (all audio)';
  if (v === 'remote-only') return 'on (remote audio only)';
  const on = processingOn(v);
  return on === null ? 'not reported' : on ? 'on' : 'off';
}

/**
 * The Models panel's microphone line, "48 kHz, 1 channel; browser echo cancellation off, auto gain
 * off, noise suppression off", and one plain sentence for each request the browser did not honour
 * (a processing it kept on, more channels than one).
 */
export function microphoneLines(m: MicrophoneSettings): { line: string; notHonoured: { level: 'info' | 'error'; text: string }[] } {
  const rate = m.sampleRate === null ? 'rate not reported' : `${Math.round(m.sampleRate / 100) / 10} kHz`;
  const channels = m.channelCount === null ? 'channels not reported' : `${m.channelCount} channel${m.channelCount === 1 ? '' : 's'}`;
  const processing = PROCESSING_NAMES.map((k) => `${PROCESSING_WORDS[k]} ${processingWord(m[k])}`);
  return {
    line: `${rate}, ${channels}; browser ${processing.join(', ')}`,
    // A processing left on changes what the app's canceller learns; extra channels only cost a copy.
    notHonoured: notHonoured(m).map((k) =>
      k === 'channelCount'
        ? { level: 'info', text: `The browser opened ${m.channelCount} channels although the app asked for ${REQUESTED_CHANNELS}: the app listens to the first.` }
        : { level: 'error', text: `The browser did not turn its ${PROCESSING_WORDS[k]} off as the app asked: it still runs in front of the app's own echo canceller and input gain.` },
    ),
  };
}

/** The caption beside the header's microphone meter (its accessible name is the same words). */
export const MIC_METER_CAPTION = 'Mic';

/**
 * The header's microphone meter: how full it is (a perceptual scale: speech at -30 dBFS fills about
 * two thirds), its value in dBFS and that value in words for a screen reader.
 */
export function micMeter(rms: number, listening: boolean): { fill: number; db: number; text: string } {
  const db = Math.max(-60, Math.round(20 * Math.log10(Math.max(rms, 1e-5))));
  if (!listening) return { fill: 0, db: -60, text: 'microphone off' };
  return { fill: Math.max(0, Math.min(1, (db + 60) / 45)), db, text: db <= -60 ? 'silent' : `${db} dB` };
}

/** The input gain shown beside the microphone meter ("+18 dB"); null when nothing is raised. */
export function inputGainLabel(gainDb: number): string | null {
  const db = Math.round(gainDb);
  return db >= 1 ? `+${db} dB` : null;
}

/**
 * The one-shot talk button: what a press does now. `shortcut` is the global shortcut in effect
 * ('' in a browser, where there is none).
 */
export function talkButtonLabel(state: string, shortcut: string, platform = browserPlatform()): string {
  const keys = shortcut ? `Space or ${acceleratorLabel(shortcut, platform)}` : 'Space';
  if (state === 'listening') return 'Listening… press again to stop';
  if (state === 'hearing') return 'Hearing you… press to send now';
  if (state === 'speaking' || state === 'thinking') return `Press to interrupt and talk (${keys})`;
  return `Press to talk (${keys})`;
}

/** The platform as Electron names it ('darwin', 'win32', 'linux'), from the browser's own report. */
export function browserPlatform(): string {
  const p = typeof navigator === 'undefined' ? '' : navigator.platform;
  return /Mac/i.test(p) ? 'darwin' : /Win/i.test(p) ? 'win32' : 'linux';
}

const END_WORDS: Record<string, string> = {
  silence: 'ended by silence',
  'turn-model': 'ended by the end-of-turn model',
  'push-to-talk': 'ended by release',
  activation: 'ended by a second press',
  'max-length': 'ended at the longest turn',
  'input-ended': 'ended when listening stopped',
};

/** How a turn began and ended, under the turn ("started by the shortcut · ended by silence"). */
export function turnEnds(report: { startedBy?: string; endReason: string }): string {
  const ended = END_WORDS[report.endReason] ?? `ended: ${report.endReason}`;
  // Hands-free turns start with speech, which goes without saying; push-to-talk's key is implied by "release".
  if (report.startedBy === 'activation') return `started by a press · ${ended}`;
  return report.startedBy === 'wake-phrase' ? `started by the wake phrase · ${ended}` : ended;
}
