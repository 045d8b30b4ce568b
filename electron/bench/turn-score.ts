/**
 * Scores the ends of turn a policy decided against the corpus's marked pauses (pure).
 *
 * An end of turn is charged to the pause it was decided in. One decided just after a pause's end is
 * still charged to it when the turn's words ended at that pause: the VAD hears the user resume a
 * window or two late, so a turn cut as a hold runs out can land while the user is already talking
 * again. Any other end decided during speech cut the user off mid-speech, at a gap the corpus does
 * not mark (under 100 ms, or inside a word), and is counted apart.
 */
import { distribution } from '../stats';
import type { TurnCheck } from '../pipeline/vocabulary';
import type { Pause } from './turn-corpus';

/** How far before a marked pause the placed end of the words may lie (a soft last sound the energy envelope leaves out; up to about 180 ms measured here). */
export const SPEECH_END_TOLERANCE_MS = 200;

/** An end of turn in input time (ms from the clip start): when it was decided, where the turn's words ended. */
export interface ScoredEnd {
  atMs: number;
  speechEndMs: number;
}

export interface ClipScore {
  holds: number;
  /** Holds with at least one end of turn charged to them. */
  cutHolds: number;
  ends: number;
  /** Per end pause that was ended: first end of turn charged to it minus the pause's start (ms). */
  latenciesMs: number[];
  /** End pauses with no end of turn charged to them. */
  neverEnded: number;
  /** Ends of turn decided while the user was talking, at no marked pause. */
  cutsMidSpeech: number;
}

/** The index of the pause `e` is charged to, or -1 for a cut mid-speech. */
function chargedTo(pauses: readonly Pause[], e: ScoredEnd): number {
  const last = pauses.length - 1;
  // The last pause runs to the end of the clip (and past it: a verdict may land after the last window).
  const inside = pauses.findIndex((p, i) => e.atMs >= p.startMs && (e.atMs < p.endMs || i === last));
  if (inside >= 0) return inside;
  let before = -1;
  pauses.forEach((p, i) => {
    if (p.endMs <= e.atMs) before = i;
  });
  const p = pauses[before];
  return p && e.speechEndMs >= p.startMs - SPEECH_END_TOLERANCE_MS && e.speechEndMs < p.endMs ? before : -1;
}

export function scoreClip(pauses: readonly Pause[], decided: readonly ScoredEnd[]): ClipScore {
  const score: ClipScore = { holds: 0, cutHolds: 0, ends: 0, latenciesMs: [], neverEnded: 0, cutsMidSpeech: 0 };
  const first = new Map<number, number>();
  for (const e of decided) {
    const i = chargedTo(pauses, e);
    if (i < 0) score.cutsMidSpeech++;
    else first.set(i, Math.min(first.get(i) ?? Infinity, e.atMs));
  }
  pauses.forEach((p, i) => {
    const t = first.get(i);
    if (p.kind === 'hold') {
      score.holds++;
      if (t !== undefined) score.cutHolds++;
    } else {
      score.ends++;
      if (t === undefined) score.neverEnded++;
      else score.latenciesMs.push(t - p.startMs);
    }
  });
  return score;
}

export interface PolicyScore {
  name: string;
  holds: number;
  ends: number;
  /** Cut-off holds / holds (0-1); null when the corpus has no holds. */
  falseCutoffRate: number | null;
  endLatencyMs: { median: number | null; p95: number | null };
  neverEnded: number;
  /** Ends of turn decided mid-speech, at no marked pause (not in the false cut-off rate, which is per hold). */
  cutsMidSpeech: number;
  /** With the end-of-turn model: its checks in ended turns, and how many of them a dangling word held (`overruled`: the model had said finished). Null without the model. */
  heldByWords: WordHolds | null;
}

export interface WordHolds {
  checks: number;
  held: number;
  overruled: number;
}

/** How the dangling-word rule weighed in on a policy's checks, the model's threshold being `threshold`. */
export function wordHolds(checks: readonly TurnCheck[], threshold: number): WordHolds {
  const held = checks.filter((c) => c.heldBy !== null);
  return { checks: checks.length, held: held.length, overruled: held.filter((c) => c.probability >= threshold).length };
}

/** Sums clip scores into one policy's row. */
export function scorePolicy(name: string, clips: readonly ClipScore[], heldByWords: WordHolds | null = null): PolicyScore {
  const sum = (f: (c: ClipScore) => number) => clips.reduce((a, c) => a + f(c), 0);
  const holds = sum((c) => c.holds);
  const d = distribution(clips.flatMap((c) => c.latenciesMs));
  return {
    name,
    holds,
    ends: sum((c) => c.ends),
    falseCutoffRate: holds > 0 ? Math.round((sum((c) => c.cutHolds) / holds) * 10000) / 10000 : null,
    endLatencyMs: { median: d.median, p95: d.p95 },
    neverEnded: sum((c) => c.neverEnded),
    cutsMidSpeech: sum((c) => c.cutsMidSpeech),
    heldByWords,
  };
}
