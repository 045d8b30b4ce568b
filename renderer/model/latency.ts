/**
 * Where a turn's milliseconds went, as the latency waterfall draws it, and the session's
 * percentiles per stage. Pure functions of turn reports.
 */
import type { TurnReport } from '../../electron/pipeline/report';
import { percentile } from '../../electron/stats';

export type StageKey = 'endpoint' | 'stt' | 'llm' | 'command' | 'clause' | 'tts';

export interface Stage {
  key: StageKey;
  label: string;
  /** Offset from the end of the user's speech, ms. */
  startMs: number;
  durationMs: number;
}

export const STAGE_LABELS: Record<StageKey, string> = {
  endpoint: 'Endpoint wait',
  stt: 'Speech to text',
  llm: 'LLM first token',
  command: 'Local command',
  clause: 'First clause',
  tts: 'TTS first audio',
};

/**
 * The consecutive stages from the end of the user's speech to the first audio. A stage whose end
 * is missing (an answer that never came) ends the waterfall there; `complete` says whether it
 * reached the first audio.
 *
 * A turn answered by a local command never asks the LLM: one "command" stage, labelled with the
 * command's name, runs from the final words to its fixed sentence being ready for TTS (matching,
 * acting and wording it), in place of the LLM and first-clause stages.
 */
export function waterfall(r: TurnReport): { stages: Stage[]; totalMs: number | null; complete: boolean } {
  const t = r.timings;
  const command = r.command?.name ?? null;
  const marks: [StageKey, number | null][] = command
    ? [
        ['endpoint', t.endOfTurnMs],
        ['stt', t.sttFinalMs],
        ['command', t.firstClauseMs],
        ['tts', t.firstAudioMs],
      ]
    : [
        ['endpoint', t.endOfTurnMs],
        ['stt', t.sttFinalMs],
        ['llm', t.llmFirstTokenMs],
        ['clause', t.firstClauseMs],
        ['tts', t.firstAudioMs],
      ];
  const stages: Stage[] = [];
  let at = t.speechEndMs;
  for (const [key, end] of marks) {
    if (end === null) break;
    const label = key === 'command' ? `command: ${command}` : STAGE_LABELS[key];
    stages.push({ key, label, startMs: at - t.speechEndMs, durationMs: Math.max(0, end - at) });
    at = Math.max(at, end);
  }
  return { stages, totalMs: r.latency.voiceToVoiceMs, complete: stages.length === marks.length };
}

export type SummaryKey = 'endpointMs' | 'sttMs' | 'llmTtftMs' | 'ttsFirstAudioMs' | 'voiceToVoiceMs';

/** The p50/p95 rows' names, shared by the session table and the History tab's. */
export const STAT_LABELS: Record<SummaryKey | 'bargeInMs', string> = {
  endpointMs: 'Endpoint wait',
  sttMs: 'Speech to text',
  llmTtftMs: 'LLM first token',
  ttsFirstAudioMs: 'TTS first audio',
  voiceToVoiceMs: 'Voice to voice',
  bargeInMs: 'Barge-in',
};

const SUMMARY_ROWS: { key: SummaryKey; label: string }[] = (['endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'voiceToVoiceMs'] as const).map((key) => ({
  key,
  label: STAT_LABELS[key],
}));

export interface StageSummary {
  key: SummaryKey;
  label: string;
  count: number;
  p50: number | null;
  p95: number | null;
}

/**
 * p50 and p95 per stage over the session's turns (turns that failed a stage are left out of it). An
 * answer prepared during a pause can have its first token before the final words (a negative LLM
 * time): it counts as 0, no wait, as the waterfall draws it.
 */
export function summarize(reports: readonly TurnReport[]): StageSummary[] {
  return SUMMARY_ROWS.map(({ key, label }) => {
    const values = reports.map((r) => {
      const v = r.latency[key];
      return v === null ? null : Math.max(0, v);
    });
    return { key, label, count: values.filter((v) => v !== null).length, p50: percentile(values, 0.5), p95: percentile(values, 0.95) };
  });
}

export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/**
 * How well the assistant's own voice was taken out of the microphone during the last answer that
 * played: "Own voice cancelled by 41 dB (608 ms echo tail)". Null before any answer played.
 */
export function echoLine(reports: readonly TurnReport[]): string | null {
  const last = [...reports].reverse().find((r) => r.echo);
  const echo = last?.echo;
  if (!echo) return null;
  // Cancelled to below measurement (a silent microphone, or echo entirely removed): say so plainly.
  const erle = echo.erleSettledDb ?? echo.erleDb;
  const amount = erle === null ? ': no echo measured' : ` cancelled by ${Math.round(erle)} dB`;
  return `Own voice${amount} (${echo.tailMs} ms echo tail), turn ${last.index + 1}`;
}
