/**
 * Where a turn's milliseconds went, as the latency waterfall draws it, and the session's
 * percentiles per stage. Pure functions of turn reports.
 */
import type { TurnReport } from '../../electron/pipeline/report';
import { percentile } from '../../electron/pipeline/stats';

export type StageKey = 'endpoint' | 'stt' | 'llm' | 'clause' | 'tts';

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
  clause: 'First clause',
  tts: 'TTS first audio',
};

/**
 * The consecutive stages from the end of the user's speech to the first audio. A stage whose end
 * is missing (an answer that never came) ends the waterfall there.
 */
export function waterfall(r: TurnReport): { stages: Stage[]; totalMs: number | null } {
  const t = r.timings;
  const marks: [StageKey, number | null][] = [
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
    stages.push({ key, label: STAGE_LABELS[key], startMs: at - t.speechEndMs, durationMs: Math.max(0, end - at) });
    at = Math.max(at, end);
  }
  return { stages, totalMs: r.latency.voiceToVoiceMs };
}

export type SummaryKey = 'endpointMs' | 'sttMs' | 'llmTtftMs' | 'ttsFirstAudioMs' | 'voiceToVoiceMs';

const SUMMARY_ROWS: { key: SummaryKey; label: string }[] = [
  { key: 'endpointMs', label: 'Endpoint wait' },
  { key: 'sttMs', label: 'Speech to text' },
  { key: 'llmTtftMs', label: 'LLM first token' },
  { key: 'ttsFirstAudioMs', label: 'TTS first audio' },
  { key: 'voiceToVoiceMs', label: 'Voice to voice' },
];

export interface StageSummary {
  key: SummaryKey;
  label: string;
  count: number;
  p50: number | null;
  p95: number | null;
}

/** p50 and p95 per stage over the session's turns (turns that failed a stage are left out of it). */
export function summarize(reports: readonly TurnReport[]): StageSummary[] {
  return SUMMARY_ROWS.map(({ key, label }) => {
    const values = reports.map((r) => r.latency[key]);
    return { key, label, count: values.filter((v) => v !== null).length, p50: percentile(values, 0.5), p95: percentile(values, 0.95) };
  });
}

export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
