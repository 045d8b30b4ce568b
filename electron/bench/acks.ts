/**
 * The acknowledgement benchmark (`npm run bench -- --acks`): every clip of the generated corpus
 * (ack-corpus.ts) through the app's pipeline (real engines, fast clock), scored per item said over
 * the answer: an acknowledgement must leave the answer playing, with no turn and no stop; a real
 * interruption must stop it within STOP_WITHIN_MS of its start.
 */
import path from 'node:path';
import { readWavFile } from '../audio/wav';
import { toMono16k } from '../audio/resample';
import { FastForwardClock } from '../pipeline/clock';
import type { LoadedEngines } from '../pipeline/load-engines';
import type { Backchannel, TurnReport } from '../pipeline/report';
import { TimelineOutput } from '../pipeline/speak/output';
import { runInput } from '../pipeline/run/run-input';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import type { Settings } from '../settings/schema';
import { distribution, type Distribution } from '../stats';
import type { AckCorpus, CorpusItem, ItemKind, Split } from './ack-corpus';

/** What the issue asks of a real interruption: playback stopped within this long of its first sound. */
export const STOP_WITHIN_MS = 350;
/** A listed acknowledgement, a turn or a barge-in belongs to the item said within this much of it. */
const NEAR_MS = 300;

export type ItemOutcome =
  /** The answer went on and the acknowledgement was listed as one. */
  | 'passed'
  /** The answer went on, but nothing listed it (its speech was too short to be judged: nothing to hold it by). */
  | 'unheard'
  /** The answer stopped there (interrupted). */
  | 'stopped'
  /** It became a turn of its own (answered). */
  | 'turn'
  /** No answer was playing when it was said (the answer had ended: it measures nothing). */
  | 'no-answer';

export interface ItemResult {
  clip: string;
  voice: string;
  split: Split;
  kind: ItemKind;
  text: string;
  levelDb: number;
  startMs: number;
  outcome: ItemOutcome;
  /** Interruptions: playback stopped this long after the item began (null: it did not stop). */
  stoppedAfterMs: number | null;
  /** The longest silence in the answer from 100 ms before the item to 500 ms after its end. */
  gapMs: number;
  /** What the recognizer made of it, where a record says (an acknowledgement's listing, the turn's words). */
  heard: string | null;
  /** The acknowledgement's evidence, as its report lists it. */
  evidence: Backchannel['evidence'] | null;
}

export interface AckBenchResult {
  split: Split | 'all';
  clips: number;
  /**
   * `measured`: the acknowledgements said over an answer (n less the `no-answer` ones, which an earlier
   * item of the same clip stopped: counting them too would count that one failure twice);
   * `passedShare` is over those.
   */
  acknowledgements: { n: number; measured: number; passed: number; passedShare: number; outcomes: Record<ItemOutcome, number>; gapMs: Distribution };
  interruptions: { n: number; stoppedInTime: number; stoppedInTimeShare: number; outcomes: Record<ItemOutcome, number>; stoppedAfterMs: Distribution };
  items: ItemResult[];
}

/** Runs `clips` (names in `corpus`) and scores every item said over an answer. */
export async function runAckBench(engines: LoadedEngines, corpus: AckCorpus, dir: string, names: string[], settings: Settings, progress: (done: number) => void = () => {}): Promise<ItemResult[]> {
  const items: ItemResult[] = [];
  for (const [n, name] of names.entries()) {
    const clip = corpus.clips[name]!;
    const samples = toMono16k(await readWavFile(path.join(dir, clip.file)));
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const pipeline = new VoicePipeline(engines, output, clock, () => settings);
    const reports = await runInput(pipeline, samples, clock, output, { fast: true });
    const rate = engines.tts.sampleRate;
    const rendered = output.render(rate, samples.length / 16);
    for (const item of clip.items) items.push(score(name, clip.voice, clip.split, item, reports, rendered, rate));
    progress(n + 1);
  }
  return items;
}

function score(clip: string, voice: string, split: Split, item: CorpusItem, reports: TurnReport[], rendered: Float32Array, rate: number): ItemResult {
  const startMs = item.start * 1000;
  const endMs = item.end * 1000;
  const near = (t: number | null | undefined) => t !== null && t !== undefined && t >= startMs - NEAR_MS && t <= endMs + NEAR_MS;
  const answer = reports.find((r) => r.timings.firstAudioMs !== null && r.timings.firstAudioMs < startMs && (r.timings.lastAudioMs ?? Infinity) > startMs - 50);
  const listed = answer?.backchannels.find((b) => near(b.atMs)) ?? null;
  const ownTurn = reports.find((r) => near(r.timings.speechStartMs));
  const stopped = answer?.interrupted && (near(answer.bargeIn?.speechStartMs) || near(answer.bargeIn?.playbackStoppedMs)) ? answer : null;
  const outcome: ItemOutcome = !answer ? 'no-answer' : stopped ? 'stopped' : ownTurn ? 'turn' : listed ? 'passed' : 'unheard';
  const stoppedAfterMs = stopped?.bargeIn ? Math.round(stopped.bargeIn.playbackStoppedMs - startMs) : null;
  return {
    clip,
    voice,
    split,
    kind: item.kind,
    text: item.text,
    levelDb: item.levelDb,
    startMs: Math.round(startMs),
    outcome,
    stoppedAfterMs,
    gapMs: longestSilenceMs(rendered, rate, startMs - 100, endMs + 500),
    heard: listed?.text ?? ownTurn?.userText ?? null,
    evidence: listed?.evidence ?? null,
  };
}

/** The longest stretch (ms) within [fromMs, toMs) in which the rendered answer is silent (5 ms blocks under -60 dBFS). */
export function longestSilenceMs(x: Float32Array, rate: number, fromMs: number, toMs: number): number {
  const block = Math.round(rate / 200);
  let longest = 0;
  let run = 0;
  for (let i = Math.max(0, Math.round((fromMs / 1000) * rate)); i + block <= Math.min(x.length, (toMs / 1000) * rate); i += block) {
    let e = 0;
    for (let k = i; k < i + block; k++) e += x[k]! * x[k]!;
    run = e / block < 1e-6 ? run + 5 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

const OUTCOMES: readonly ItemOutcome[] = ['passed', 'unheard', 'stopped', 'turn', 'no-answer'];
const count = (items: ItemResult[]) => Object.fromEntries(OUTCOMES.map((o) => [o, items.filter((i) => i.outcome === o).length])) as Record<ItemOutcome, number>;
const share = (k: number, n: number) => (n === 0 ? 0 : Math.round((k / n) * 1000) / 1000);

export function summarizeAcks(split: Split | 'all', clips: number, items: ItemResult[]): AckBenchResult {
  const acks = items.filter((i) => i.kind === 'acknowledgement');
  const ints = items.filter((i) => i.kind === 'interruption');
  // An acknowledgement that left the answer playing passed, listed or not.
  const passed = acks.filter((i) => i.outcome === 'passed' || i.outcome === 'unheard').length;
  const inTime = ints.filter((i) => i.stoppedAfterMs !== null && i.stoppedAfterMs <= STOP_WITHIN_MS).length;
  const measured = acks.filter((i) => i.outcome !== 'no-answer').length;
  return {
    split,
    clips,
    acknowledgements: { n: acks.length, measured, passed, passedShare: share(passed, measured), outcomes: count(acks), gapMs: distribution(acks.map((i) => i.gapMs)) },
    interruptions: { n: ints.length, stoppedInTime: inTime, stoppedInTimeShare: share(inTime, ints.length), outcomes: count(ints), stoppedAfterMs: distribution(ints.flatMap((i) => (i.stoppedAfterMs === null ? [] : [i.stoppedAfterMs]))) },
    items,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ms = (v: number | null) => (v === null ? '—' : `${Math.round(v)} ms`);

/** The printed summary: the two shares the issue asks for, what else happened, and each failure. */
export function ackTable(r: AckBenchResult): string {
  const a = r.acknowledgements;
  const i = r.interruptions;
  const outcomes = (o: Record<ItemOutcome, number>) => OUTCOMES.filter((k) => o[k] > 0).map((k) => `${k} ${o[k]}`).join(', ');
  const lines = [
    `split ${r.split}: ${r.clips} clips`,
    `acknowledgements: ${a.passed}/${a.measured} said over an answer let it go on (${pct(a.passedShare)}; ${a.n} said, ${a.n - a.measured} after an earlier one had stopped it); ${outcomes(a.outcomes)}; longest silence in the answer median ${ms(a.gapMs.median)}, p95 ${ms(a.gapMs.p95)}, max ${ms(a.gapMs.max)}`,
    `interruptions: ${i.stoppedInTime}/${i.n} stopped within ${STOP_WITHIN_MS} ms (${pct(i.stoppedInTimeShare)}); ${outcomes(i.outcomes)}; stopped after median ${ms(i.stoppedAfterMs.median)}, p95 ${ms(i.stoppedAfterMs.p95)}`,
  ];
  const failed = r.items.filter((x) => (x.kind === 'acknowledgement' ? x.outcome !== 'passed' && x.outcome !== 'unheard' : x.stoppedAfterMs === null || x.stoppedAfterMs > STOP_WITHIN_MS));
  for (const x of failed) lines.push(`  ${x.kind === 'acknowledgement' ? 'ack' : 'int'} ${x.voice} ${x.levelDb >= 0 ? '+' : ''}${x.levelDb} dB "${x.text}": ${x.outcome}${x.stoppedAfterMs !== null ? ` after ${x.stoppedAfterMs} ms` : ''}${x.heard !== null ? ` (heard "${x.heard}")` : ''}`);
  return lines.join('\n');
}
