/**
 * The turn-taking benchmark (`npm run bench -- --turns`): the app's own TurnTaking, real engines,
 * over a corpus whose pauses are marked "hold" or "end", under a sweep of end-of-turn policies;
 * then, on the same clips, voice-to-voice of the app's streaming pipeline (prepared answers on)
 * against a sequential cascade built from the same engines (sequential.ts).
 */
import { instrument, newAccount, type EngineAccount } from './instrument';
import { machineInfo, rtf, type MachineInfo } from './machine';
import { SEQUENTIAL_SILENCE_MS, sequentialClip } from './sequential';
import type { TurnClip } from './turn-corpus';
import { recordingDetector, runTurnTaking } from './turn-run';
import { scoreClip, scorePolicy, wordHolds, type PolicyScore } from './turn-score';
import type { ChartSeries } from './turn-svg';
import type { TurnScore } from '../engines/turn-detector';
import { FastForwardClock } from '../pipeline/clock';
import type { LoadedEngines } from '../pipeline/load-engines';
import { TimelineOutput } from '../pipeline/speak/output';
import type { TurnReport } from '../pipeline/report';
import type { TurnCheck } from '../pipeline/vocabulary';
import { turnFigures } from '../report/turn-figures';
import { runInput } from '../pipeline/run/run-input';
import { distribution, percentile } from '../stats';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../settings/schema';

type Endpointing = Settings['endpointing'];

export interface Policy {
  name: string;
  /** The chart line it belongs to, and its label there (null: the legend says it). */
  family: string;
  label: string | null;
  endpointing: Partial<Endpointing>;
}

const SILENCE_MS = [200, 300, 400, 500, 600, 800, 1000, 1200, 1600];
const THRESHOLDS = [0.3, 0.5, 0.7];
const CHECK_MS = [100, 200, 300];
/** The ceiling on a pause the model calls unfinished, tried beside the default on one model setting. */
const MAX_PAUSE_MS = [1000, 2400];

const silence = (ms: number): Policy => ({ name: `silence ${ms} ms`, family: 'silence alone (silenceMs)', label: `${ms}`, endpointing: { turnModel: false, silenceMs: ms } });
/** `checks`: the check delays this threshold's line runs over, which its legend names. */
const model = (p: number, checkMs: number, checks: readonly number[] = CHECK_MS): Policy => ({
  name: `model p>=${p} @${checkMs} ms`,
  // Its latency is about the check delay, so the points need no labels: the legend names the delays.
  family: `model p>=${p} (@${checks.join(', ')} ms)`,
  label: null,
  endpointing: { turnModel: true, turnThreshold: p, turnCheckMs: checkMs, maxPauseMs: DEFAULT_SETTINGS.endpointing.maxPauseMs },
});
const maxPause = (ms: number): Policy => ({
  name: `model p>=0.5 @200 ms max ${ms} ms`,
  family: 'model p>=0.5 @200 (maxPauseMs)',
  label: `max ${ms}`,
  endpointing: { turnModel: true, turnThreshold: 0.5, turnCheckMs: 200, maxPauseMs: ms },
});

/** The sweep: silence alone at each silenceMs, the model at each threshold and check delay, and two other ceilings. `quick`: three policies, for tests. */
export function policySweep(quick = false): Policy[] {
  if (quick) return [silence(300), silence(600), model(0.5, 200, [200])];
  return [...SILENCE_MS.map(silence), ...THRESHOLDS.flatMap((p) => CHECK_MS.map((c) => model(p, c))), ...MAX_PAUSE_MS.map(maxPause)];
}

export interface TurnBenchResult {
  policies: PolicyScore[];
  baseline: {
    streamingV2vMs: number | null;
    sequentialV2vMs: number | null;
    ratio: number | null;
    streaming: { turns: number; p95: number | null; prepared: { used: number; dropped: number; none: number }; preparedLeadMs: number | null };
    sequential: { turns: number; p95: number | null; silenceMs: number };
  };
  /** What one end-of-turn check costs: features + inference, as the detector measured them. */
  detectorMs: { id: string; checks: number; median: number | null; p95: number | null; featuresMedian: number | null; inferenceMedian: number | null };
  machine: MachineInfo;
  models: Record<'vad' | 'stt' | 'llm' | 'tts', { id: string; loadMs: number; rtf: number | null }> & { turn: { id: string; loadMs: number } };
  clips: number;
}

export type Progress = (line: string) => void;

/** The chart's lines: one per policy family, points in sweep order; a policy that ended no turn has no point. */
export function chartSeries(policies: readonly Policy[], scores: readonly PolicyScore[]): ChartSeries[] {
  const families = new Map<string, ChartSeries>();
  policies.forEach((p, i) => {
    const s = scores[i]!;
    if (s.endLatencyMs.median === null || s.falseCutoffRate === null) return;
    const f = families.get(p.family) ?? { name: p.family, points: [], labelPoints: p.label !== null };
    f.points.push({ x: s.endLatencyMs.median, y: s.falseCutoffRate * 100, label: p.label ?? '' });
    families.set(p.family, f);
  });
  // The default ceiling's point belongs on the max-pause line too: it is that line's middle value.
  const ceiling = families.get(maxPause(0).family);
  const dflt = scores[policies.findIndex((p) => p.name === model(0.5, 200).name)];
  if (ceiling && dflt?.endLatencyMs.median != null && dflt.falseCutoffRate !== null) {
    ceiling.points.push({ x: dflt.endLatencyMs.median, y: dflt.falseCutoffRate * 100, label: `max ${DEFAULT_SETTINGS.endpointing.maxPauseMs}` });
    ceiling.points.sort((a, b) => Number(a.label.slice(4)) - Number(b.label.slice(4)));
  }
  return [...families.values()];
}

async function sweep(engines: LoadedEngines, account: EngineAccount, clips: readonly TurnClip[], base: Settings, policies: readonly Policy[], costs: Pick<TurnScore, 'featuresMs' | 'inferenceMs'>[], progress: Progress): Promise<PolicyScore[]> {
  const timed = instrument(engines, account);
  const turn = recordingDetector(engines.turn!, costs);
  const scores: PolicyScore[] = [];
  for (const [i, policy] of policies.entries()) {
    const settings = mergeSettings(base, { endpointing: policy.endpointing });
    const t0 = performance.now();
    const perClip = [];
    // The model's checks in the turns ended, with the words at each: what the dangling-word rule held.
    const checks: TurnCheck[] = [];
    for (const clip of clips) {
      const ends = await runTurnTaking({ vad: timed.vad, stt: timed.stt, turn }, clip.samples, settings, { onEnd: (t) => checks.push(...(t.turnChecks ?? [])) });
      perClip.push(scoreClip(clip.pauses, ends));
    }
    const e = settings.endpointing;
    scores.push(scorePolicy(policy.name, perClip, e.turnModel ? wordHolds(checks, e.turnThreshold) : null));
    progress(`policy ${i + 1}/${policies.length} ${policy.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return scores;
}

/** The app's pipeline as it ships (turn model on, prepared answers on), each clip on a fresh clock and timeline. */
async function streaming(engines: LoadedEngines, clips: readonly TurnClip[], settings: Settings): Promise<TurnReport[]> {
  const reports: TurnReport[] = [];
  for (const clip of clips) {
    engines.vad.reset();
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    // The engines as loaded, not instrument()'s wrappers: those drop the recognizer's peek(), which prepared answers need.
    const pipeline = new VoicePipeline({ vad: engines.vad, stt: engines.stt, llm: engines.llm, tts: engines.tts, turn: engines.turn }, output, clock, () => settings);
    reports.push(...(await runInput(pipeline, clip.samples, clock, output, { fast: true })));
  }
  return reports;
}

export async function runTurnBench(
  engines: LoadedEngines,
  clips: readonly TurnClip[],
  base: Settings,
  opts: { quick?: boolean; progress?: Progress } = {},
): Promise<TurnBenchResult> {
  const progress = opts.progress ?? (() => {});
  const policies = policySweep(opts.quick);
  const account = newAccount();
  const costs: Pick<TurnScore, 'featuresMs' | 'inferenceMs'>[] = [];
  const scores = await sweep(engines, account, clips, base, policies, costs, progress);

  // The app as it ships: the model and prepared answers on, whatever the base says about them.
  const appSettings = mergeSettings(base, { prepareAnswers: true, endpointing: { turnModel: true } });
  let t0 = performance.now();
  const reports = await streaming(engines, clips, appSettings);
  progress(`streaming pipeline: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t0 = performance.now();
  const timed = instrument(engines, account);
  const seq = [];
  for (const clip of clips) {
    const turns = await sequentialClip({ vad: timed.vad, stt: timed.stt, llm: timed.llm, tts: timed.tts, turn: null }, clip.samples, base);
    for (const t of turns) account.llm.audioMs += t.answerAudioMs;
    seq.push(...turns);
  }
  progress(`sequential pipeline: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const streamV2v = distribution(reports.map((r) => turnFigures(r).voiceToVoiceMs));
  const seqV2v = distribution(seq.map((t) => t.v2vMs));
  const count = (k: TurnReport['prepared']) => reports.filter((r) => r.prepared === k).length;
  const lead = percentile(reports.filter((r) => r.prepared === 'used').map((r) => r.preparedLeadMs), 0.5);
  const total = distribution(costs.map((c) => c.featuresMs + c.inferenceMs));
  const round1 = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  const m = engines.models;
  return {
    policies: scores,
    baseline: {
      streamingV2vMs: streamV2v.median,
      sequentialV2vMs: seqV2v.median,
      ratio: streamV2v.median && seqV2v.median !== null ? Math.round((seqV2v.median / streamV2v.median) * 100) / 100 : null,
      streaming: { turns: streamV2v.n, p95: streamV2v.p95, prepared: { used: count('used'), dropped: count('dropped'), none: count('none') }, preparedLeadMs: round1(lead) },
      sequential: { turns: seqV2v.n, p95: seqV2v.p95, silenceMs: SEQUENTIAL_SILENCE_MS },
    },
    detectorMs: {
      id: m.turn!.id,
      checks: total.n,
      median: total.median,
      p95: total.p95,
      featuresMedian: round1(percentile(costs.map((c) => c.featuresMs), 0.5)),
      inferenceMedian: round1(percentile(costs.map((c) => c.inferenceMs), 0.5)),
    },
    machine: machineInfo(engines.llm.info),
    models: {
      vad: { id: m.vad.id, loadMs: m.vad.loadMs, rtf: rtf(account.vad) },
      stt: { id: m.stt.id, loadMs: m.stt.loadMs, rtf: rtf(account.stt) },
      llm: { id: m.llm.id, loadMs: m.llm.loadMs, rtf: rtf(account.llm) },
      tts: { id: m.tts.id, loadMs: m.tts.loadMs, rtf: rtf(account.tts) },
      turn: { id: m.turn!.id, loadMs: m.turn!.loadMs },
    },
    clips: clips.length,
  };
}

const fmt = (v: number | null, digits = 0) => (v === null ? '—' : v.toFixed(digits));

/** The printed report: one row per policy, then the baseline, the detector's cost, models and machine. */
export function turnTable(r: TurnBenchResult): string {
  const w = Math.max(6, ...r.policies.map((p) => p.name.length));
  const cols = ['holds', 'ends', 'false cut-offs', 'end latency median', 'p95', 'never ended', 'cut mid-speech', 'held by words (overruled)'];
  const widths = cols.map((c) => Math.max(5, c.length));
  const row = (name: string, cells: string[]) => [name.padEnd(w), ...cells.map((c, i) => c.padStart(widths[i]!))].join('  ');
  const lines = [row('policy', cols)];
  for (const p of r.policies) {
    const rate = p.falseCutoffRate === null ? '—' : `${(p.falseCutoffRate * 100).toFixed(1)} %`;
    const words = p.heldByWords === null ? '—' : `${p.heldByWords.held}/${p.heldByWords.checks} (${p.heldByWords.overruled})`;
    lines.push(row(p.name, [String(p.holds), String(p.ends), rate, `${fmt(p.endLatencyMs.median)} ms`, fmt(p.endLatencyMs.p95), String(p.neverEnded), String(p.cutsMidSpeech), words]));
  }
  const b = r.baseline;
  lines.push('');
  lines.push(`voice to voice, median (p95), over answered turns:`);
  lines.push(`  streaming (the app: turn model on, prepared answers): ${fmt(b.streamingV2vMs)} ms (${fmt(b.streaming.p95)}), ${b.streaming.turns} turns`);
  lines.push(`  sequential (silence ${b.sequential.silenceMs} ms, whole transcript, whole answer, one TTS call): ${fmt(b.sequentialV2vMs)} ms (${fmt(b.sequential.p95)}), ${b.sequential.turns} turns`);
  lines.push(`  sequential / streaming: ${fmt(b.ratio, 2)}`);
  const pr = b.streaming.prepared;
  lines.push(`  prepared answers (streaming): used ${pr.used}, dropped ${pr.dropped}, none ${pr.none}; median lead of used ones ${fmt(b.streaming.preparedLeadMs)} ms`);
  const d = r.detectorMs;
  lines.push('');
  lines.push(`end-of-turn model ${d.id}: ${d.checks} checks, features + inference median ${fmt(d.median, 1)} ms, p95 ${fmt(d.p95, 1)} ms (features median ${fmt(d.featuresMedian, 1)}, inference median ${fmt(d.inferenceMedian, 1)})`);
  lines.push(`models: ${(['vad', 'stt', 'llm', 'tts'] as const).map((k) => `${k} ${r.models[k].id}`).join(', ')}, turn ${r.models.turn.id}`);
  lines.push(`${r.clips} clips`);
  return lines.join('\n');
}
