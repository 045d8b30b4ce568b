/**
 * Every latency figure any view shows, from one turn report: the timeline (where each stage ran,
 * 0 = the end of the user's speech) and the durations and positions read off it. The waterfall,
 * the session table, History, `bench`, `npm run log -- summary` and `talk` all take their numbers
 * from here, so one turn reads the same everywhere. Pure and browser-safe: no Node imports.
 *
 * Answers are prepared during the user's pause, so work can run before the end of turn, or even
 * before the measured end of speech: a difference of two times can be negative. Here a duration is
 * always a stage's length (never negative); a time that can fall either side of 0 is a position,
 * named `...AtMs`.
 */
import type { TimelineStage, TimelineStageName, TurnLatency, TurnReport } from '../pipeline/report';

const r1 = (x: number) => Math.round(x * 10) / 10;

/** What the figures are read from: a turn report, its `latency` block aside (that block is made from them). */
type Recorded = Omit<TurnReport, 'latency'>;

/** When the language model was asked; reports from before `llmStartMs` existed get the best estimate they allow. */
function llmStart(r: Recorded): number {
  const t = r.timings;
  if (t.llmStartMs !== undefined && t.llmStartMs !== null) return t.llmStartMs;
  if (r.prepared === 'used' && r.preparedLeadMs !== null) return t.endOfTurnMs - r.preparedLeadMs;
  return t.sttFinalMs;
}

/**
 * The turn's timeline from its timings: endpoint wait, speech to text, then either the LLM (asked
 * to first token, first token to first clause) or the local command, the first clause's synthesis,
 * and the answer playing. Work for a used prepared answer is marked `prepared`.
 */
export function timelineOf(r: Recorded): TimelineStage[] {
  const t = r.timings;
  const zero = t.speechEndMs;
  const out: TimelineStage[] = [];
  const used = r.prepared === 'used';
  const add = (stage: TimelineStageName, from: number | null, to: number | null, name?: string) => {
    if (from === null || to === null) return;
    // Begun before the final words were known: only a prepared answer's work can be.
    const prepared = used && from < t.sttFinalMs && stage !== 'endpoint' && stage !== 'stt';
    out.push({ stage, startMs: r1(from - zero), endMs: r1(Math.max(from, to) - zero), ...(name ? { name } : {}), ...(prepared ? { prepared } : {}) });
  };
  add('endpoint', zero, Math.max(zero, t.endOfTurnMs));
  add('stt', t.endOfTurnMs, t.sttFinalMs);
  if (r.command) add('command', t.sttFinalMs, t.firstClauseMs, r.command.name);
  else if (t.llmFirstTokenMs !== null) {
    add('llm', llmStart(r), t.llmFirstTokenMs);
    add('clause', t.llmFirstTokenMs, t.firstClauseMs);
  }
  const tts = r.engine.ttsFirstClauseMs;
  // The first clause's synthesis starts as it is cut: the speaking loop waits on the clause queue.
  if (t.firstClauseMs !== null && tts !== null) add('tts', t.firstClauseMs, t.firstClauseMs + tts);
  // A report without the synthesis time: clause to audio is the best it allows (any wait included).
  else if (t.firstClauseMs !== null && t.firstAudioMs !== null) add('tts', t.firstClauseMs, t.firstAudioMs);
  for (const use of r.tools ?? []) add('tool', use.startMs, use.startMs + use.ms, use.name);
  add('playback', t.firstAudioMs, t.lastAudioMs ?? t.firstAudioMs);
  return out;
}

/** An interrupted answer in the order it happened, on the pipeline clock (for `talk`: the input file's). */
export interface BargeInFigures {
  /** Where the interrupting speech began (null for the stop button). */
  speechAtMs: number | null;
  /** Playback was held while the speech was judged (null: it stopped at once). */
  pausedAtMs: number | null;
  /** The interruption was confirmed and the answer cancelled. */
  confirmedAtMs: number;
  /** Speech start to playback stopped (held or cut). */
  stoppedAfterSpeechMs: number | null;
}

export interface TurnFigures {
  timeline: TimelineStage[];
  /** Durations in ms, never negative; null where the stage did not run. */
  endpointMs: number;
  sttMs: number | null;
  /** LLM asked to its first token. */
  llmFirstTokenMs: number | null;
  /** LLM asked to the first clause ready for speech. */
  llmFirstClauseMs: number | null;
  commandMs: number | null;
  /** Synthesis of the first clause (not the time its audio then waited to play). */
  ttsFirstAudioMs: number | null;
  /** End of speech to first audio (0 when the audio began before the measured end of speech). */
  voiceToVoiceMs: number | null;
  /** End of turn to first audio. */
  afterEndMs: number | null;
  /** First audio ready to playing: a prepared answer waiting for the end of turn, or audio queued behind other audio. */
  audioWaitMs: number | null;
  /** Of the time from the end of speech to the first audio, what no stage accounts for: our own code. */
  overheadMs: number | null;
  /** How long the answer played (to its end, or to where it was stopped). */
  playbackMs: number | null;
  /** Positions on the turn clock (0 = end of speech); these can be negative. */
  endOfTurnAtMs: number;
  firstAudioAtMs: number | null;
  /** A used prepared answer: how long before the end of turn its work began; null otherwise. */
  preparedAheadMs: number | null;
  bargeIn: BargeInFigures | null;
}

const length = (s: TimelineStage | undefined) => (s ? r1(s.endMs - s.startMs) : null);

/** The length of `[from, to]` that none of `spans` covers. */
function uncovered(spans: readonly TimelineStage[], from: number, to: number): number {
  const sorted = spans.map((s) => [Math.max(from, s.startMs), Math.min(to, s.endMs)] as const).filter(([a, b]) => b > a).sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let at = from;
  for (const [a, b] of sorted) {
    if (b <= at) continue;
    covered += b - Math.max(a, at);
    at = b;
  }
  return Math.max(0, to - from - covered);
}

/** Every figure of one turn. Reports logged before the timeline existed get it rebuilt from their timings. */
export function turnFigures(r: Recorded): TurnFigures {
  const timeline = r.timeline ?? timelineOf(r);
  const of = (stage: TimelineStageName) => timeline.find((s) => s.stage === stage);
  const t = r.timings;
  const zero = t.speechEndMs;
  const llm = of('llm');
  const clause = of('clause');
  const tts = of('tts');
  const playback = of('playback');
  const firstAudioAtMs = playback ? playback.startMs : null;
  const work = timeline.filter((s) => s.stage !== 'playback');
  const b = r.bargeIn;
  return {
    timeline,
    endpointMs: length(of('endpoint')) ?? 0,
    sttMs: length(of('stt')),
    llmFirstTokenMs: length(llm),
    llmFirstClauseMs: llm && clause ? r1(clause.endMs - llm.startMs) : null,
    commandMs: length(of('command')),
    ttsFirstAudioMs: length(tts),
    voiceToVoiceMs: firstAudioAtMs === null ? null : Math.max(0, firstAudioAtMs),
    afterEndMs: t.firstAudioMs === null ? null : r1(Math.max(0, t.firstAudioMs - Math.max(t.endOfTurnMs, zero))),
    audioWaitMs: tts && firstAudioAtMs !== null ? r1(Math.max(0, firstAudioAtMs - tts.endMs)) : null,
    overheadMs: firstAudioAtMs === null ? null : r1(uncovered(work, 0, Math.max(0, firstAudioAtMs))),
    playbackMs: length(playback),
    endOfTurnAtMs: r1(t.endOfTurnMs - zero),
    firstAudioAtMs,
    preparedAheadMs: r.prepared === 'used' && llm ? r1(Math.max(0, t.endOfTurnMs - zero - llm.startMs)) : null,
    bargeIn: b
      ? {
          speechAtMs: b.speechStartMs,
          pausedAtMs: b.playbackStoppedMs < b.detectedMs ? b.playbackStoppedMs : null,
          confirmedAtMs: b.detectedMs,
          stoppedAfterSpeechMs: b.speechStartMs === null ? null : r1(Math.max(0, b.playbackStoppedMs - b.speechStartMs)),
        }
      : null,
  };
}

/**
 * A report's `latency` block and its engine's `llmUntilFirstClauseMs`, read off the figures as every
 * view reads them (the names kept for the tools that read them): never negative. `r` may lack them.
 */
export function withReportFigures(r: Recorded): TurnReport {
  const f = turnFigures(r);
  const latency: TurnLatency = { endpointMs: f.endpointMs, sttMs: f.sttMs ?? 0, llmTtftMs: f.llmFirstTokenMs, ttsFirstAudioMs: f.ttsFirstAudioMs, voiceToVoiceMs: f.voiceToVoiceMs };
  // A used prepared answer's lead is where its model was asked, as the figures place it (the draft itself
  // was begun earlier, when the pause's words were asked for); a dropped one keeps the draft's.
  const preparedLeadMs = f.preparedAheadMs ?? r.preparedLeadMs;
  return { ...r, preparedLeadMs, latency, engine: { ...r.engine, llmUntilFirstClauseMs: f.llmFirstClauseMs } };
}

/** The figures the percentile tables show (session, History, `bench`, `log summary`), keyed alike. */
export type StatKey = 'endpointMs' | 'sttMs' | 'llmTtftMs' | 'ttsFirstAudioMs' | 'voiceToVoiceMs' | 'bargeInMs';

/** The names the tables give them. */
export const STAT_LABELS: Record<StatKey, string> = {
  endpointMs: 'Endpoint wait',
  sttMs: 'Speech to text',
  llmTtftMs: 'LLM first token',
  ttsFirstAudioMs: 'TTS first audio',
  voiceToVoiceMs: 'Voice to voice',
  bargeInMs: 'Barge-in',
};

/** One turn's value for each table row: the same numbers its waterfall shows. */
export function statValues(f: TurnFigures): Record<StatKey, number | null> {
  return {
    endpointMs: f.endpointMs,
    sttMs: f.sttMs,
    llmTtftMs: f.llmFirstTokenMs,
    ttsFirstAudioMs: f.ttsFirstAudioMs,
    voiceToVoiceMs: f.voiceToVoiceMs,
    bargeInMs: f.bargeIn?.stoppedAfterSpeechMs ?? null,
  };
}

/** "291 ms", "12.3 s" from 10 s up, "—" for none. */
export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
