/**
 * The History tab's pure helpers: the sessions newest first, a logged turn's words, badges and
 * latency bar (the waterfall's stages and colours, drawn as one compact bar), the summary's rows,
 * rates and changes, and the export file. No DOM, no Node: unit-tested in test/renderer-history.test.ts.
 */
import type { HistorySession, HistorySessionInfo, LoggedTurn, LogSummary } from '../../electron/history/log-format';
import { formatMs, niceTicks, STAT_LABELS, waterfall, type StageKey } from './latency';

// ---------------------------------------------------------------------------
// Sessions

/** Newest first (by start time; the id breaks ties so the order is stable). */
export function sortSessions<T extends Pick<HistorySessionInfo, 'id' | 'startedAt'>>(sessions: readonly T[]): T[] {
  return [...sessions].sort((a, b) => timeOf(b.startedAt) - timeOf(a.startedAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

function timeOf(iso: string): number {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : 0;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A session's start as the list shows it, in local time: "14:05" today, "Yesterday 14:05", else
 * "2025-03-04 14:05" (an unparsable time is shown as it is).
 */
export function formatSessionStart(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const d = new Date(t);
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const day = (x: Date) => `${x.getFullYear()}-${pad(x.getMonth() + 1)}-${pad(x.getDate())}`;
  const now = new Date(nowMs);
  if (day(d) === day(now)) return `Today ${clock}`;
  const yesterday = new Date(nowMs);
  yesterday.setDate(yesterday.getDate() - 1);
  if (day(d) === day(yesterday)) return `Yesterday ${clock}`;
  return `${day(d)} ${clock}`;
}

/**
 * A span of time as the summary shows it: "Today 14:22" when it is within one minute (one clock
 * reading twice says nothing), "Today 14:22–14:35" within one day, else both ends ("Yesterday 23:50
 * to Today 00:10"). Either end unparsable: both as they are.
 */
export function formatTimeRange(fromIso: string, toIso: string, nowMs: number): string {
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  const start = formatSessionStart(fromIso, nowMs);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return `${start} to ${formatSessionStart(toIso, nowMs)}`;
  const a = new Date(Math.min(from, to));
  const b = new Date(Math.max(from, to));
  const first = formatSessionStart(a.toISOString(), nowMs);
  if (b.getTime() - a.getTime() < 60_000 && b.getMinutes() === a.getMinutes()) return first;
  if (a.toDateString() === b.toDateString()) return `${first}–${pad(b.getHours())}:${pad(b.getMinutes())}`;
  return `${first} to ${formatSessionStart(b.toISOString(), nowMs)}`;
}

/** A turn's clock time in local time ("14:05:09"). */
export function formatTurnTime(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const d = new Date(t);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// ---------------------------------------------------------------------------
// One logged turn

export const TEXT_NOT_LOGGED = '(text not logged)';

/** The user's words and the answer, or a placeholder when texts were not logged. */
export function turnTexts(t: LoggedTurn): { user: string; answer: string; logged: boolean } {
  if (!t.texts) return { user: TEXT_NOT_LOGGED, answer: TEXT_NOT_LOGGED, logged: false };
  return { user: t.report.userText, answer: t.report.assistantText, logged: true };
}

export type BadgeKind = 'command' | 'interrupted' | 'holding' | 'error' | 'fallback';

export interface Badge {
  kind: BadgeKind;
  label: string;
  /** A longer explanation (the tooltip; the error's message). */
  title: string;
}

/**
 * What set the turn apart: a local command answered it, it was interrupted, a holding phrase was
 * spoken, a stage failed, or the LLM provider fell back to another (`report.llm`, absent on lines
 * logged before it existed).
 */
export function turnBadges(t: LoggedTurn): Badge[] {
  const r = t.report;
  const out: Badge[] = [];
  if (r.command) out.push({ kind: 'command', label: `command: ${r.command.name}`, title: 'Answered by a local command, without the language model' });
  if (r.interrupted) out.push({ kind: 'interrupted', label: 'interrupted', title: 'The answer was interrupted' });
  if (r.holdingPhrase) out.push({ kind: 'holding', label: 'holding phrase', title: 'A holding phrase was spoken before the answer' });
  if (r.error) out.push({ kind: 'error', label: 'error', title: r.error });
  const fallback = fallbackOf(r);
  if (fallback) out.push({ kind: 'fallback', label: 'LLM fallback', title: fallback });
  return out;
}

/**
 * The LLM provider fallback of a report, described; null when there was none. `report.llm` is
 * missing on lines logged before it existed.
 */
function fallbackOf(report: LoggedTurn['report']): string | null {
  const llm = (report as Partial<Pick<LoggedTurn['report'], 'llm'>>).llm;
  if (!llm?.fallback) return null;
  return `The local model answered in place of the server${llm.error ? `: ${llm.error}` : ''}`;
}

export interface BarSegment {
  key: StageKey;
  label: string;
  durationMs: number;
  /** Where it starts and how wide it is, in percent of the session's axis. */
  leftPct: number;
  widthPct: number;
  prepared: boolean;
}

export interface TurnBar {
  segments: BarSegment[];
  /** Voice to voice; null when the answer never played. */
  totalMs: number | null;
  /** Whether the answer's audio began. */
  complete: boolean;
  /** Where the end of the user's speech (0) and the first audio fall on the axis, in percent. */
  zeroPct: number;
  firstAudioPct: number | null;
  /** The stages in words (the bar's accessible name and tooltip). */
  description: string;
}

/** A session's shared axis on the turn clock: ms from the end of speech (negative: prepared work before it). */
export interface BarAxis {
  fromMs: number;
  toMs: number;
}

/**
 * A logged turn as one compact timeline: the waterfall's stages (endpoint wait, STT, LLM first
 * token and first clause or the local command, TTS first audio), each where it ran against the
 * session's axis, so the bars of a session line up at the end of speech.
 */
export function turnBar(t: LoggedTurn, axis: BarAxis): TurnBar {
  const w = waterfall(t.report);
  const span = axis.toMs - axis.fromMs > 0 ? axis.toMs - axis.fromMs : 1;
  const at = (ms: number) => Math.min(100, Math.max(0, ((ms - axis.fromMs) / span) * 100));
  const segments = w.stages.map((s) => {
    const leftPct = at(s.startMs);
    return { key: s.key, label: s.label, durationMs: s.durationMs, leftPct, widthPct: at(s.startMs + s.durationMs) - leftPct, prepared: s.prepared };
  });
  const parts = w.stages.map((s) => `${s.label} ${formatMs(s.durationMs)}`);
  const prepared = w.prepared ? `; ${w.prepared.replace(/\.$/, '').toLowerCase()}` : '';
  const description = `${parts.join(', ') || 'no stages'}; voice to voice ${formatMs(w.totalMs)}${w.complete ? '' : ' (no answer audio)'}${prepared}`;
  return { segments, totalMs: w.totalMs, complete: w.complete, zeroPct: at(0), firstAudioPct: w.firstAudioAtMs === null ? null : at(w.firstAudioAtMs), description };
}

/** A round axis for a session's bars: from the earliest prepared work (or 0) to the latest first audio. */
export function barScale(turns: readonly LoggedTurn[]): BarAxis {
  let fromMs = 0;
  let toMs = 1;
  for (const t of turns) {
    const w = waterfall(t.report);
    for (const s of w.stages) {
      fromMs = Math.min(fromMs, s.startMs);
      toMs = Math.max(toMs, s.startMs + s.durationMs);
    }
    toMs = Math.max(toMs, w.totalMs ?? 0);
  }
  const axis = niceTicks(fromMs, toMs);
  return { fromMs: axis.fromMs, toMs: axis.toMs };
}

// ---------------------------------------------------------------------------
// The summary

export type SummaryStage = 'voiceToVoiceMs' | 'endpointMs' | 'sttMs' | 'llmTtftMs' | 'ttsFirstAudioMs' | 'bargeInMs';

const SUMMARY_STAGES: { key: SummaryStage; label: string }[] = (['voiceToVoiceMs', 'endpointMs', 'sttMs', 'llmTtftMs', 'ttsFirstAudioMs', 'bargeInMs'] as const).map((key) => ({
  key,
  label: STAT_LABELS[key],
}));

export interface SummaryRow {
  key: SummaryStage;
  label: string;
  n: number;
  p50: number | null;
  p95: number | null;
}

/** p50/p95 of the main stages over the whole log. */
export function summaryRows(summary: LogSummary): SummaryRow[] {
  return SUMMARY_STAGES.map(({ key, label }) => {
    const d = summary.stages[key];
    return { key, label, n: d.n, p50: d.median, p95: d.p95 };
  });
}

const RATES: { key: keyof LogSummary['rates']; label: string }[] = [
  { key: 'interruption', label: 'Interrupted' },
  { key: 'holdingPhrase', label: 'Holding phrase' },
  { key: 'emptyTranscript', label: 'Nothing recognized' },
  { key: 'localCommand', label: 'Local command' },
];

/** A share (0..1) as a percentage: "12%", "0.5%" below 1%, "—" for none. */
export function formatRate(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const pct = x * 100;
  if (pct > 0 && pct < 1) return `${pct.toFixed(1)}%`;
  return `${Math.round(pct)}%`;
}

/** The rates with their labels, as percentages. */
export function rateRows(summary: LogSummary): { key: string; label: string; value: string }[] {
  return RATES.map(({ key, label }) => ({ key, label, value: formatRate(summary.rates[key]) }));
}

export interface ChangeLine {
  at: string;
  what: string;
  /** "812 ms → 640 ms" (voice-to-voice medians before and after). */
  effect: string;
  /** How many turns each median is over: "4 → 7 turns". */
  turns: string;
}

/** Each change of settings, models or app version, with the voice-to-voice median before and after it. */
export function changeLines(summary: LogSummary): ChangeLine[] {
  return summary.changes.map((c) => ({
    at: c.at,
    what: c.what.join('; ') || 'settings',
    effect: `${formatMs(c.before.voiceToVoiceMs.median)} → ${formatMs(c.after.voiceToVoiceMs.median)}`,
    turns: `${c.before.turns} → ${plural(c.after.turns, 'turn')}`,
  }));
}

// ---------------------------------------------------------------------------
// Export

/** `session-<id>.json`, with anything a file name should not carry replaced. */
export function exportFileName(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 100);
  return `session-${safe || 'unnamed'}.json`;
}

/** The session as the exported file holds it: indented JSON that parses back to the same value. */
export function exportJson(session: HistorySession): string {
  return `${JSON.stringify(session, null, 2)}\n`;
}
