import type { LlmRoute } from '../engines/llm-types';
import type { EndReason, StartedBy, TurnCheck } from './vocabulary';

/** Milliseconds on the pipeline clock (for `talk`: from the start of the input file). */
export interface TurnTimings {
  speechStartMs: number;
  /** When the user actually stopped talking (not when the silence threshold ran out). */
  speechEndMs: number;
  endOfTurnMs: number;
  sttFinalMs: number;
  llmFirstTokenMs: number | null;
  /** When the first clause was ready for TTS. */
  firstClauseMs: number | null;
  firstAudioMs: number | null;
  lastAudioMs: number | null;
  /**
   * When the language model was asked (for a prepared answer, during the pause: before the end of
   * turn). Absent on reports written before it was recorded.
   */
  llmStartMs?: number | null;
}

/** The stages a turn's timeline names; 'tool' is kept for tool calls (named by `name`). */
export type TimelineStageName = 'endpoint' | 'stt' | 'llm' | 'clause' | 'command' | 'tts' | 'playback' | 'tool';

/**
 * Where one stage of a turn ran, on the turn's own clock: ms from the end of the user's speech,
 * negative for work done before it (an answer prepared during a pause). `endMs >= startMs` always:
 * a stage's length is a duration, its ends are positions.
 */
export interface TimelineStage {
  stage: TimelineStageName;
  startMs: number;
  endMs: number;
  /** The local command's or the tool's name. */
  name?: string;
  /** Work done for an answer prepared during the pause, before the turn was committed. */
  prepared?: boolean;
}

export interface TurnLatency {
  endpointMs: number;
  sttMs: number;
  llmTtftMs: number | null;
  /** First clause ready to first audio. */
  ttsFirstAudioMs: number | null;
  voiceToVoiceMs: number | null;
}

/** Time spent inside each engine for this turn, for overhead accounting. */
export interface EngineTime {
  sttFinalDecodeMs: number;
  llmUntilFirstClauseMs: number | null;
  ttsFirstClauseMs: number | null;
}

/**
 * An interrupted answer: when the interruption was confirmed, when playback had stopped, and where
 * the speech that interrupted it began (the push-to-talk key press; null for the stop button).
 */
export interface BargeInTimes {
  detectedMs: number;
  playbackStoppedMs: number;
  speechStartMs: number | null;
}

/** An acknowledgement said over the answer ("mm-hmm"): where its speech began (input timeline) and its words. */
export interface Backchannel {
  atMs: number;
  text: string;
  /** What the decision rested on (absent in reports from before it was recorded). */
  evidence?: AcknowledgementEvidence;
}

/**
 * What a listener hears of speech over the answer, beside its words: the acknowledgement policy
 * (respond/acknowledgement-policy.ts) decides on these.
 */
export interface AcknowledgementEvidence {
  /** From its first sound to its last (ms). */
  durationMs: number;
  /** Its loud part against the loud part of the user's requests (dB); null before any request was heard. */
  levelDb: number | null;
  /** How its pitch moved from its first voiced part to its last (semitones, negative: falling); null when too little was voiced. */
  pitchSemitones: number | null;
  /** How its words read: acknowledgement-like, a word people take the floor with, a guess that is neither (how it sounded decided), or no words. */
  words: 'acknowledgement' | 'floor' | 'unclear' | 'none';
}

/** One tool call in a turn report. */
/** A question the user has not answered yet, as the window shows it (the call's arguments stay here). */
export interface PendingConfirmation {
  id: string;
  /** The turn whose answer asked. */
  turn: number;
  tool: string;
  server: string;
  /** What it would do, in words ("open example.com"). */
  action: string;
  /** The pipeline time it was asked at. */
  askedAtMs: number;
}

export interface ConfirmationReport {
  tool: string;
  server: string;
  outcome: 'asked' | 'ran' | 'declined' | 'dropped';
}

export interface ToolUseReport {
  name: string;
  server: string;
  ms: number;
  ok: boolean;
  error: string | null;
  startMs: number;
  /** Only with history.logText on: the call's arguments and its result, each cut at 200 characters. */
  arguments?: string;
  result?: string;
}

export interface TurnReport {
  /** The turn's number, the `turn` its events carried (a merged or empty turn leaves a gap). */
  index: number;
  userText: string;
  assistantText: string;
  /** The part of the answer that was played before any interruption (all of it when none). */
  heardText: string;
  interrupted: boolean;
  /** What started the user's turn. */
  startedBy: StartedBy;
  /** What ended the user's speaking turn. */
  endReason: EndReason;
  bargeIn: BargeInTimes | null;
  /** Acknowledgements the user said over this answer, which let it go on ([] when none). */
  backchannels: Backchannel[];
  /**
   * The tool calls the answer ran, in order ([] when none; absent in reports from before tools):
   * name, where the tool lives ('built-in' or an MCP server), how long it took, and whether it
   * worked. `startMs` on the pipeline clock, as `timings`. Arguments and results are not kept.
   */
  tools?: ToolUseReport[];
  /**
   * A tool that changes something (issue 27): this answer asked the user first (`asked`), or this
   * turn answered such a question (`ran` on a yes, `declined` on a no, `dropped` when the words were
   * another request). Null when neither; absent in older reports. The call's arguments are not kept.
   */
  confirmation?: ConfirmationReport | null;
  /** No answer audio was ready within turnBudgetMs, so a short holding phrase was spoken first. */
  holdingPhrase: boolean;
  /** The user went on talking after a pause before hearing any answer: both parts are this one turn. */
  mergedContinuation: boolean;
  /** The input gain (dB) applied when the turn ended: 0 when the microphone was loud enough. */
  inputGainDb: number;
  /** What the end-of-turn model said at each pause (pipeline time it was asked); null when it was not asked. */
  turnDetector: { checks: TurnCheck[] } | null;
  /** The local command the words matched (answered without the language model), or null. */
  command: { name: string; slots: Record<string, string | number | boolean | null> } | null;
  /**
   * The facts the user asked to be remembered that the system prompt held when the turn was
   * reported: how many, and their section's size in the model's tokens (0 and 0: none, or memory off).
   * Absent on reports from before memory.
   */
  memory?: { facts: number; tokens: number };
  /** Whether the language model was asked for this turn's answer. */
  llmUsed: boolean;
  /**
   * Which language model answered: the configured provider, or the local model standing in for a
   * server that failed or was too slow before its first token (fallback), with the server's error
   * (null when none). Null when no language model was asked (a local command, no words).
   */
  llm: LlmRoute | null;
  /** Whether an answer prepared while the user paused was used, dropped, or none was prepared. */
  prepared: 'used' | 'dropped' | 'none';
  /**
   * How long before the end of turn the (last) prepared answer began; null when none was. For a used
   * one, where its model was asked (the figures' `preparedAheadMs`); for a dropped one, when it was begun.
   */
  preparedLeadMs: number | null;
  timings: TurnTimings;
  /**
   * Every stage where it ran, 0 = the end of the user's speech (electron/report/turn-figures.ts
   * builds it from the timings). Absent on reports written before it existed; the figures then
   * rebuild it the same way.
   */
  timeline?: TimelineStage[];
  /**
   * Its names kept (other tools read them), its values the figures' (report/turn-figures.ts), as every
   * view shows them: never negative. Reports logged before may hold negative values here.
   */
  latency: TurnLatency;
  engine: EngineTime;
  /**
   * How well the assistant's own voice was cancelled while its answer played (null: no answer played).
   * `erleDb`: echo return loss enhancement, the microphone's echo power against what the canceller
   * left, over the windows the user was silent in (null: none); `erleSettledDb` the same after the
   * answer's first second; `tailMs` the echo tail the canceller covers.
   */
  echo: EchoReport | null;
  /** Set when a stage failed; the turn ended early and the pipeline went on listening. */
  error?: string;
}

export interface EchoReport {
  erleDb: number | null;
  erleSettledDb: number | null;
  tailMs: number;
}

export function round(x: number): number {
  return Math.round(x * 10) / 10;
}
