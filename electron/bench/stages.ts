/**
 * Per-stage latencies of turns, as the benchmark reports them: one turn's values, and the
 * distributions over many. `npm run bench` and the conversation history both use these, so their
 * stage keys and inclusion rules cannot drift apart. Pure: no Node imports.
 */
import type { TurnReport } from '../pipeline/report';
import { statValues, turnFigures } from '../report/turn-figures';
import { distribution, type Distribution } from '../stats';

/** One turn's stage values in ms; null where the stage did not happen or does not count for this turn. */
export interface TurnStages {
  /** End of speech to end of turn (0 when the turn ended before the measured end of speech). */
  endpointMs: number | null;
  sttMs: number | null;
  /** LLM asked to first token (a prepared answer's too: it is the model's own time wherever it ran). */
  llmTtftMs: number | null;
  /** The first clause's synthesis. */
  ttsFirstAudioMs: number | null;
  voiceToVoiceMs: number | null;
  /** End of speech to first audio that no stage covers: our own code. */
  overheadMs: number | null;
  /** User speech start to playback stopped, for an answer the user's speech interrupted. */
  bargeInMs: number | null;
  /** End of turn to first audio, when the prepared answer was used, and when it was not. */
  afterEndMs: { prepared: number | null; unprepared: number | null };
  /** How long before the end of turn a used prepared answer's LLM began. */
  preparedLeadMs: number | null;
}

/** The same keys, each a distribution over turns. */
export type StageDistributions = { [K in keyof TurnStages]: TurnStages[K] extends number | null ? Distribution : { prepared: Distribution; unprepared: Distribution } };

/**
 * One turn's stage values: the figures every view shows (electron/report/turn-figures.ts), so a
 * turn's numbers in `bench` and the history are the ones its waterfall draws. A prepared answer's
 * LLM and TTS stages are their own lengths, wherever they ran; no value is negative.
 */
export function turnStages(r: TurnReport): TurnStages {
  const f = turnFigures(r);
  const v = statValues(f);
  const used = r.prepared === 'used';
  return {
    endpointMs: v.endpointMs,
    sttMs: v.sttMs,
    llmTtftMs: v.llmTtftMs,
    ttsFirstAudioMs: v.ttsFirstAudioMs,
    voiceToVoiceMs: v.voiceToVoiceMs,
    overheadMs: f.overheadMs,
    bargeInMs: v.bargeInMs,
    afterEndMs: { prepared: used ? f.afterEndMs : null, unprepared: used ? null : f.afterEndMs },
    preparedLeadMs: f.preparedAheadMs,
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
  ['llm first token (asked → first token)', (s) => s.llmTtftMs],
  ['tts first audio (first clause synthesis)', (s) => s.ttsFirstAudioMs],
  ['voice to voice', (s) => s.voiceToVoiceMs],
  ['overhead (no stage running)', (s) => s.overheadMs],
  ['barge-in (speech → playback stopped)', (s) => s.bargeInMs],
  ['end of turn → first audio, prepared', (s) => s.afterEndMs.prepared],
  ['end of turn → first audio, not prepared', (s) => s.afterEndMs.unprepared],
  ['  prepared: LLM began this long before the end', (s) => s.preparedLeadMs],
];
