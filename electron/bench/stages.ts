/**
 * Per-stage latencies of turns, as the benchmark reports them: one turn's values, and the
 * distributions over many. `npm run bench` and the conversation history both use these, so their
 * stage keys and inclusion rules cannot drift apart. Pure: no Node imports.
 */
import type { TurnReport } from '../pipeline/report';
import { distribution, type Distribution } from '../stats';

/** One turn's stage values in ms; null where the stage did not happen or does not count for this turn. */
export interface TurnStages {
  /** Only for turns a pause ended (silence or the end-of-turn model): the others waited for no pause. */
  endpointMs: number | null;
  sttMs: number | null;
  /** This and the next two only for turns whose answer was not prepared during a pause and used: those overlap. */
  llmTtftMs: number | null;
  ttsFirstAudioMs: number | null;
  voiceToVoiceMs: number | null;
  overheadMs: number | null;
  /** User speech start to playback stopped, for an answer the user's speech interrupted. */
  bargeInMs: number | null;
  /** End of turn to first audio, when the prepared answer was used, and when it was not. */
  afterEndMs: { prepared: number | null; unprepared: number | null };
  /** How long before the end of turn a used prepared answer began. */
  preparedLeadMs: number | null;
}

/** The same keys, each a distribution over turns. */
export type StageDistributions = { [K in keyof TurnStages]: TurnStages[K] extends number | null ? Distribution : { prepared: Distribution; unprepared: Distribution } };

/** Our own code's share of voice-to-voice: what the engines and the endpoint wait do not account for. */
function overhead(r: TurnReport): number | null {
  const { voiceToVoiceMs, endpointMs } = r.latency;
  const e = r.engine;
  if (voiceToVoiceMs === null || e.llmUntilFirstClauseMs === null || e.ttsFirstClauseMs === null) return null;
  return voiceToVoiceMs - endpointMs - e.sttFinalDecodeMs - e.llmUntilFirstClauseMs - e.ttsFirstClauseMs;
}

// Rounding to 0.1 ms is monotonic, so distributions of rounded values equal rounded distributions.
const r1 = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

export function turnStages(r: TurnReport): TurnStages {
  const byPause = r.endReason === 'silence' || r.endReason === 'turn-model';
  // A used prepared answer ran its engines during the pause: its stages overlap and are not comparable.
  const used = r.prepared === 'used';
  const afterEnd = r.timings.firstAudioMs === null ? null : r.timings.firstAudioMs - r.timings.endOfTurnMs;
  const b = r.bargeIn;
  return {
    endpointMs: byPause ? r.latency.endpointMs : null,
    sttMs: r.latency.sttMs,
    llmTtftMs: used ? null : r.latency.llmTtftMs,
    ttsFirstAudioMs: used ? null : r.latency.ttsFirstAudioMs,
    voiceToVoiceMs: r.latency.voiceToVoiceMs,
    overheadMs: used ? null : r1(overhead(r)),
    bargeInMs: b && b.speechStartMs !== null ? r1(b.playbackStoppedMs - b.speechStartMs) : null,
    afterEndMs: { prepared: used ? r1(afterEnd) : null, unprepared: used ? null : r1(afterEnd) },
    preparedLeadMs: used ? r.preparedLeadMs : null,
  };
}

export function stageDistributions(turns: readonly TurnStages[]): StageDistributions {
  const of = (pick: (s: TurnStages) => number | null) => distribution(turns.map(pick));
  return {
    endpointMs: of((s) => s.endpointMs),
    sttMs: of((s) => s.sttMs),
    llmTtftMs: of((s) => s.llmTtftMs),
    ttsFirstAudioMs: of((s) => s.ttsFirstAudioMs),
    voiceToVoiceMs: of((s) => s.voiceToVoiceMs),
    overheadMs: of((s) => s.overheadMs),
    bargeInMs: of((s) => s.bargeInMs),
    afterEndMs: { prepared: of((s) => s.afterEndMs.prepared), unprepared: of((s) => s.afterEndMs.unprepared) },
    preparedLeadMs: of((s) => s.preparedLeadMs),
  };
}

/** Each stage as the tables name it, in the order they list them. */
export const STAGE_ROWS: readonly (readonly [label: string, pick: (s: StageDistributions) => Distribution])[] = [
  ['endpoint (speech end → end of turn)', (s) => s.endpointMs],
  ['stt (end of turn → final text)', (s) => s.sttMs],
  ['llm first token', (s) => s.llmTtftMs],
  ['tts first audio (clause → audio)', (s) => s.ttsFirstAudioMs],
  ['voice to voice', (s) => s.voiceToVoiceMs],
  ['overhead (our code)', (s) => s.overheadMs],
  ['barge-in (speech → playback stopped)', (s) => s.bargeInMs],
  ['end of turn → first audio, prepared', (s) => s.afterEndMs.prepared],
  ['end of turn → first audio, not prepared', (s) => s.afterEndMs.unprepared],
  ['  prepared this long before the end', (s) => s.preparedLeadMs],
];
