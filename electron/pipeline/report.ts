import type { AudioOutput } from './output';
import type { Reply } from './reply';
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

/**
 * An interrupted answer: when the interruption was confirmed, when playback had stopped, and where
 * the speech that interrupted it began (the push-to-talk key press; null for the stop button).
 */
export interface BargeInTimes {
  detectedMs: number;
  playbackStoppedMs: number;
  speechStartMs: number | null;
}

export interface TurnReport {
  /** The turn's number, the `turn` its events carried (a merged or empty turn leaves a gap). */
  index: number;
  userText: string;
  assistantText: string;
  /** The part of the answer that was played before any interruption (all of it when none). */
  heardText: string;
  interrupted: boolean;
  /** What ended the user's speaking turn. */
  endReason: EndReason;
  bargeIn: BargeInTimes | null;
  /** No answer audio was ready within turnBudgetMs, so a short holding phrase was spoken first. */
  holdingPhrase: boolean;
  /** The user went on talking after a pause before hearing any answer: both parts are this one turn. */
  mergedContinuation: boolean;
  /** The input gain (dB) applied when the turn ended: 0 when the microphone was loud enough. */
  inputGainDb: number;
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

/** What the pipeline knows of a turn when its answer is done (times on the pipeline clock). */
export interface ReportedTurn {
  speechStartMs: number;
  speechEndMs: number;
  endOfTurnMs: number;
  endReason: EndReason;
  reply: Reply;
  bargeIn: BargeInTimes | null;
  holdingPhrase: boolean;
  mergedContinuation: boolean;
  inputGainDb: number;
}

/** The report of a finished turn; audio times are when it really played, pauses included. */
export function turnReport(index: number, p: ReportedTurn, output: AudioOutput): TurnReport {
  const o = p.reply.outcome;
  // The estimates made when the audio was queued do not know of later pauses: ask the output.
  const span = p.reply.audioSpan;
  const firstAudioMs = (span && output.timeOf(span.from)) ?? o.firstAudioMs;
  const lastAudioMs = p.bargeIn ? p.bargeIn.playbackStoppedMs : ((span && output.timeOf(span.to, true)) ?? o.lastAudioMs);
  const orNull = (x: number | null) => (x === null ? null : round(x));
  const timings: TurnTimings = {
    speechStartMs: round(p.speechStartMs),
    speechEndMs: round(p.speechEndMs),
    endOfTurnMs: round(p.endOfTurnMs),
    sttFinalMs: round(o.sttFinalMs),
    llmFirstTokenMs: orNull(o.llmFirstTokenMs),
    firstClauseMs: orNull(o.firstClauseMs),
    firstAudioMs: orNull(firstAudioMs),
    lastAudioMs: orNull(lastAudioMs),
  };
  return {
    index,
    userText: o.userText,
    assistantText: o.assistantText.trim(),
    heardText: o.heardText,
    interrupted: o.interrupted,
    endReason: p.endReason,
    bargeIn: p.bargeIn,
    holdingPhrase: p.holdingPhrase,
    mergedContinuation: p.mergedContinuation,
    inputGainDb: p.inputGainDb,
    timings,
    latency: latencyOf(timings),
    engine: {
      sttFinalDecodeMs: round(o.sttDecodeMs),
      llmUntilFirstClauseMs: orNull(o.llmUntilFirstClauseMs),
      ttsFirstClauseMs: orNull(o.ttsFirstClauseMs),
    },
    ...(o.error ? { error: o.error } : {}),
  };
}
