/**
 * The conversation history's line format (one JSON object a line, one line a turn) and the shapes
 * the window gets. Pure: the renderer imports these types, and reading lines needs no file system.
 */
import { turnStages, type StageDistributions, type TurnStages } from '../bench/stages';
import type { TurnReport } from '../pipeline/report';
import type { Distribution } from '../stats';
import { microphoneProblem, type LoggedMicrophone } from '../microphone-settings';

export type { StageDistributions, TurnStages };

export type LoggedModelKind = 'vad' | 'stt' | 'llm' | 'tts' | 'turn';
export const LOGGED_MODEL_KINDS: readonly LoggedModelKind[] = ['vad', 'stt', 'llm', 'tts', 'turn'];

export interface LoggedTurn {
  v: 1;
  /** The session (one app start, one `talk --log` run) the turn belongs to. */
  session: string;
  /** ISO wall time of the turn's end (when it was reported). */
  at: string;
  /** The app's package version. */
  app: string;
  /** First 12 hex of the sha256 of the canonical settings JSON (secrets left out): equal hashes, equal settings. */
  settingsHash: string;
  /** "id@<first 8 hex of the catalog sha256>", or the id alone when no hash is known (a server LLM: its model name). */
  models: Partial<Record<LoggedModelKind, string>>;
  /**
   * What the browser applied to the microphone (echo cancellation, gain, noise suppression, rate,
   * channels; never the device's name). Absent when none was reported: `talk --log`, which reads a
   * file, and logs written before it was recorded.
   */
  microphone?: LoggedMicrophone;
  /** False when history.logText was off: userText, assistantText, heardText and each backchannel's text are then "". */
  texts: boolean;
  /** This turn's stage values, keyed and included as `npm run bench` does. */
  stages: TurnStages;
  report: TurnReport;
}

/** What a turn is logged with besides its report. */
export interface TurnContext {
  session: string;
  at: string;
  app: string;
  settingsHash: string;
  models: LoggedTurn['models'];
  microphone?: LoggedMicrophone;
  texts: boolean;
}

/** Figures over a span of turns, to compare before and after a change. */
export interface PeriodFigures {
  turns: number;
  voiceToVoiceMs: Distribution;
  endpointMs: Distribution;
  sttMs: Distribution;
  llmTtftMs: Distribution;
  ttsFirstAudioMs: Distribution;
  /** Fraction (0..1) of the span's turns that were interrupted. */
  interruption: number;
}

/** Where the models, the settings, the app version or the microphone's processing changed from one turn to the next. */
export interface LogChange {
  /** When the first turn after the change ended. */
  at: string;
  /** That turn's position (0-based) among the summarized turns. */
  turn: number;
  session: string;
  /** e.g. "llm: a@12345678 → b@9abcdef0", "settings 1a2b3c4d5e6f → 3c4d5e6f7a8b", "app 0.1.0 → 0.2.0", "microphone echoCancellation true → false". */
  what: string[];
  /** From the previous change (or the first turn) to this one. */
  before: PeriodFigures;
  /** From this change to the next (or the last turn). */
  after: PeriodFigures;
}

export interface LogSummary {
  turns: number;
  sessions: number;
  /** `at` of the first and last turn summarized; null when none. */
  from: string | null;
  to: string | null;
  /** Keyed as `npm run bench` keys its stages. */
  stages: StageDistributions;
  /**
   * Fractions 0..1 (0 when there are no turns). emptyTranscript counts only turns logged with their
   * texts; the others' words are not known.
   */
  rates: { interruption: number; holdingPhrase: number; emptyTranscript: number; localCommand: number };
  /** Of the answers logged with their texts (an empty answer is left out). */
  answerLength: { words: Distribution; chars: Distribution };
  /** The tools called, by name (most called first): how often, how many failed, and how long they took (ms). */
  tools: { name: string; server: string; calls: number; failed: number; ms: Distribution }[];
  changes: LogChange[];
}

/** A session id: its start time (UTC, no ':' for Windows file names) and 4 random hex digits. */
export const SESSION_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[0-9a-f]{4}$/;

export interface HistorySessionInfo {
  id: string;
  startedAt: string;
  turns: number;
  bytes: number;
  /** The session this app run is writing. */
  current: boolean;
}

export interface HistorySession {
  id: string;
  startedAt: string;
  turns: LoggedTurn[];
  /** Lines that could not be read (a line cut off by a crash, a damaged file). */
  skipped: number;
}

export interface SkippedLine {
  /** 1-based line number in its file. */
  line: number;
  reason: string;
}

/** The turn as one log line, without its newline. The words are blanked when texts are off. */
export function formatLogLine(report: TurnReport, context: TurnContext): string {
  // A call's arguments and result are words too (the report has them only with texts on; never logged otherwise).
  const tools = report.tools?.map(({ arguments: _a, result: _r, ...u }) => u);
  const kept = context.texts
    ? report
    : { ...report, userText: '', assistantText: '', heardText: '', backchannels: report.backchannels.map((b) => ({ ...b, text: '' })), ...(tools ? { tools } : {}) };
  const turn: LoggedTurn = {
    v: 1,
    session: context.session,
    at: context.at,
    app: context.app,
    settingsHash: context.settingsHash,
    models: context.models,
    ...(context.microphone ? { microphone: context.microphone } : {}),
    texts: context.texts,
    stages: turnStages(report),
    report: kept,
  };
  return JSON.stringify(turn);
}

/** The longest line read as a turn (a turn with its words is a few kB). */
const MAX_LINE_CHARS = 256 * 1024;
/** The deepest nesting read (a turn's report is about 4 levels deep). */
const MAX_DEPTH = 32;

/** Whether `value` has objects or arrays nested more than `max` deep (counted without recursion). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Reads the text of one log file. A line that is not a whole turn (cut off by a crash, damaged) is
 * skipped and listed with why, so one bad line never hides the others.
 */
export function parseLogLines(text: string): { turns: LoggedTurn[]; skipped: SkippedLine[] } {
  const turns: LoggedTurn[] = [];
  const skipped: SkippedLine[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    // Every line is written whole with its newline: a last line without one was cut off mid-write.
    const unfinished = i === lines.length - 1;
    // Files the user can edit: a turn is a few kB, and nothing in it is nested more than a few levels.
    if (line.length > MAX_LINE_CHARS) {
      skipped.push({ line: i + 1, reason: `too long (${line.length} characters; a turn is at most ${MAX_LINE_CHARS})` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: unfinished ? 'incomplete line (cut off while it was being written)' : 'not JSON' });
      return;
    }
    if (nestedDeeperThan(value, MAX_DEPTH)) {
      skipped.push({ line: i + 1, reason: `nested more than ${MAX_DEPTH} levels deep` });
      return;
    }
    const problem = turnProblem(value);
    if (problem) skipped.push({ line: i + 1, reason: problem });
    else turns.push(value as LoggedTurn);
  });
  return { turns, skipped };
}

type Check = (v: unknown) => boolean;
const isNum: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isNumOrNull: Check = (v) => v === null || isNum(v);
const isStr: Check = (v) => typeof v === 'string';
const isBool: Check = (v) => typeof v === 'boolean';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields the history relies on, checked so a damaged line is refused rather than misread. */
const TURN_FIELDS: Record<string, Check> = { session: isStr, at: (v) => isStr(v) && !Number.isNaN(Date.parse(v as string)), app: isStr, settingsHash: isStr, texts: isBool };
const STAGE_FIELDS = ['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs', 'overheadMs', 'bargeInMs', 'preparedLeadMs'] as const;
const REPORT_FIELDS: Record<string, Check> = {
  index: isNum,
  userText: isStr,
  assistantText: isStr,
  heardText: isStr,
  interrupted: isBool,
  endReason: isStr,
  holdingPhrase: isBool,
  llmUsed: isBool,
  prepared: (v) => v === 'used' || v === 'dropped' || v === 'none',
  command: (v) => v === null || (isObj(v) && isStr(v.name)),
  timings: isObj,
  latency: isObj,
};

/** Why `v` is not a version-1 logged turn, or null when it is one. */
function turnProblem(v: unknown): string | null {
  if (!isObj(v)) return 'not a JSON object';
  if (v.v !== 1) return `unknown format version ${JSON.stringify(v.v ?? null)}`;
  for (const [key, ok] of Object.entries(TURN_FIELDS)) if (!ok(v[key])) return `bad or missing "${key}"`;
  const models = v.models;
  if (!isObj(models) || !Object.values(models).every(isStr)) return 'bad or missing "models"';
  // Optional: older lines have none.
  if (v.microphone !== undefined && microphoneProblem(v.microphone)) return 'bad "microphone"';
  const stages = v.stages;
  if (!isObj(stages)) return 'bad or missing "stages"';
  for (const key of STAGE_FIELDS) if (!isNumOrNull(stages[key])) return `bad or missing "stages.${key}"`;
  const after = stages.afterEndMs;
  if (!isObj(after) || !isNumOrNull(after.prepared) || !isNumOrNull(after.unprepared)) return 'bad or missing "stages.afterEndMs"';
  const report = v.report;
  if (!isObj(report)) return 'bad or missing "report"';
  for (const [key, ok] of Object.entries(REPORT_FIELDS)) if (!ok(report[key])) return `bad or missing "report.${key}"`;
  return null;
}
