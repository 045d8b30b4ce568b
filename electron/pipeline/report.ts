import type { EndReason } from './segmenter';

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

export interface TurnReport {
  index: number;
  userText: string;
  assistantText: string;
  /** The part of the answer that was played before any interruption (all of it when none). */
  heardText: string;
  interrupted: boolean;
  /** What ended the user's speaking turn. */
  endReason: EndReason;
  /** For an interrupted answer: when the interruption was confirmed, and when playback had stopped. */
  bargeIn: { detectedMs: number; playbackStoppedMs: number } | null;
  /** No answer audio was ready within turnBudgetMs, so a short holding phrase was spoken first. */
  holdingPhrase: boolean;
  /** The user went on talking after a pause before hearing any answer: both parts are this one turn. */
  mergedContinuation: boolean;
  timings: TurnTimings;
  latency: TurnLatency;
  engine: EngineTime;
  /** Set when a stage failed; the turn ended early and the pipeline went on listening. */
  error?: string;
}

export function latencyOf(t: TurnTimings): TurnLatency {
  const sub = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b));
  return {
    endpointMs: round(t.endOfTurnMs - t.speechEndMs),
    sttMs: round(t.sttFinalMs - t.endOfTurnMs),
    llmTtftMs: sub(t.llmFirstTokenMs, t.sttFinalMs),
    ttsFirstAudioMs: sub(t.firstAudioMs, t.firstClauseMs),
    voiceToVoiceMs: sub(t.firstAudioMs, t.speechEndMs),
  };
}

export function round(x: number): number {
  return Math.round(x * 10) / 10;
}
