/**
 * Where a turn's milliseconds went, as the latency waterfall draws it, and the session's
 * percentiles per stage. Pure functions of turn reports; every number comes from the one figures
 * function (electron/report/turn-figures.ts) that History, `bench`, `talk` and the log summary use.
 */
import type { TurnReport } from '../../electron/pipeline/report';
import { formatMs, STAT_LABELS, statValues, turnFigures, type StatKey } from '../../electron/report/turn-figures';
import { percentile } from '../../electron/stats';

export { formatMs, STAT_LABELS };

export type StageKey = 'endpoint' | 'stt' | 'llm' | 'command' | 'clause' | 'tts' | 'tool';

export interface Stage {
  key: StageKey;
  label: string;
  /** Where it began, ms from the end of the user's speech (negative: before it). */
  startMs: number;
  durationMs: number;
  /** Work done for an answer prepared during the pause. */
  prepared: boolean;
}

export const STAGE_LABELS: Record<StageKey, string> = {
  endpoint: 'Endpoint wait',
  stt: 'Speech to text',
  llm: 'LLM first token',
  command: 'Local command',
  clause: 'LLM to first clause',
  tts: 'TTS first audio',
  tool: 'Tool',
};

export interface Waterfall {
  /** The stages up to the first audio, each where it ran. */
  stages: Stage[];
  /** Voice to voice: end of speech to first audio. */
  totalMs: number | null;
  /** Whether the answer's audio began. */
  complete: boolean;
  /** Where the end of turn fell and the first audio began (ms from the end of speech; null: none played). */
  endOfTurnAtMs: number;
  firstAudioAtMs: number | null;
  /** How long the answer then played. */
  playbackMs: number | null;
  /** "Prepared during the pause, 396 ms ahead of the end of turn", or null for an answer made after it. */
  prepared: string | null;
}

/**
 * The turn's timeline as the waterfall draws it. A turn answered by a local command has one
 * "command" stage (matching, acting and wording it) in place of the LLM stages.
 */
export function waterfall(r: TurnReport): Waterfall {
  const f = turnFigures(r);
  const stages: Stage[] = [];
  for (const s of f.timeline) {
    if (s.stage === 'playback') continue;
    const key = s.stage;
    // A command and a tool call are named after what ran.
    const label = key === 'command' ? `command: ${s.name ?? ''}` : key === 'tool' ? `tool: ${s.name ?? ''}` : STAGE_LABELS[key];
    stages.push({ key, label, startMs: s.startMs, durationMs: Math.round((s.endMs - s.startMs) * 10) / 10, prepared: s.prepared === true });
  }
  const wait = f.audioWaitMs !== null && f.audioWaitMs >= 1 ? `; its first audio was ready ${formatMs(f.audioWaitMs)} before it played` : '';
  return {
    stages,
    totalMs: f.voiceToVoiceMs,
    complete: f.firstAudioAtMs !== null,
    endOfTurnAtMs: f.endOfTurnAtMs,
    firstAudioAtMs: f.firstAudioAtMs,
    playbackMs: f.playbackMs,
    prepared: f.preparedAheadMs === null ? null : `Prepared during the pause, ${formatMs(f.preparedAheadMs)} ahead of the end of turn${wait}.`,
  };
}

/** Round tick values (…, 50, 100, 200, 250, 500 …) covering `fromMs`..`toMs`, at most about 6 of them. */
export function niceTicks(fromMs: number, toMs: number, most = 6): { ticks: number[]; fromMs: number; toMs: number } {
  const span = Math.max(1, toMs - fromMs);
  const steps = [1, 10, 100, 1000, 10000, 100000].flatMap((e) => [e, 2 * e, 2.5 * e, 5 * e]).filter(Number.isInteger);
  const step = steps.find((s) => span / s <= most - 1) ?? Math.ceil(span / (most - 1));
  const from = Math.floor(fromMs / step) * step;
  const to = Math.max(from + step, Math.ceil(toMs / step) * step);
  const ticks: number[] = [];
  for (let t = from; t <= to + 1e-9; t += step) ticks.push(Math.round(t * 10) / 10);
  return { ticks, fromMs: from, toMs: to };
}

export type SummaryKey = Exclude<StatKey, 'bargeInMs'>;

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

/** p50 and p95 per stage over the session's turns: each turn's value is the one its waterfall shows. */
export function summarize(reports: readonly TurnReport[]): StageSummary[] {
  const values = reports.map((r) => statValues(turnFigures(r)));
  return SUMMARY_ROWS.map(({ key, label }) => {
    const xs = values.map((v) => v[key]);
    return { key, label, count: xs.filter((v) => v !== null).length, p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) };
  });
}

/**
 * The session's turns as the latency panel counts them: the finished reports, and the turn whose
 * answer has started playing (its report as it stood at the first audio) until its own arrives.
 */
export function sessionReports(reports: readonly TurnReport[], started: TurnReport | null): TurnReport[] {
  if (!started || reports.some((r) => r.index === started.index)) return [...reports];
  return [...reports, started];
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
