/**
 * The one contract between the main-process controller and the renderer, whatever carries it:
 * Electron IPC in the app (preload + contextBridge) or the local WebSocket bridge (`dev:web`, the
 * end-to-end tests). Types plus small pure validators, so the sandboxed preload, the renderer and
 * the bridge can all import it without pulling in Node code.
 */
import type { AssistantState, PipelineEvent } from './pipeline/events';
import type { PendingConfirmation } from './pipeline/report';
import type { TimerView } from './timers/timer-view';
import type { BuiltInToolStatus, McpServerState, McpServerStatus, ToolStatus, ToolsStatus } from './tools/tool-status';
import type { LlmInfo } from './engines/llm-types';
import type { ModelKind } from '../native-models/types';
import type { Settings } from './settings/schema';
import type { FileProgress } from '../native-models/downloader';
import type { SetupPlan } from '../native-models/setup-plan';
import { SESSION_ID, type HistorySession, type HistorySessionInfo, type LogSummary } from './history/log-format';
import { microphoneProblem, type MicrophoneSettings } from './microphone-settings';
import { apiKeyProblem } from './secrets/api-key-shape';
import { isRecord, onlyKeys, type Parsed } from './ipc-validate';
import { parseMemoryCommand, type MemoryCommand, type MemoryView } from './ipc-memory';

export type { FileProgress, SetupPlan, TimerView, MicrophoneSettings };
export type { BuiltInToolStatus, McpServerState, McpServerStatus, ToolStatus, ToolsStatus };
export type { HistorySession, HistorySessionInfo, LogSummary };
export type { MemoryCommand, MemoryView };
export { MAX_FACT_ID_LENGTH } from './ipc-memory';

export const IPC = {
  /** renderer -> main (send): one frame of 16 kHz mono microphone audio, a Float32Array. */
  micAudio: 'mic-audio',
  /** renderer -> main (send): a Command. */
  command: 'command',
  /** renderer -> main (invoke): a Request; answers with its Response. */
  request: 'request',
  /** main -> renderer: an AppEvent. */
  appEvent: 'app-event',
  /** main -> renderer: assistant speech to play (AssistantAudio). */
  assistantAudio: 'assistant-audio',
  /** main -> renderer: pause, resume or stop-and-flush playback (AssistantAudioControl). */
  assistantAudioControl: 'assistant-audio-control',
} as const;

/** The most samples one mic-audio message may carry (1 s at 16 kHz); larger frames are dropped. */
export const MAX_MIC_FRAME_SAMPLES = 16000;
export const MIC_SAMPLE_RATE = 16000;

/**
 * A chunk of the assistant's voice. `from` is its position in the output stream (ms of audio,
 * pauses not counted): the player reports progress on the same axis. `startMs` is when the
 * pipeline expects it to start (pipeline clock).
 */
export interface AssistantAudio {
  samples: Float32Array;
  sampleRate: number;
  from: number;
  startMs: number;
}

/**
 * Nothing queued may play after a pause or stop arrives (`atMs` is pipeline time, for the record);
 * `duck` sets the volume (`gain`, 0-1) while the user's speech over the answer is judged.
 */
export type AssistantAudioControl = { action: 'pause' | 'resume' | 'stop'; atMs: number } | { action: 'duck'; atMs: number; gain: number };

/** Fire-and-forget commands from the renderer. */
export type Command =
  /** Microphone on or off (off: frames are ignored, any turn in progress ends). */
  | { type: 'set-listening'; listening: boolean }
  /** The hold-to-talk button or Space key (push-to-talk mode). */
  | { type: 'push-to-talk'; down: boolean }
  /** Stop the answer now (a button, Escape). */
  | { type: 'interrupt' }
  /** Forget the conversation so far. */
  | { type: 'reset-conversation' }
  /** The player's stream position (ms), what has actually reached the speaker. */
  | { type: 'playback-progress'; position: number }
  /** First run: download the models in the setup plan. */
  | { type: 'download-models' }
  | { type: 'cancel-download' }
  /** The Timers panel's Cancel: the pending timer or alarm with this id (unknown or finished: nothing happens). */
  | { type: 'cancel-timer'; id: string }
  /** The Timers panel's Stop: silences whatever rings. */
  | { type: 'stop-ringing' }
  /** The window's Run or Cancel for the open question about a tool that changes something (an old id: nothing happens). */
  | { type: 'confirm-tool'; id: string; run: boolean }
  /** One-shot mode: listen for one turn (the Talk button, the global shortcut, the tray); over an answer, stop it first. */
  | { type: 'activate' }
  /** The microphone opened: what the browser applied to it (echo cancellation, gain, rate...), as its track reports. */
  | { type: 'microphone-settings'; settings: MicrophoneSettings }
  /** The Memory panel's Delete and Clear all (ipc-memory.ts). */
  | MemoryCommand;

/** The longest timer id a command may carry (the book's own ids are short: "t12"). */
export const MAX_TIMER_ID_LENGTH = 64;

export type { ModelKind };

export interface ModelStatus {
  kind: ModelKind;
  /** missing: an optional model (the end-of-turn one) is not installed, and the assistant runs without it. */
  state: 'waiting' | 'loading' | 'ready' | 'error' | 'missing';
  id?: string;
  name?: string;
  loadMs?: number;
  /** Which file layout the engine found (the VAD's: silero-v5, silero-v4 or k2-fsa). */
  layout?: string;
  /** The voice model's number of voices (speakers), once loaded. */
  voices?: number;
  /** For an optional model that is missing or could not be used: what that means and how to get it. */
  detail?: string;
}

/** Where the LLM runs, as the models panel shows it. */
export type LlmStatus = Pick<LlmInfo, 'backend' | 'gpuDevices' | 'gpuLayers' | 'totalLayers' | 'contextSize' | 'softwareGpuSkipped' | 'cpuReason'> & {
  /** With backend 'server': where the model runs, and the local model that stands in when it fails (null: none installed). */
  server?: { baseUrl: string; model: string; fallback: string | null };
};

/** First run: what must be downloaded, and how that is going. */
export interface SetupStatus extends SetupPlan {
  /** Where the models go. */
  folder: string;
  state: 'waiting' | 'downloading' | 'failed' | 'cancelled';
  error: string | null;
  /** Each downloaded model is loaded and run once before it counts as installed (by model id). */
  checks: Record<string, ModelCheckStatus>;
}

export interface ModelCheckStatus {
  /** skipped: an optional model could not be downloaded or did not work; the assistant starts without it. */
  state: 'checking' | 'ok' | 'failed' | 'skipped';
  /** What it did ("heard …"), or what failed. */
  detail: string | null;
}

export interface AppStatus {
  /**
   * starting: settings not read yet; setup: models must be downloaded first (see `setup`);
   * loading: models loading; ready: listening possible; error: see `error`.
   */
  phase: 'starting' | 'setup' | 'loading' | 'ready' | 'error';
  setup: SetupStatus | null;
  listening: boolean;
  models: ModelStatus[];
  llm: LlmStatus | null;
  /**
   * The desktop around the window: whether this is the app (dev:web has no global shortcut, tray or
   * login item), and the global shortcut in effect, or why the one in settings is not.
   */
  desktop: {
    shell: boolean;
    shortcut: string;
    shortcutError: string | null;
    /** What to know about a shortcut in effect (on Wayland the desktop asks the user to confirm it); null: nothing. */
    shortcutNote?: string | null;
  };
  /**
   * The LLM server's API key: whether one is stored, how it is protected, and the server it is for
   * (it is sent nowhere else; null when none is stored). The key itself never reaches the window.
   */
  apiKey: { stored: boolean; protection: string; for: string | null };
  /** What the browser applied to the microphone, as the window last reported it; null until a microphone opens. */
  microphone: MicrophoneSettings | null;
  /** The app's microphone watchdog: why no sound has come from the microphone for seconds, or null. */
  microphoneProblem: string | null;
  /** The assistant asked before running a tool that changes something and waits for a yes (Run and Cancel in the window); null: no question open. */
  confirmation: PendingConfirmation | null;
  /** The tools the model may call, built-in and each MCP server's, with its state, for the Tools panel. */
  tools: ToolsStatus;
  /** Why the assistant is not available, and what to do about it. */
  error: string | null;
}

export interface Snapshot {
  settings: Settings;
  status: AppStatus;
  /** Notices raised before this renderer connected (e.g. a corrupt settings file was replaced). */
  notices: string[];
  /** Timers and alarms pending or ringing (later changes arrive as pipeline `timers` events). */
  timers: TimerView[];
  /** What the assistant is doing now (later changes arrive as pipeline `state` events): 'idle' in one-shot mode between activations. */
  state: AssistantState;
  /** The remembered facts, whether memory is on, and why the file could not be used (later changes arrive as pipeline `memory` events). */
  memory: MemoryView;
}

/** Requests that get an answer. */
export type Request =
  | { type: 'get-snapshot' }
  | { type: 'update-settings'; patch: unknown }
  | { type: 'reset-settings' }
  /** The LLM server's model list, at `baseUrl` (default: the one in settings), with the stored key. */
  | { type: 'llm-server-models'; baseUrl?: string }
  /** Checks the address, key and model with the model list and a one-token answer (default: the settings' server). */
  | { type: 'llm-server-test'; baseUrl?: string; model?: string }
  /** Stores the LLM server's API key (encrypted) for the server at `baseUrl` (default: the settings'), or removes it (null or ''). */
  | { type: 'set-api-key'; key: string | null; baseUrl?: string }
  /** The conversation history (electron/history/): its sessions newest first, one session's turns, a summary, or delete it all. */
  | { type: 'history-sessions' }
  | { type: 'history-session'; id: string }
  /** `since`: an ISO date or time; only turns that ended at or after it. */
  | { type: 'history-summary'; since?: string }
  | { type: 'clear-history' }
  /** Whether the system lets the app use the microphone (asks once on macOS); the window asks before opening it. */
  | { type: 'microphone-access' };

/** `update-settings` answers with the new settings, or why the patch was refused (nothing saved). */
export type SettingsUpdateResult = { ok: true; settings: Settings } | { ok: false; error: string };

export interface Responses {
  'get-snapshot': Snapshot;
  'update-settings': SettingsUpdateResult;
  'reset-settings': SettingsUpdateResult;
  'llm-server-models': { ok: true; models: string[] } | { ok: false; error: string };
  'llm-server-test': { ok: true; models: string[]; firstTokenMs: number } | { ok: false; error: string };
  'set-api-key': { ok: true; stored: boolean } | { ok: false; error: string };
  'history-sessions': HistoryResult<{ sessions: HistorySessionInfo[] }>;
  'history-session': HistoryResult<{ session: HistorySession }>;
  'history-summary': HistoryResult<{ summary: LogSummary }>;
  'clear-history': HistoryResult;
  /** Not ok: the system denied it, and the message says where to allow it. */
  'microphone-access': { ok: true } | { ok: false; message: string };
}

/** History requests answer with their data, or why they could not (a file error, an unknown session). */
export type HistoryResult<T = unknown> = ({ ok: true } & T) | { ok: false; error: string };
export type ResponseOf<R extends Request> = Responses[R['type']];

/** Everything main tells the renderer besides audio. */
export type AppEvent =
  | { type: 'pipeline'; event: PipelineEvent }
  | { type: 'settings'; settings: Settings }
  | { type: 'status'; status: AppStatus }
  | { type: 'notice'; level: 'info' | 'error'; message: string }
  /** First-run download progress, per file. */
  | { type: 'download'; progress: FileProgress }
  /** A turn was added to the conversation history: `turns` logged so far in session `session`. */
  | { type: 'history'; session: string; turns: number }
  /** The microphone sent nothing for seconds, or the system resumed from sleep: the window reopens it. */
  | { type: 'microphone-restart' };

/** What the renderer talks to: `window.assistant` in the app, a WebSocket client in a browser. */
export interface AssistantApi {
  /** Sends one frame of 16 kHz mono audio (at most MAX_MIC_FRAME_SAMPLES samples). */
  sendAudio(frame: Float32Array): void;
  send(command: Command): void;
  request<R extends Request>(request: R): Promise<ResponseOf<R>>;
  /** Each subscription returns a function that unsubscribes. */
  onEvent(cb: (event: AppEvent) => void): () => void;
  onAudio(cb: (audio: AssistantAudio) => void): () => void;
  onAudioControl(cb: (control: AssistantAudioControl) => void): () => void;
}

// ---------------------------------------------------------------------------
// Validation at the boundary: anything from the renderer is untrusted input.

export function parseCommand(v: unknown): Parsed<Command> {
  if (!isRecord(v) || typeof v.type !== 'string') return { ok: false, error: 'a command must be an object with a "type"' };
  const bad = (msg: string): Parsed<Command> => ({ ok: false, error: `command ${JSON.stringify(v.type).slice(0, 40)}: ${msg}` });
  switch (v.type) {
    case 'set-listening': {
      const extra = onlyKeys(v, ['type', 'listening'], 'set-listening');
      if (extra) return bad(extra);
      return typeof v.listening === 'boolean' ? { ok: true, value: { type: v.type, listening: v.listening } } : bad('"listening" must be true or false');
    }
    case 'push-to-talk': {
      const extra = onlyKeys(v, ['type', 'down'], 'push-to-talk');
      if (extra) return bad(extra);
      return typeof v.down === 'boolean' ? { ok: true, value: { type: v.type, down: v.down } } : bad('"down" must be true or false');
    }
    case 'interrupt':
    case 'reset-conversation':
    case 'download-models':
    case 'cancel-download':
    case 'stop-ringing':
    case 'activate': {
      const extra = onlyKeys(v, ['type'], v.type);
      return extra ? bad(extra) : { ok: true, value: { type: v.type } };
    }
    case 'playback-progress': {
      const extra = onlyKeys(v, ['type', 'position'], 'playback-progress');
      if (extra) return bad(extra);
      return typeof v.position === 'number' && Number.isFinite(v.position) && v.position >= 0
        ? { ok: true, value: { type: v.type, position: v.position } }
        : bad('"position" must be a finite number of ms, 0 or more');
    }
    case 'cancel-timer': {
      const extra = onlyKeys(v, ['type', 'id'], 'cancel-timer');
      if (extra) return bad(extra);
      return typeof v.id === 'string' && v.id.length > 0 && v.id.length <= MAX_TIMER_ID_LENGTH
        ? { ok: true, value: { type: v.type, id: v.id } }
        : bad(`"id" must be a timer id (a string of 1 to ${MAX_TIMER_ID_LENGTH} characters)`);
    }
    case 'confirm-tool': {
      const extra = onlyKeys(v, ['type', 'id', 'run'], 'confirm-tool');
      if (extra) return bad(extra);
      if (typeof v.run !== 'boolean') return bad('"run" must be true (Run) or false (Cancel)');
      return typeof v.id === 'string' && /^confirm-\d{1,12}$/.test(v.id) ? { ok: true, value: { type: v.type, id: v.id, run: v.run } } : bad('"id" must be the open question\'s id (confirm-N)');
    }
    case 'microphone-settings': {
      const extra = onlyKeys(v, ['type', 'settings'], 'microphone-settings');
      if (extra) return bad(extra);
      const problem = microphoneProblem(v.settings);
      return problem ? bad(`"settings" ${problem}`) : { ok: true, value: { type: v.type, settings: v.settings as MicrophoneSettings } };
    }
    default: {
      const memory = parseMemoryCommand(v);
      return memory ? (memory.ok ? memory : bad(memory.error)) : bad('is not a known command');
    }
  }
}

/** Null when `value` is absent or text of at most `max` characters; else the error. */
function optionalText(value: unknown, name: string, max: number): string | null {
  return value === undefined || (typeof value === 'string' && value.length <= max) ? null : `"${name}" must be text of at most ${max} characters`;
}

export function parseRequest(v: unknown): Parsed<Request> {
  if (!isRecord(v) || typeof v.type !== 'string') return { ok: false, error: 'a request must be an object with a "type"' };
  switch (v.type) {
    case 'get-snapshot':
    case 'reset-settings':
    case 'history-sessions':
    case 'clear-history':
    case 'microphone-access': {
      const extra = onlyKeys(v, ['type'], v.type);
      return extra ? { ok: false, error: extra } : { ok: true, value: { type: v.type } };
    }
    case 'update-settings': {
      const extra = onlyKeys(v, ['type', 'patch'], v.type);
      // The patch itself is validated field by field against the settings schema.
      return extra ? { ok: false, error: extra } : { ok: true, value: { type: v.type, patch: v.patch } };
    }
    case 'llm-server-models': {
      const extra = onlyKeys(v, ['type', 'baseUrl'], v.type) ?? optionalText(v.baseUrl, 'baseUrl', 2000);
      return extra ? { ok: false, error: extra } : { ok: true, value: { type: v.type, ...(typeof v.baseUrl === 'string' ? { baseUrl: v.baseUrl } : {}) } };
    }
    case 'llm-server-test': {
      const extra = onlyKeys(v, ['type', 'baseUrl', 'model'], v.type) ?? optionalText(v.baseUrl, 'baseUrl', 2000) ?? optionalText(v.model, 'model', 200);
      if (extra) return { ok: false, error: extra };
      return { ok: true, value: { type: v.type, ...(typeof v.baseUrl === 'string' ? { baseUrl: v.baseUrl } : {}), ...(typeof v.model === 'string' ? { model: v.model } : {}) } };
    }
    case 'set-api-key': {
      const extra = onlyKeys(v, ['type', 'key', 'baseUrl'], v.type) ?? optionalText(v.baseUrl, 'baseUrl', 2000);
      if (extra) return { ok: false, error: extra };
      const address = typeof v.baseUrl === 'string' ? { baseUrl: v.baseUrl } : {};
      // The message never repeats the value: it is a secret.
      if (v.key === null) return { ok: true, value: { type: v.type, key: null, ...address } };
      if (typeof v.key !== 'string') return { ok: false, error: 'set-api-key: "key" must be text, or null to remove it' };
      const problem = apiKeyProblem(v.key.trim());
      // Pasted keys often bring a line break along: the ends are trimmed, the inside must be clean.
      return problem ? { ok: false, error: problem } : { ok: true, value: { type: v.type, key: v.key.trim(), ...address } };
    }
    case 'history-session': {
      const extra = onlyKeys(v, ['type', 'id'], v.type);
      if (extra) return { ok: false, error: extra };
      // Only the id's own shape passes: it never names a path (the controller also checks that it is listed).
      return typeof v.id === 'string' && SESSION_ID.test(v.id)
        ? { ok: true, value: { type: v.type, id: v.id } }
        : { ok: false, error: 'history-session: "id" must be a session id from history-sessions' };
    }
    case 'history-summary': {
      const extra = onlyKeys(v, ['type', 'since'], v.type);
      if (extra) return { ok: false, error: extra };
      if (v.since === undefined) return { ok: true, value: { type: v.type } };
      return typeof v.since === 'string' && v.since.length <= 64 && !Number.isNaN(Date.parse(v.since))
        ? { ok: true, value: { type: v.type, since: v.since } }
        : { ok: false, error: 'history-summary: "since" must be a date or time such as "2026-12-01" or "2026-12-01T08:00:00Z"' };
    }
    default:
      return { ok: false, error: `request ${JSON.stringify(v.type).slice(0, 40)} is not a known request` };
  }
}

/** A microphone frame as the boundary accepts it; anything else is dropped. */
export function isMicFrame(v: unknown): v is Float32Array {
  return v instanceof Float32Array && v.length > 0 && v.length <= MAX_MIC_FRAME_SAMPLES;
}
