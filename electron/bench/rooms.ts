/**
 * The room benchmark (`npm run bench -- --rooms DIR`): the app's pipeline (same code, real engines,
 * fast clock) over speech clips while its own answers come back through a room (an impulse
 * response, at two echo gains), and what that does: the assistant pausing or stopping itself while
 * the user is silent, turns heard in its own voice, barge-ins caught and missed, how much echo the
 * canceller removed (ERLE) and what the canceller costs per window.
 */
import { machineInfo, type MachineInfo } from './machine';
import type { Room, RoomClip, Span } from './room-corpus';
import { FastForwardClock } from '../pipeline/clock';
import type { LoadedEngines } from '../pipeline/load-engines';
import type { TurnReport } from '../pipeline/report';
import { irMs, RoomSimulator } from '../pipeline/run/echo';
import { runInput } from '../pipeline/run/run-input';
import { TimelineOutput } from '../pipeline/speak/output';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import type { Settings } from '../settings/schema';
import { percentile } from '../stats';

/** The echo gains each room is run at: the direct path at half and at full strength against the answer. */
export const ROOM_GAINS: readonly number[] = [0.5, 1];

/**
 * A pause or stop this close to a segment of the user's speech is the user's doing: the VAD hears
 * a word a window or two late, and its hangover and a barge-in's confirmation run on past the word.
 */
export const SPEAKING_BEFORE_MS = 100;
export const SPEAKING_AFTER_MS = 500;

/** What one clip's run left: the pipeline's events that matter here and the turns' reports. */
export interface ClipRun {
  speech: readonly Span[];
  bargeIn: boolean;
  /** When the answer gave way: a `playback` event `paused` or `ducked` (pipeline time), one per hold. */
  pausedMs: number[];
  /** `interrupted` events: when, and whose answer. */
  interrupted: { t: number; turn: number }[];
  /** Each `end-of-turn` event's speech. */
  turns: Span[];
  reports: readonly TurnReport[];
}

export interface ClipScore {
  /** Pauses, lowerings and stops of playback while the user was silent. */
  selfInterruptions: number;
  /** Of those, the ones that stopped the answer (an `interrupted`, not a pause that resumed). */
  selfStops: number;
  /** Where each self-interruption happened: on the clip's timeline and after the playing answer's first audio (null: none was playing). */
  selfInterruptionsAt: { atMs: number; intoAnswerMs: number | null }[];
  /** User turns whose speech overlaps none of the clip's segments. */
  falseTurns: number;
  /** Segments of a barge-in clip that began while an answer was playing. */
  segmentsOverAnswers: number;
  /** For each of those that stopped playback: stop time minus the segment's start. */
  bargeInMs: number[];
  /** Per barge-in caught: when the answer first gave way (lowered or paused) after the segment began, ms after it. */
  gaveWayMs: number[];
  missedBargeIns: number;
  /** Per answer that played: `report.echo.erleSettledDb` and `erleDb`. */
  erleSettledDb: number[];
  erleDb: number[];
  turns: number;
}

const speakingAt = (speech: readonly Span[], t: number) => speech.some((s) => t >= s.startMs - SPEAKING_BEFORE_MS && t <= s.endMs + SPEAKING_AFTER_MS);
const overlapsSpeech = (speech: readonly Span[], turn: Span) => speech.some((s) => turn.startMs <= s.endMs + SPEAKING_AFTER_MS && turn.endMs >= s.startMs - SPEAKING_BEFORE_MS);

/** Where playback stopped for an `interrupted` event, and where the speech that stopped it began. */
function stopOf(run: ClipRun, e: { t: number; turn: number }): { stoppedMs: number; speechMs: number } {
  const b = run.reports.find((r) => r.index === e.turn)?.bargeIn ?? null;
  const stoppedMs = b?.playbackStoppedMs ?? e.t;
  return { stoppedMs, speechMs: b?.speechStartMs ?? stoppedMs };
}

/** How long the answer playing at `t` had been playing (the latest one that began before it). */
function intoAnswer(reports: readonly TurnReport[], t: number): number | null {
  const starts = reports.flatMap((r) => (r.timings.firstAudioMs !== null && r.timings.firstAudioMs <= t ? [r.timings.firstAudioMs] : []));
  return starts.length ? Math.round(t - Math.max(...starts)) : null;
}

/** Scores one clip's run (pure: the events and reports in, the counts out). */
export function scoreClip(run: ClipRun): ClipScore {
  // One incident per pause, and per stop that no pause came before (a held answer that is then
  // stopped is one incident, stopped); a stop of several answers at once is one too.
  const incidents = run.pausedMs.map((t) => ({ atMs: t, stopMs: null as number | null }));
  for (const e of run.interrupted) {
    const { stoppedMs, speechMs } = stopOf(run, e);
    const same = incidents.find((i) => Math.abs((i.stopMs ?? i.atMs) - stoppedMs) <= 1);
    if (same) same.stopMs = stoppedMs;
    else incidents.push({ atMs: speechMs, stopMs: stoppedMs });
  }
  const self = incidents.filter((i) => !speakingAt(run.speech, i.atMs));

  const bargeInMs: number[] = [];
  const gaveWayMs: number[] = [];
  let over = 0;
  if (run.bargeIn) {
    run.speech.forEach((seg, k) => {
      const playing = run.reports.some((r) => r.timings.firstAudioMs !== null && r.timings.lastAudioMs !== null && r.timings.firstAudioMs <= seg.startMs && seg.startMs < r.timings.lastAudioMs);
      if (!playing) return;
      over++;
      // The stop this segment caused: decided after it began, before the next one did.
      const until = run.speech[k + 1]?.startMs ?? Infinity;
      const stop = run.interrupted.find((e) => e.t >= seg.startMs && e.t < until);
      // Playback held since before the words (a pause on echo) was stopped, for the user, at once.
      if (!stop) return;
      const stoppedMs = stopOf(run, stop).stoppedMs;
      bargeInMs.push(Math.max(0, stoppedMs - seg.startMs));
      // Held since before the words, or lowered (or paused) after they began; at the latest, stopped.
      const gave = run.pausedMs.find((t) => t >= seg.startMs - SPEAKING_BEFORE_MS && t < until) ?? stoppedMs;
      gaveWayMs.push(Math.max(0, Math.min(gave, stoppedMs) - seg.startMs));
    });
  }
  const echoes = run.reports.flatMap((r) => (r.echo ? [r.echo] : []));
  return {
    selfInterruptions: self.length,
    selfStops: self.filter((i) => i.stopMs !== null).length,
    selfInterruptionsAt: self.map((i) => ({ atMs: Math.round(i.atMs), intoAnswerMs: intoAnswer(run.reports, i.atMs) })),
    falseTurns: run.turns.filter((t) => !overlapsSpeech(run.speech, t)).length,
    segmentsOverAnswers: over,
    bargeInMs,
    gaveWayMs,
    missedBargeIns: over - bargeInMs.length,
    erleSettledDb: echoes.flatMap((e) => (e.erleSettledDb === null ? [] : [e.erleSettledDb])),
    erleDb: echoes.flatMap((e) => (e.erleDb === null ? [] : [e.erleDb])),
    turns: run.turns.length,
  };
}

const round = (v: number | null, digits: number) => (v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits);
/** Median and p95 (latencies, costs: the high end matters). */
export const highEnd = (xs: readonly number[], digits = 1) => ({ median: round(percentile(xs, 0.5), digits), p95: round(percentile(xs, 0.95), digits) });
/** Median and p5 (ERLE: the low end matters). */
const lowEnd = (xs: readonly number[]) => ({ median: round(percentile(xs, 0.5), 1), p5: round(percentile(xs, 0.05), 1) });

export interface RoomScore {
  name: string;
  gain: number;
  selfInterruptions: number;
  falseTurns: number;
  bargeIns: number;
  missedBargeIns: number;
  bargeInMs: { median: number | null; p95: number | null };
  /** From the start of an interruption to the answer giving way (lowered while judged, or paused). */
  gaveWayMs: { median: number | null; p95: number | null };
  /** ERLE after each answer's first second (`erleSettledDb`), over answers. */
  erleDb: { median: number | null; p5: number | null };
  /** ERLE over each whole answer (`erleDb`), over answers. */
  erleWholeDb: { median: number | null; p5: number | null };
  rt60: number | null;
  drrDb: number | null;
  irMs: number;
  selfStops: number;
  segmentsOverAnswers: number;
  /** The echo canceller's time per 32 ms window while echo was expected. */
  echoCancellerMs: { n: number; median: number | null; p95: number | null };
  answers: number;
  turns: number;
  clips: ({ name: string } & Omit<ClipScore, 'bargeInMs' | 'gaveWayMs' | 'erleSettledDb' | 'erleDb'> & { bargeIns: number })[];
}

export interface RoomBenchResult {
  rooms: RoomScore[];
  gains: number[];
  clips: string[];
  /** Over every room and gain. */
  echoCancellerMs: { n: number; median: number | null; p95: number | null };
  machine: MachineInfo;
  models: Record<'vad' | 'stt' | 'llm' | 'tts', { id: string }>;
  tookS: number;
}

export const costSummary = (costs: readonly number[]) => ({ n: costs.length, ...highEnd(costs, 3) });

/**
 * One incident per time the answer gives way, from `playback` events: it gives way while paused or
 * lowered, and is back only when neither. A lowered answer that then pauses is one incident; so is
 * an onset hold (paused) released lowered (ducked, then resumed) and then paused again.
 */
export class GiveWay {
  private paused = false;
  private lowered = false;

  /** Returns whether this change began an incident. */
  on(action: 'paused' | 'resumed' | 'ducked' | 'restored'): boolean {
    const before = this.paused || this.lowered;
    if (action === 'paused' || action === 'resumed') this.paused = action === 'paused';
    else this.lowered = action === 'ducked';
    return !before && (this.paused || this.lowered);
  }

  /** The answer was stopped: back at full volume, nothing held. */
  stopped(): void {
    this.paused = this.lowered = false;
  }
}

/** One clip through a fresh pipeline (clock, timeline, conversation) whose answers come back through the room. */
/** How a clip sees the engines: as loaded, or (bench --real-size) hearing its manifest words on its clock. */
export type RoomClipEngines = (engines: LoadedEngines, clip: RoomClip, clock: FastForwardClock) => LoadedEngines;

async function runClip(engines: LoadedEngines, clip: RoomClip, room: Room, gain: number, settings: Settings, forClip: RoomClipEngines): Promise<{ run: ClipRun; costs: number[] }> {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(forClip(engines, clip, clock), output, clock, () => settings);
  const run: ClipRun = { speech: clip.speech, bargeIn: clip.bargeIn, pausedMs: [], interrupted: [], turns: [], reports: [] };
  const giving = new GiveWay();
  pipeline.events.on((e) => {
    if (e.type === 'playback') {
      if (giving.on(e.action)) run.pausedMs.push(e.t);
    } else if (e.type === 'interrupted') {
      giving.stopped();
      run.interrupted.push({ t: e.t, turn: e.turn });
    } else if (e.type === 'end-of-turn') run.turns.push({ startMs: e.speechStartMs, endMs: e.speechEndMs });
  });
  const speakers = new RoomSimulator(output, room.ir, gain, 0);
  const reports = await runInput(pipeline, clip.samples, clock, output, { fast: true, recordInto: (frame, startMs) => speakers.mixInto(frame, startMs) });
  return { run: { ...run, reports: [...reports] }, costs: [...pipeline.echoCostMs] };
}

function roomScore(room: Room, gain: number, clips: readonly RoomClip[], scores: ClipScore[], costs: number[], answers: number): RoomScore {
  const sum = (pick: (s: ClipScore) => number) => scores.reduce((a, s) => a + pick(s), 0);
  const bargeInMs = scores.flatMap((s) => s.bargeInMs);
  return {
    name: room.name,
    gain,
    selfInterruptions: sum((s) => s.selfInterruptions),
    falseTurns: sum((s) => s.falseTurns),
    bargeIns: bargeInMs.length,
    missedBargeIns: sum((s) => s.missedBargeIns),
    bargeInMs: highEnd(bargeInMs),
    gaveWayMs: highEnd(scores.flatMap((s) => s.gaveWayMs)),
    erleDb: lowEnd(scores.flatMap((s) => s.erleSettledDb)),
    erleWholeDb: lowEnd(scores.flatMap((s) => s.erleDb)),
    rt60: room.rt60,
    drrDb: room.drrDb,
    irMs: irMs(room.ir),
    selfStops: sum((s) => s.selfStops),
    segmentsOverAnswers: sum((s) => s.segmentsOverAnswers),
    echoCancellerMs: costSummary(costs),
    answers,
    turns: sum((s) => s.turns),
    clips: scores.map(({ bargeInMs: b, gaveWayMs: _g, erleSettledDb: _s, erleDb: _w, ...rest }, i) => ({ name: clips[i]!.name, ...rest, bargeIns: b.length })),
  };
}

export type Progress = (line: string) => void;

/** Every clip in every room at every gain. */
export async function runRoomBench(
  engines: LoadedEngines,
  rooms: readonly Room[],
  clips: readonly RoomClip[],
  gains: readonly number[],
  settings: Settings,
  progress: Progress,
  forClip: RoomClipEngines = (e) => e,
): Promise<RoomBenchResult> {
  const t0 = performance.now();
  const results: RoomScore[] = [];
  const allCosts: number[] = [];
  for (const room of rooms) {
    for (const gain of gains) {
      const started = performance.now();
      const scores: ClipScore[] = [];
      const costs: number[] = [];
      let answers = 0;
      for (const clip of clips) {
        const { run, costs: c } = await runClip(engines, clip, room, gain, settings, forClip);
        scores.push(scoreClip(run));
        costs.push(...c);
        answers += run.reports.filter((r) => r.timings.firstAudioMs !== null).length;
      }
      allCosts.push(...costs);
      const score = roomScore(room, gain, clips, scores, costs, answers);
      results.push(score);
      progress(`${room.name} at gain ${gain}: ${score.selfInterruptions} self-interruptions, ${score.falseTurns} false turns, ${score.bargeIns}/${score.segmentsOverAnswers} barge-ins (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
  const m = engines.models;
  return {
    rooms: results,
    gains: [...gains],
    clips: clips.map((c) => c.name),
    echoCancellerMs: costSummary(allCosts),
    machine: machineInfo(engines.llm.info),
    models: { vad: { id: m.vad.id }, stt: { id: m.stt.id }, llm: { id: m.llm.id }, tts: { id: m.tts.id } },
    tookS: Math.round((performance.now() - t0) / 1000),
  };
}

const fmt = (v: number | null, digits = 0) => (v === null ? '—' : v.toFixed(digits));
const pair = (a: number | null, b: number | null, digits = 0) => `${fmt(a, digits)} / ${fmt(b, digits)}`;

/** A block per room: its facts, then a row per gain. */
export function roomTable(r: RoomBenchResult): string {
  const head = ['gain', 'self-interruptions (stops)', 'false turns', 'barge-ins', 'missed', 'barge-in ms med/p95', 'gave way ms med/p95', 'ERLE dB settled med/p5', 'ERLE dB whole med/p5', 'canceller ms med/p95'];
  const rows = r.rooms.map((s) => [
    s.gain.toFixed(1),
    `${s.selfInterruptions} (${s.selfStops})`,
    String(s.falseTurns),
    `${s.bargeIns}/${s.segmentsOverAnswers}`,
    String(s.missedBargeIns),
    pair(s.bargeInMs.median, s.bargeInMs.p95),
    pair(s.gaveWayMs.median, s.gaveWayMs.p95),
    pair(s.erleDb.median, s.erleDb.p5, 1),
    pair(s.erleWholeDb.median, s.erleWholeDb.p5, 1),
    pair(s.echoCancellerMs.median, s.echoCancellerMs.p95, 3),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => c.padStart(widths[i]!)).join('  ')}`;
  const lines: string[] = [];
  r.rooms.forEach((s, i) => {
    if (i === 0 || r.rooms[i - 1]!.name !== s.name) {
      if (i > 0) lines.push('');
      const facts = [s.rt60 === null ? null : `RT60 ${s.rt60.toFixed(2)} s`, s.drrDb === null ? null : `DRR ${s.drrDb > 0 ? '+' : ''}${s.drrDb} dB`, `${s.irMs} ms response`];
      lines.push(`${s.name}  (${facts.filter((f) => f !== null).join(', ')})`);
      lines.push(line(head));
    }
    lines.push(line(rows[i]!));
  });
  lines.push('');
  lines.push(`${r.clips.length} clips × ${r.rooms.length} room/gain runs; answers per run: ${r.rooms.map((s) => s.answers).join(', ')}`);
  lines.push(`echo canceller per 32 ms window: median ${fmt(r.echoCancellerMs.median, 3)} ms, p95 ${fmt(r.echoCancellerMs.p95, 3)} ms (${r.echoCancellerMs.n} windows)`);
  return lines.join('\n');
}

/** `--quick`: one question, two turns, and the two clips in which the user interrupts. */
export const QUICK_CLIPS: readonly string[] = ['weather', 'two_turns', 'interrupt', 'stop_over_answer'];
