import type { LlmRoute } from '../../engines/llm-types';
import type { AudioOutput } from '../speak/output';
import { round, type Backchannel, type BargeInTimes, type ConfirmationReport, type EchoReport, type TurnReport, type TurnTimings } from '../report';
import { timelineOf, withReportFigures } from '../../report/turn-figures';
import type { UtteranceTimes } from '../speak/utterance';
import type { ToolUse } from '../../tools/toolbox';
import type { EndReason, StartedBy, TurnCheck } from '../vocabulary';

/** What the report needs of the spoken answer (an Utterance is one). */
export interface SpokenAnswer {
  readonly text: string;
  readonly heardText: string;
  readonly times: UtteranceTimes;
  readonly audioSpan: { from: number; to: number } | null;
}

/**
 * Everything known of one turn, filled in as it goes: by turn taking when it ends, by its reply
 * as the words and the answer come, by responding when it is interrupted. Times on the pipeline
 * clock. `turnReport` is the one place it becomes a report.
 */
export interface TurnRecord {
  index: number;
  speechStartMs: number;
  speechEndMs: number;
  endOfTurnMs: number;
  startedBy: StartedBy;
  endReason: EndReason;
  /** The user went on talking after a pause before hearing any answer: both parts are this one turn. */
  mergedContinuation: boolean;
  inputGainDb: number;
  turnChecks: TurnCheck[] | null;
  userText: string;
  sttFinalMs: number;
  sttDecodeMs: number;
  /** The prompt reached the LLM, so the conversation holds this exchange. */
  generated: boolean;
  /** When the language model was asked (a prepared answer's: during the pause). */
  llmStartMs: number | null;
  llmFirstTokenMs: number | null;
  /** The answer being spoken; null until the language model was asked. */
  answer: SpokenAnswer | null;
  interrupted: boolean;
  /** Dropped before any of it was heard (the user went on talking): never played, not in history. */
  discarded: boolean;
  bargeIn: BargeInTimes | null;
  /** Acknowledgements said over the answer ("mm-hmm"), which let it go on. */
  backchannels: Backchannel[];
  /** The tool calls the answer ran, in order. */
  tools: ToolUse[];
  /** A tool that changes something: this answer asked the user, or this turn answered the question. */
  confirmation: ConfirmationReport | null;
  holdingPhrase: boolean;
  /** The local command the words matched, answered without the language model; null when none did. */
  command: { name: string; slots: Record<string, string | number | boolean | null> } | null;
  /** The language model was asked for this turn's answer. */
  llmUsed: boolean;
  /** Which model answered and what the server's error was (see TurnReport.llm). */
  llm: LlmRoute | null;
  /** An answer prepared during a pause: taken, dropped (the user went on, or the words changed), or none was. */
  prepared: 'used' | 'dropped' | 'none';
  /** When the last prepared answer began (pipeline clock), or null. */
  preparedAtMs: number | null;
  error?: string;
}

/** A record for a turn that just ended; the rest is filled in as its reply goes. */
export function newTurnRecord(ended: Pick<TurnRecord, 'index' | 'speechStartMs' | 'speechEndMs' | 'endOfTurnMs' | 'startedBy' | 'endReason' | 'mergedContinuation' | 'inputGainDb' | 'turnChecks'>): TurnRecord {
  return {
    ...ended,
    userText: '',
    sttFinalMs: 0,
    sttDecodeMs: 0,
    generated: false,
    llmStartMs: null,
    llmFirstTokenMs: null,
    answer: null,
    interrupted: false,
    discarded: false,
    bargeIn: null,
    backchannels: [],
    tools: [],
    confirmation: null,
    holdingPhrase: false,
    prepared: 'none',
    preparedAtMs: null,
    command: null,
    llmUsed: false,
    llm: null,
  };
}

/**
 * The report of a finished turn; audio times are when it really played, pauses included. `echoOver`
 * measures the echo cancellation over the span the answer played (pipeline clock).
 */
export function turnReport(r: TurnRecord, output: AudioOutput, echoOver?: (fromMs: number, toMs: number) => EchoReport): TurnReport {
  const times: UtteranceTimes = r.answer?.times ?? { firstClauseMs: null, ttsFirstClauseMs: null, firstAudioMs: null, lastAudioMs: null };
  // The estimates made when the audio was queued do not know of later pauses: ask the output.
  const span = r.answer?.audioSpan ?? null;
  const firstAudioMs = (span && output.timeOf(span.from)) ?? times.firstAudioMs;
  const lastAudioMs = r.bargeIn ? r.bargeIn.playbackStoppedMs : ((span && output.timeOf(span.to, true)) ?? times.lastAudioMs);
  const orNull = (x: number | null) => (x === null ? null : round(x));
  const timings: TurnTimings = {
    speechStartMs: round(r.speechStartMs),
    speechEndMs: round(r.speechEndMs),
    endOfTurnMs: round(r.endOfTurnMs),
    sttFinalMs: round(r.sttFinalMs),
    llmFirstTokenMs: orNull(r.llmFirstTokenMs),
    firstClauseMs: orNull(times.firstClauseMs),
    firstAudioMs: orNull(firstAudioMs),
    lastAudioMs: orNull(lastAudioMs),
    llmStartMs: orNull(r.llmStartMs),
  };
  const report: Omit<TurnReport, 'latency'> = {
    index: r.index,
    userText: r.userText,
    assistantText: (r.answer?.text ?? '').trim(),
    heardText: r.discarded ? '' : (r.answer?.heardText ?? ''),
    interrupted: r.interrupted,
    startedBy: r.startedBy,
    endReason: r.endReason,
    bargeIn: r.bargeIn,
    backchannels: r.backchannels.map((b) => ({ ...b })),
    tools: r.tools.map((u) => ({ ...u, startMs: round(u.startMs) })),
    confirmation: r.confirmation ? { ...r.confirmation } : null,
    holdingPhrase: r.holdingPhrase,
    mergedContinuation: r.mergedContinuation,
    inputGainDb: r.inputGainDb,
    turnDetector: r.turnChecks ? { checks: r.turnChecks } : null,
    command: r.command,
    llmUsed: r.llmUsed,
    llm: r.llm ? { ...r.llm } : null,
    prepared: r.prepared,
    preparedLeadMs: r.preparedAtMs === null ? null : round(r.endOfTurnMs - r.preparedAtMs),
    timings,
    engine: {
      sttFinalDecodeMs: round(r.sttDecodeMs),
      // Read off the timeline below, with the latency block.
      llmUntilFirstClauseMs: null,
      ttsFirstClauseMs: orNull(times.ttsFirstClauseMs),
    },
    echo: echoOver && firstAudioMs !== null && lastAudioMs !== null ? echoOver(firstAudioMs, lastAudioMs) : null,
    ...(r.error ? { error: r.error } : {}),
  };
  report.timeline = timelineOf(report);
  return withReportFigures(report);
}
