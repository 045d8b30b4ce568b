/**
 * The settings schema: one typed source of defaults, numeric ranges and
 * validation, shared by the headless CLI (`--settings FILE`) and the app
 * (settings persisted in the user data dir, live updates from the UI).
 */
import { UserError } from '../errors';
import { checkShortcutSetting } from './accelerator';
import { apiKeyProblem } from '../secrets/api-key-shape';
import { DEFAULT_ACKNOWLEDGEMENTS } from '../pipeline/respond/acknowledgement';
import { describe } from './describe-value';
import { checkMcpServers, isStdioServer, type McpServerSettings } from './mcp-servers';
import { editDistance } from '../text/edit-distance';

/**
 * hands-free: always listening; push-to-talk: a key held for the turn; one-shot: an activation (the
 * global shortcut, the tray, the button) listens for one turn, then the microphone is idle again;
 * wake-phrase: always listening, but only speech that begins with `wakePhrase` is a request.
 */
export type Mode = 'hands-free' | 'push-to-talk' | 'one-shot' | 'wake-phrase';
export type LlmGpu = 'auto' | 'cuda' | 'vulkan' | 'metal' | 'cpu';
/** Where the language model runs: node-llama-cpp on this machine, or an OpenAI-compatible server. */
export type LlmProvider = 'local' | 'openai-compatible';

/** An OpenAI-compatible server (Ollama, LM Studio, llama.cpp's server, vLLM). */
export interface LlmServer {
  /** As the server documents it, ending in /v1, e.g. http://localhost:11434/v1; '' = not set. */
  baseUrl: string;
  /** The model name the server knows; '' = not set. */
  model: string;
  /** After the answer's first text, the longest wait for more: a stalled stream ends the answer there. */
  stallMs: number;
  /**
   * Only in a settings file given to `talk`/`bench`. The app keeps the key out of settings.json
   * (encrypted with Electron's safeStorage, or an owner-only file in dev:web) and never sends it to
   * the window.
   */
  apiKey?: string;
}

export interface Settings {
  mode: Mode;
  /** In wake-phrase mode, what a request begins with ("hey computer, what time is it"). */
  wakePhrase: string;
  endpointing: {
    vadThreshold: number;
    minSpeechMs: number;
    silenceMs: number;
    prefixPaddingMs: number;
    maxTurnMs: number;
    /** Ask the end-of-turn model (when one is installed) whether a pause ends the turn. */
    turnModel: boolean;
    /** How far into a pause the model is asked. */
    turnCheckMs: number;
    /** The model's probability at or above which the turn is finished. */
    turnThreshold: number;
    /** With the model: the longest pause inside a turn that sounds unfinished (the ceiling). */
    maxPauseMs: number;
  };
  bargeIn: {
    enabled: boolean;
    minSpeechMs: number;
    falseInterruptionMs: number;
    /** Speech over the answer that is only an acknowledgement ("mm-hmm", "okay") neither stops it nor becomes a turn. */
    backchannels: boolean;
    /**
     * With backchannels on: the answer falls silent at the first sound of speech over it, for at
     * most this long while its words are judged (0: only lowered). A real interruption is stopped
     * at once; an acknowledgement, or words not yet known, let it play on lowered.
     */
    onsetHoldMs: number;
    /** The acknowledgements, comma-separated ("mm-hmm, yeah, got it"); words spelled only with humming sounds count too. */
    acknowledgements: string;
  };
  turnBudgetMs: number;
  /** Prepare the answer while the user pauses (transcript, LLM, first audio), played only if the turn ends with the same words. */
  prepareAnswers: boolean;
  stt: { partialIntervalMs: number };
  llm: {
    systemPrompt: string;
    temperature: number;
    maxTokens: number;
    gpuLayers: 'auto' | number;
    contextSize: number;
    threads: number;
    gpu: LlmGpu;
    provider: LlmProvider;
    server: LlmServer;
  };
  tts: { speakerId: number; speed: number; firstChunkWords: number };
  /** Catalog ids (dir: a folder path); null = the default. */
  models: { dir: string | null; vad: string | null; stt: string | null; llm: string | null; tts: string | null; turn: string | null };
  /** The conversation history (electron/history/): logText false keeps each turn's timings but not its words. */
  history: { logText: boolean };
  /**
   * Facts the user asked the assistant to keep (electron/memory/): off, none are kept, used or
   * searched; maxTokens bounds what they take of each conversation's system prompt.
   */
  memory: { enabled: boolean; maxTokens: number };
  /** The desktop around the window: the global shortcut, the tray, start at login, the one-shot chime. */
  desktop: {
    /** An Electron accelerator that activates one-shot listening from any program; '' = none. */
    shortcut: string;
    /** Closing the window keeps the assistant running in the tray (where the platform has one). */
    closeToTray: boolean;
    startAtLogin: boolean;
    /** A short chime when one-shot listening starts and stops. */
    listenChime: boolean;
  };
  /**
   * Tools the language model may call (electron/tools/): how long one call may take, the built-in
   * ones on or off, and the MCP servers whose tools it may call (settings/mcp-servers.ts).
   */
  tools: { timeoutMs: number; builtIn: { notes: boolean; clipboard: boolean; open: boolean }; mcpServers: McpServerSettings[] };
}

/** Arrays and primitives are replaced whole; objects may be given in part. */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

export interface FieldError {
  /** Dotted path, e.g. 'endpointing.silenceMs' ('' for the whole input). */
  path: string;
  /** A predicate that reads after the path, e.g. 'must be a number between 100 and 5000 (ms), got "abc"'. */
  message: string;
}

export interface NumericRange {
  min: number;
  max: number;
  /** Slider step only; validation does not snap values to it. */
  step: number;
  unit: string;
  label: string;
  /** Whole numbers only (validated). */
  integer: boolean;
  /** Extra meaning of special values, shown in messages and the UI. */
  note?: string;
}

/** Dotted paths of every field whose value is (or may be) a number. */
type NumericPaths<T> = {
  [K in keyof T & string]: number extends T[K]
    ? K
    : T[K] extends readonly unknown[]
      ? never
      : T[K] extends object
      ? `${K}.${NumericPaths<T[K]>}`
      : never;
}[keyof T & string];

export type NumericSettingPath = NumericPaths<Settings>;

/**
 * Min/max/step/unit/label per numeric field: the UI builds its sliders from
 * this and validation checks against it, so the two cannot drift apart.
 * `satisfies` makes the compiler require exactly one entry per numeric field.
 */
export const SETTINGS_RANGES = {
  'endpointing.vadThreshold': { min: 0.05, max: 0.95, step: 0.01, unit: '', label: 'Speech detection threshold', integer: false },
  'endpointing.minSpeechMs': { min: 0, max: 2000, step: 10, unit: 'ms', label: 'Minimum speech to start a turn', integer: true },
  'endpointing.silenceMs': { min: 100, max: 5000, step: 50, unit: 'ms', label: 'Silence that ends a turn', integer: true },
  'endpointing.prefixPaddingMs': { min: 0, max: 1000, step: 10, unit: 'ms', label: 'Audio kept before speech starts', integer: true },
  'endpointing.maxTurnMs': { min: 2000, max: 120000, step: 1000, unit: 'ms', label: 'Longest turn', integer: true },
  'endpointing.turnCheckMs': { min: 50, max: 1000, step: 10, unit: 'ms', label: 'Pause before the end-of-turn model is asked', integer: true },
  'endpointing.turnThreshold': { min: 0.05, max: 0.95, step: 0.01, unit: '', label: 'End-of-turn model: finished at or above', integer: false },
  'endpointing.maxPauseMs': { min: 300, max: 5000, step: 50, unit: 'ms', label: 'Longest pause inside an unfinished sentence', integer: true },
  'bargeIn.minSpeechMs': { min: 0, max: 2000, step: 10, unit: 'ms', label: 'Speech needed to interrupt', integer: true },
  'bargeIn.falseInterruptionMs': { min: 200, max: 10000, step: 100, unit: 'ms', label: 'Resume after a false interruption', integer: true },
  'bargeIn.onsetHoldMs': { min: 0, max: 250, step: 10, unit: 'ms', label: 'Silence the answer while your first sound is judged', integer: true },
  turnBudgetMs: { min: 500, max: 10000, step: 100, unit: 'ms', label: 'Wait before a holding phrase', integer: true },
  'stt.partialIntervalMs': { min: 100, max: 2000, step: 50, unit: 'ms', label: 'Partial transcript interval', integer: true },
  'llm.temperature': { min: 0, max: 2, step: 0.05, unit: '', label: 'Temperature', integer: false },
  'llm.maxTokens': { min: 16, max: 4096, step: 16, unit: 'tokens', label: 'Longest answer', integer: true },
  'llm.gpuLayers': { min: 0, max: 999, step: 1, unit: 'layers', label: 'Layers on the GPU', integer: true },
  'llm.contextSize': { min: 512, max: 131072, step: 512, unit: 'tokens', label: 'Context size', integer: true },
  'llm.threads': { min: 0, max: 256, step: 1, unit: 'threads', label: 'CPU threads', integer: true, note: '0 = auto' },
  'tools.timeoutMs': { min: 1000, max: 120000, step: 1000, unit: 'ms', label: 'A tool call may take', integer: true },
  'llm.server.stallMs': { min: 1000, max: 120000, step: 1000, unit: 'ms', label: 'Server silent mid-answer: give up after', integer: true },
  'tts.speakerId': { min: 0, max: 9999, step: 1, unit: '', label: 'Voice (speaker id)', integer: true },
  'tts.speed': { min: 0.5, max: 2, step: 0.05, unit: 'x', label: 'Speaking speed', integer: false },
  'tts.firstChunkWords': { min: 0, max: 20, step: 1, unit: 'words', label: 'First spoken chunk', integer: true, note: '0 = the whole first clause' },
  'memory.maxTokens': { min: 0, max: 4000, step: 50, unit: 'tokens', label: 'Memory in each conversation', integer: true, note: 'newest facts first' },
} as const satisfies Record<NumericSettingPath, NumericRange>;

export const MODES: readonly Mode[] = ['hands-free', 'push-to-talk', 'one-shot', 'wake-phrase'];
export const LLM_GPUS: readonly LlmGpu[] = ['auto', 'cuda', 'vulkan', 'metal', 'cpu'];
export const LLM_PROVIDERS: readonly LlmProvider[] = ['local', 'openai-compatible'];

const SYSTEM_PROMPT_MAX = 8000;

const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful voice assistant running privately on this computer. ' +
  'Your replies are spoken aloud, so answer in one to three short sentences of plain, natural speech. ' +
  'Never use markdown, lists, headings, code blocks, emoji or URLs; write numbers, units and symbols the way a person would say them. ' +
  'If a request is unclear, ask one short question. If you do not know something, say so briefly.';

export const DEFAULT_SETTINGS: Settings = deepFreeze({
  // Hands-free is the point of a voice assistant; push-to-talk is for noisy rooms.
  mode: 'hands-free',
  // Two words the recognizer knows, unlikely at the start of talk not meant for the assistant.
  wakePhrase: 'hey computer',
  endpointing: {
    // Silero VAD's own recommended speech probability cut-off.
    vadThreshold: 0.5,
    // Ignores clicks and coughs, yet a short "yes" (~300 ms) still counts.
    minSpeechMs: 250,
    // Long enough for a breath between words, short enough to feel responsive.
    silenceMs: 600,
    // The VAD fires slightly late; keeping 300 ms before it saves the first syllable.
    prefixPaddingMs: 300,
    // Forces an end of turn if noise keeps the VAD open forever.
    maxTurnMs: 30000,
    // TURN-DEFAULTS
    turnModel: true,
    turnCheckMs: 200,
    turnThreshold: 0.5,
    maxPauseMs: 1600,
  },
  bargeIn: {
    // Interrupting the assistant by talking over it is expected in conversation.
    enabled: true,
    // Higher than endpointing's 250 ms: the assistant's own echo or a cough must not cut it off.
    minSpeechMs: 400,
    // If an interruption yields no words within 1.5 s, it was noise: resume speaking.
    falseInterruptionMs: 1500,
    // People say "mm-hmm" while listening; it must not stop the answer or be answered.
    backchannels: true,
    // Silent within a VAD window of the user's first sound (a real "stop" must not talk on), and
    // back, lowered, before the gap is heard as one (an "mm-hmm" must leave none over 250 ms).
    onsetHoldMs: 200,
    acknowledgements: DEFAULT_ACKNOWLEDGEMENTS,
  },
  // Past ~2.5 s of silence after the user stops, people assume they were not heard.
  turnBudgetMs: 2500,
  // A finished question is answered as soon as the turn ends, not an LLM-and-TTS later; work done
  // for a pause the user talks on through is dropped (it costs engine time, never a wrong answer).
  prepareAnswers: true,
  // ~3 partial updates a second looks live without re-decoding all the time.
  stt: { partialIntervalMs: 300 },
  llm: {
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
    // Natural-sounding but still on-topic replies.
    temperature: 0.7,
    // Spoken answers are short; this caps a runaway answer at about two minutes of speech.
    maxTokens: 512,
    // Let node-llama-cpp fit as many layers as the GPU's free memory allows.
    gpuLayers: 'auto',
    // Room for a system prompt plus a dozen short exchanges; small enough for any GPU.
    contextSize: 4096,
    // 0 lets node-llama-cpp pick from the number of cores.
    threads: 0,
    // Pick the best backend that is actually available on this machine.
    gpu: 'auto',
    // Private by default: nothing leaves the machine unless the user points to a server.
    provider: 'local',
    // Long enough for a busy server's pauses, short enough that a stalled one does not hold the turn.
    server: { baseUrl: '', model: '', stallMs: 10_000 },
  },
  // Speaker 0 exists in every voice model; 1.0 is the model's natural pace.
  tts: { speakerId: 0, speed: 1, firstChunkWords: 4 },
  // null = the defaults chosen by the model catalog and the user data dir.
  models: { dir: null, vad: null, stt: null, llm: null, tts: null, turn: null },
  // The words are what makes a past turn readable; the log stays on this machine, and this turns them off.
  history: { logText: true },
  // Remembering is what the user asks for; 400 tokens is about 30 short facts, evaluated once per
  // conversation (a small CPU model evaluates it in a few seconds at load).
  memory: { enabled: true, maxTokens: 400 },
  desktop: {
    // Ctrl+Alt+Space / Cmd+Option+Space: no common system or application shortcut on Windows and
    // Linux desktops; on macOS it may meet Finder's search window (a taken shortcut is reported).
    shortcut: 'CommandOrControl+Alt+Space',
    // An assistant you call from other programs should outlive its window.
    closeToTray: true,
    // Starting with the system is the user's choice, not ours.
    startAtLogin: false,
    // In one-shot mode the user is looking elsewhere: a sound says the microphone opened and closed.
    listenChime: true,
  },
  // Ten seconds is long for a voice turn; the holding phrase covers the wait.
  // No MCP server until the user adds one: each is a program or a service of their choosing.
  tools: { timeoutMs: 10000, builtIn: { notes: true, clipboard: true, open: true }, mcpServers: [] },
});

// ---------------------------------------------------------------------------
// Field specs: what each leaf accepts. Mapped from Settings so that adding a
// field without a spec (or a spec without a field) fails to compile.

const LEAF = Symbol('settings-leaf');

/** `problems`: several mistakes inside one value (a list of servers), each at a path after the setting's. */
type Check = { ok: true; value: unknown } | { ok: false; message: string } | { ok: false; problems: readonly { at: string; message: string }[] };
interface Leaf {
  readonly [LEAF]: true;
  check(value: unknown): Check;
}
/** One `L` per setting, nested as in `T`: a setting without its entry (or an entry without its setting) fails to compile. */
export type PerSetting<T, L> = { readonly [K in keyof T]-?: T[K] extends readonly unknown[] ? L : T[K] extends object ? PerSetting<T[K], L> : L };
type Group = { readonly [key: string]: Group | Leaf };

function leaf(check: (value: unknown) => Check): Leaf {
  return { [LEAF]: true, check };
}

function isLeaf(node: Group | Leaf): node is Leaf {
  return LEAF in node;
}

function rangeText(r: NumericRange): string {
  const extras = [r.unit, r.note].filter(Boolean).join(', ');
  return `${r.integer ? 'a whole number' : 'a number'} between ${r.min} and ${r.max}${extras ? ` (${extras})` : ''}`;
}

function inRange(r: NumericRange, value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= r.min &&
    value <= r.max &&
    (!r.integer || Number.isInteger(value))
  );
}

function num(path: NumericSettingPath): Leaf {
  const r: NumericRange = SETTINGS_RANGES[path];
  return leaf((v) => (inRange(r, v) ? { ok: true, value: v } : { ok: false, message: `must be ${rangeText(r)}, got ${describe(v)}` }));
}

function numOrAuto(path: NumericSettingPath): Leaf {
  const r: NumericRange = SETTINGS_RANGES[path];
  return leaf((v) =>
    v === 'auto' || inRange(r, v)
      ? { ok: true, value: v }
      : { ok: false, message: `must be "auto" or ${rangeText(r)}, got ${describe(v)}` },
  );
}

function oneOf(values: readonly string[]): Leaf {
  const list = values.map((v) => JSON.stringify(v)).join(', ');
  return leaf((v) =>
    typeof v === 'string' && values.includes(v) ? { ok: true, value: v } : { ok: false, message: `must be one of ${list}, got ${describe(v)}` },
  );
}

const bool = leaf((v) => (typeof v === 'boolean' ? { ok: true, value: v } : { ok: false, message: `must be true or false, got ${describe(v)}` }));

const systemPrompt = leaf((v) =>
  typeof v === 'string' && v.length <= SYSTEM_PROMPT_MAX
    ? { ok: true, value: v }
    : {
        ok: false,
        message:
          typeof v === 'string'
            ? `must be at most ${SYSTEM_PROMPT_MAX} characters, got ${v.length}`
            : `must be a string (text), got ${describe(v)}`,
      },
);

/** A non-empty string or null; `what` says what the string names. */
function optionalName(what: string): Leaf {
  return leaf((v) =>
    v === null || (typeof v === 'string' && v.trim() !== '' && v.length <= 4096)
      ? { ok: true, value: v }
      : { ok: false, message: `must be ${what}, or null for the default, got ${describe(v)}` },
  );
}

/** A string of at most `max` characters ('' allowed: not set). */
function text(what: string, max: number): Leaf {
  return leaf((v) =>
    typeof v === 'string' && v.length <= max
      ? { ok: true, value: v.trim() }
      : { ok: false, message: `must be ${what}, at most ${max} characters, got ${describe(v)}` },
  );
}

/** One to six words of letters (what a recognizer can write), at most 60 characters. */
const wakePhrase = leaf((v) => {
  const t = typeof v === 'string' ? v.trim().replace(/\s+/g, ' ') : null;
  return t !== null && t.length <= 60 && /^[\p{L}' -]+$/u.test(t) && t.split(' ').length <= 6 && /\p{L}/u.test(t)
    ? { ok: true, value: t }
    : { ok: false, message: `must be one to six words of letters, at most 60 characters (e.g. "hey computer"), got ${describe(v)}` };
});

/** Never echoes the value: an error message may reach a log or the window. */
const apiKeyLeaf = leaf((v) => {
  if (typeof v !== 'string') return { ok: false, message: 'must be the API key as text (the value is not shown)' };
  const problem = apiKeyProblem(v.trim());
  return problem ? { ok: false, message: `is not an API key: ${problem}` } : { ok: true, value: v.trim() };
});

/** '' (not set) or an http(s) URL, stored without trailing slashes. */
const serverUrl = leaf((v) => {
  if (typeof v !== 'string' || v.length > 2000) return { ok: false, message: `must be the server's address, e.g. "http://localhost:11434/v1", got ${describe(v)}` };
  const trimmed = v.trim().replace(/\/+$/, '');
  if (trimmed === '') return { ok: true, value: '' };
  let protocol = '';
  try {
    protocol = new URL(trimmed).protocol;
  } catch {
    // not a URL: reported below
  }
  return protocol === 'http:' || protocol === 'https:'
    ? { ok: true, value: trimmed }
    : { ok: false, message: `must be an http(s) address as the server documents it, e.g. "http://localhost:11434/v1", got ${describe(v)}` };
});

const SCHEMA: PerSetting<Settings, Leaf> = {
  mode: oneOf(MODES),
  wakePhrase,
  endpointing: {
    vadThreshold: num('endpointing.vadThreshold'),
    minSpeechMs: num('endpointing.minSpeechMs'),
    silenceMs: num('endpointing.silenceMs'),
    prefixPaddingMs: num('endpointing.prefixPaddingMs'),
    maxTurnMs: num('endpointing.maxTurnMs'),
    turnModel: bool,
    turnCheckMs: num('endpointing.turnCheckMs'),
    turnThreshold: num('endpointing.turnThreshold'),
    maxPauseMs: num('endpointing.maxPauseMs'),
  },
  bargeIn: {
    enabled: bool,
    minSpeechMs: num('bargeIn.minSpeechMs'),
    falseInterruptionMs: num('bargeIn.falseInterruptionMs'),
    backchannels: bool,
    onsetHoldMs: num('bargeIn.onsetHoldMs'),
    acknowledgements: text('acknowledgement phrases separated by commas, e.g. "mm-hmm, yeah, got it"', 1000),
  },
  turnBudgetMs: num('turnBudgetMs'),
  prepareAnswers: bool,
  stt: { partialIntervalMs: num('stt.partialIntervalMs') },
  llm: {
    systemPrompt,
    temperature: num('llm.temperature'),
    maxTokens: num('llm.maxTokens'),
    gpuLayers: numOrAuto('llm.gpuLayers'),
    contextSize: num('llm.contextSize'),
    threads: num('llm.threads'),
    gpu: oneOf(LLM_GPUS),
    provider: oneOf(LLM_PROVIDERS),
    server: {
      baseUrl: serverUrl,
      model: text('a model name the server knows (e.g. "llama3.2:3b")', 200),
      stallMs: num('llm.server.stallMs'),
      apiKey: apiKeyLeaf,
    },
  },
  tts: { speakerId: num('tts.speakerId'), speed: num('tts.speed'), firstChunkWords: num('tts.firstChunkWords') },
  models: {
    dir: optionalName('a folder path'),
    vad: optionalName('a model id from the catalog'),
    stt: optionalName('a model id from the catalog'),
    llm: optionalName('a model id from the catalog'),
    tts: optionalName('a model id from the catalog'),
    turn: optionalName('a model id from the catalog'),
  },
  history: { logText: bool },
  memory: { enabled: bool, maxTokens: num('memory.maxTokens') },
  desktop: {
    // Stored in canonical form; what only one platform refuses is reported when the app registers it.
    shortcut: leaf(checkShortcutSetting),
    closeToTray: bool,
    startAtLogin: bool,
    listenChime: bool,
  },
  tools: { timeoutMs: num('tools.timeoutMs'), builtIn: { notes: bool, clipboard: bool, open: bool }, mcpServers: leaf(checkMcpServers) },
};

// ---------------------------------------------------------------------------
// Validation

/**
 * Merges `input` (a partial settings object, e.g. parsed JSON) over `base`
 * and checks every field. All problems are reported, not just the first;
 * unknown keys are errors so that a typo is never silently ignored.
 * `base` is not modified. Keys whose value is `undefined` count as absent.
 */
export function validateSettings(
  input: unknown,
  base: Settings = DEFAULT_SETTINGS,
): { ok: true; value: Settings } | { ok: false; errors: FieldError[] } {
  if (!isPlainObject(input)) {
    return { ok: false, errors: [{ path: '', message: `must be an object like {"endpointing": {"silenceMs": 600}}, got ${describe(input)}` }] };
  }
  const value = structuredClone(base) as Settings;
  const errors: FieldError[] = [];
  walk(SCHEMA as unknown as Group, input, value as unknown as Record<string, unknown>, [], errors);
  return errors.length ? { ok: false, errors } : { ok: true, value };
}

/** Validated patch application for live updates; throws UserError listing every invalid field. */
export function mergeSettings(base: Settings, patch: DeepPartial<Settings>): Settings {
  const result = validateSettings(patch, base);
  if (!result.ok) throw new UserError(`Invalid settings: ${formatSettingsErrors(result.errors)}`, 'invalid-settings');
  return result.value;
}

/** One line listing every error ("a.b must be ...; c is an unknown setting ..."), capped for huge inputs. */
export function formatSettingsErrors(errors: readonly FieldError[], max = 20): string {
  const shown = errors.slice(0, max).map((e) => (e.path ? `${e.path} ${e.message}` : `settings ${e.message}`));
  if (errors.length > max) shown.push(`and ${errors.length - max} more`);
  return shown.join('; ');
}

function walk(group: Group, input: Record<string, unknown>, target: Record<string, unknown>, path: string[], errors: FieldError[]): void {
  for (const key of Object.keys(input)) {
    const value = input[key];
    const fieldPath = [...path, key];
    const shownPath = fieldPath.map(shortKey).join('.');
    // hasOwn, not `in`: keys like "toString" or "__proto__" must count as unknown.
    if (!Object.hasOwn(group, key)) {
      const hint = suggest(group, key, path);
      errors.push({ path: shownPath, message: `is an unknown setting${hint ? `; did you mean "${hint}"?` : ''}` });
      continue;
    }
    if (value === undefined) continue;
    const node = group[key] as Group | Leaf;
    if (isLeaf(node)) {
      const r = node.check(value);
      if (r.ok) target[key] = r.value;
      else if ('problems' in r) for (const p of r.problems) errors.push({ path: `${shownPath}${p.at}`, message: p.message });
      else errors.push({ path: shownPath, message: r.message });
    } else if (!isPlainObject(value)) {
      const keys = Object.keys(node).join(', ');
      errors.push({ path: shownPath, message: `must be an object with the settings ${keys}, got ${describe(value)}` });
    } else {
      walk(node, value, target[key] as Record<string, unknown>, fieldPath, errors);
    }
  }
}

// ---------------------------------------------------------------------------
// Typo suggestions

let allLeafPaths: string[] | undefined;

function leafPaths(group: Group, prefix: string[] = []): string[] {
  return Object.entries(group).flatMap(([k, node]) =>
    isLeaf(node) ? [[...prefix, k].join('.')] : leafPaths(node, [...prefix, k]),
  );
}

/** The closest known key at the same level, else a field of that name elsewhere ("silenceMs" at top level). */
function suggest(group: Group, key: string, path: string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDist = Infinity;
  for (const known of Object.keys(group)) {
    const d = editDistance(lower, known.toLowerCase());
    if (d < bestDist) [best, bestDist] = [known, d];
  }
  if (best !== undefined && bestDist <= closeEnough(key)) return [...path, best].join('.');

  allLeafPaths ??= leafPaths(SCHEMA as unknown as Group);
  let bestPath: string | undefined;
  bestDist = Infinity;
  for (const p of allLeafPaths) {
    const d = editDistance(lower, (p.split('.').pop() ?? p).toLowerCase());
    if (d < bestDist) [bestPath, bestDist] = [p, d];
  }
  return bestDist <= closeEnough(key) ? bestPath : undefined;
}

function closeEnough(key: string): number {
  return Math.max(1, Math.floor(key.length / 4));
}

// ---------------------------------------------------------------------------
// Helpers

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function shortKey(key: string): string {
  return key.length > 60 ? `${key.slice(0, 60)}…` : key;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Frozen deep copy, so shared settings objects cannot be mutated behind the store's back. */
export function freezeSettings(settings: Settings): Settings {
  return deepFreeze(structuredClone(settings));
}

/** Settings without the LLM server's API key (the MCP servers' environment values untouched). */
export function withoutApiKey(s: Settings): Settings {
  if (s.llm.server.apiKey === undefined) return s;
  const { apiKey: _key, ...server } = s.llm.server;
  return { ...s, llm: { ...s.llm, server } };
}

/** The MCP servers with every environment value "" (the names kept): as settings.json keeps them. */
export function blankMcpEnv(servers: readonly McpServerSettings[]): McpServerSettings[] {
  return servers.map((m) => (isStdioServer(m) && Object.values(m.env).some((v) => v !== '') ? { ...m, env: Object.fromEntries(Object.keys(m.env).map((k) => [k, ''])) } : m));
}

/**
 * Settings without secrets, the LLM server's API key and the MCP servers' environment values (their
 * names stay): what the window, events, reports and logs may carry.
 */
export function withoutSecrets(s: Settings): Settings {
  const t = withoutApiKey(s);
  const servers = blankMcpEnv(t.tools.mcpServers);
  return servers.every((m, i) => m === t.tools.mcpServers[i]) ? t : { ...t, tools: { ...t.tools, mcpServers: servers } };
}
