/**
 * `npm run bench -- [--models DIR] [--corpus DIR] [--runs N] [--settings FILE] [--json OUT.json]`
 *
 * Runs the app's pipeline (same code, real engines, fast clock) over every clip of a speech corpus
 * (its manifest.json), N times, and reports where the milliseconds go: per stage median, p95, p99
 * and max over all turns; our own overhead; barge-in reaction; each engine's real-time factor;
 * model load times; peak memory; and the machine, so results can be compared.
 */
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWavFile } from '../audio/wav';
import { toMono16k } from '../audio/resample';
import { instrument, newAccount, type EngineAccount } from '../bench/instrument';
import { UserError } from '../errors';
import { FastForwardClock } from '../pipeline/clock';
import { TimelineOutput } from '../pipeline/output';
import type { TurnReport } from '../pipeline/report';
import { runInput } from '../pipeline/run-input';
import { distribution, type Distribution } from '../pipeline/stats';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { loadSettingsFile } from '../settings/file';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../settings/schema';
import { parseCli, runCli } from './args';
import { loadEnginesFor } from './engines-for';

const USAGE = 'npm run bench -- [--models DIR] [--corpus DIR] [--runs N] [--settings FILE] [--json OUT.json]';
const here = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_CORPUS = path.resolve(here, '../../../shared/speech');

export interface BenchResult {
  stages: {
    endpointMs: Distribution & { silenceMs: number; error: Distribution };
    sttMs: Distribution;
    llmTtftMs: Distribution;
    ttsFirstAudioMs: Distribution;
    voiceToVoiceMs: Distribution;
    overheadMs: Distribution;
    bargeInMs: Distribution;
  };
  machine: { cpu: string; cores: number; memoryMiB: number; platform: string; node: string; gpuBackend: string; gpuDevices: string[]; peakRssMiB: number };
  models: Record<'vad' | 'stt' | 'llm' | 'tts', { id: string; loadMs: number; rtf: number | null }>;
  runs: number;
}

interface Clip {
  name: string;
  samples: Float32Array;
}

async function readCorpus(dir: string): Promise<Clip[]> {
  const manifestFile = path.join(dir, 'manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (e) {
    throw new UserError(`Cannot read the corpus manifest ${manifestFile}: ${(e as Error).message}. A corpus is a folder with manifest.json and its WAV files.`, 'corpus-invalid');
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new UserError(`${manifestFile} must map clip names to {"file": "x.wav", ...}.`, 'corpus-invalid');
  }
  const clips: Clip[] = [];
  for (const [name, entry] of Object.entries(manifest as Record<string, unknown>)) {
    const file = (entry as { file?: unknown })?.file;
    if (typeof file !== 'string') throw new UserError(`${manifestFile}: clip "${name}" has no "file".`, 'corpus-invalid');
    clips.push({ name, samples: toMono16k(await readWavFile(path.resolve(dir, file))) });
  }
  if (clips.length === 0) throw new UserError(`${manifestFile} lists no clips.`, 'corpus-invalid');
  return clips;
}

/**
 * One run: each clip through the app's pipeline on a fresh clock and timeline (the engines stay
 * loaded, the conversation is reset), fed until its answers have finished playing.
 */
async function runOnce(engines: Parameters<typeof instrument>[0], clips: Clip[], settings: Settings, account: EngineAccount): Promise<TurnReport[][]> {
  const perClip: TurnReport[][] = [];
  for (const clip of clips) {
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const pipeline = new VoicePipeline(instrument(engines, account), output, clock, () => settings);
    pipeline.events.on((e) => {
      if (e.type === 'audio') account.llm.audioMs += e.endMs - e.startMs;
    });
    perClip.push(await runInput(pipeline, clip.samples, clock, output, { fast: true }));
  }
  return perClip;
}

/** User speech start to playback stopped, for each answer the user's speech interrupted. */
function bargeIns(reports: TurnReport[]): number[] {
  return reports.flatMap(({ bargeIn: b }) => (b && b.speechStartMs !== null ? [b.playbackStoppedMs - b.speechStartMs] : []));
}

function overhead(r: TurnReport): number | null {
  const { voiceToVoiceMs, endpointMs } = r.latency;
  const e = r.engine;
  if (voiceToVoiceMs === null || e.llmUntilFirstClauseMs === null || e.ttsFirstClauseMs === null) return null;
  return voiceToVoiceMs - endpointMs - e.sttFinalDecodeMs - e.llmUntilFirstClauseMs - e.ttsFirstClauseMs;
}

function fmt(v: number | null, digits = 0): string {
  return v === null ? '—' : v.toFixed(digits);
}

function table(r: BenchResult, clips: number, turns: number): string {
  const rows: [string, Distribution][] = [
    ['endpoint (speech end → end of turn)', r.stages.endpointMs],
    [`  error vs silenceMs ${r.stages.endpointMs.silenceMs}`, r.stages.endpointMs.error],
    ['stt (end of turn → final text)', r.stages.sttMs],
    ['llm first token', r.stages.llmTtftMs],
    ['tts first audio (clause → audio)', r.stages.ttsFirstAudioMs],
    ['voice to voice', r.stages.voiceToVoiceMs],
    ['overhead (our code)', r.stages.overheadMs],
    ['barge-in (speech → playback stopped)', r.stages.bargeInMs],
  ];
  const w = Math.max(...rows.map(([n]) => n.length));
  const lines = [`${'stage (ms)'.padEnd(w)}  ${'n'.padStart(4)}  ${'median'.padStart(7)}  ${'p95'.padStart(7)}  ${'p99'.padStart(7)}  ${'max'.padStart(7)}`];
  for (const [name, d] of rows) {
    const digits = name.startsWith('overhead') ? 1 : 0;
    lines.push(`${name.padEnd(w)}  ${String(d.n).padStart(4)}  ${fmt(d.median, digits).padStart(7)}  ${fmt(d.p95, digits).padStart(7)}  ${fmt(d.p99, digits).padStart(7)}  ${fmt(d.max, digits).padStart(7)}`);
  }
  lines.push('');
  lines.push(`${'engine'.padEnd(6)}  ${'model'.padEnd(32)}  ${'load ms'.padStart(8)}  ${'RTF'.padStart(6)}`);
  for (const [kind, m] of Object.entries(r.models)) {
    lines.push(`${kind.padEnd(6)}  ${m.id.padEnd(32)}  ${fmt(m.loadMs).padStart(8)}  ${fmt(m.rtf, 3).padStart(6)}`);
  }
  lines.push('');
  lines.push(`machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryMiB} MiB, ${r.machine.platform}; LLM on ${r.machine.gpuBackend}${r.machine.gpuDevices.length ? ` (${r.machine.gpuDevices.join(', ')})` : ''}; peak RSS ${r.machine.peakRssMiB} MiB`);
  lines.push(`${r.runs} run(s) × ${clips} clips = ${turns} turns`);
  return lines.join('\n');
}

runCli(async () => {
  const { values } = parseCli(
    process.argv.slice(2),
    { models: { type: 'string' }, corpus: { type: 'string' }, runs: { type: 'string', default: '3' }, settings: { type: 'string' }, json: { type: 'string' } },
    USAGE,
    `Runs the app's pipeline over a speech corpus and prints per-stage latency (median, p95, p99, max),
endpoint error, our overhead, barge-in reaction, engine load times and real-time factors.

Usage: ${USAGE}

  --models DIR       where to find models (default: the user's models folder, then the bundled ones)
  --corpus DIR       a folder of WAV clips with manifest.json (default: ../shared/speech)
  --runs N           passes over the corpus (default 3)
  --settings FILE    settings JSON merged over the defaults (default: llm.maxTokens 64)
  --json OUT.json    also write the numbers as JSON
  -h, --help         this help`,
  );
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new UserError(`--runs must be a whole number from 1 to 1000, got "${values.runs}"`, 'usage');
  const base = values.settings ? await loadSettingsFile(values.settings) : DEFAULT_SETTINGS;
  // Short answers keep a run about latency, not about how long the model can talk.
  const settings = values.settings ? base : mergeSettings(base, { llm: { maxTokens: 64 } });
  const clips = await readCorpus(path.resolve(values.corpus ?? DEFAULT_CORPUS));
  const engines = await loadEnginesFor(settings, values.models);
  const account = newAccount();
  const reports: TurnReport[] = [];
  const barge: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const perClip = await runOnce(engines, clips, settings, account);
      for (const r of perClip) {
        reports.push(...r);
        barge.push(...bargeIns(r));
      }
      process.stderr.write(`run ${i + 1}/${runs}: ${perClip.flat().length} turns\n`);
    }
  } finally {
    await engines.dispose();
  }
  const silenceMs = settings.endpointing.silenceMs;
  // Turns ended by silence: the others (max length, end of input) did not wait for silenceMs.
  const bySilence = reports.filter((r) => r.endReason === 'silence');
  const rtf = (a: { ms: number; audioMs: number }) => (a.audioMs > 0 ? Math.round((a.ms / a.audioMs) * 1000) / 1000 : null);
  const llmInfo = engines.llm.info;
  const result: BenchResult = {
    stages: {
      endpointMs: { ...distribution(bySilence.map((r) => r.latency.endpointMs)), silenceMs, error: distribution(bySilence.map((r) => r.latency.endpointMs - silenceMs)) },
      sttMs: distribution(reports.map((r) => r.latency.sttMs)),
      llmTtftMs: distribution(reports.map((r) => r.latency.llmTtftMs)),
      ttsFirstAudioMs: distribution(reports.map((r) => r.latency.ttsFirstAudioMs)),
      voiceToVoiceMs: distribution(reports.map((r) => r.latency.voiceToVoiceMs)),
      overheadMs: distribution(reports.map(overhead)),
      bargeInMs: distribution(barge),
    },
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.availableParallelism(),
      memoryMiB: Math.round(os.totalmem() / 2 ** 20),
      platform: `${process.platform}-${process.arch}`,
      node: process.version,
      gpuBackend: llmInfo.backend,
      gpuDevices: llmInfo.gpuDevices,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    models: {
      vad: { id: engines.models.vad.id, loadMs: engines.models.vad.loadMs, rtf: rtf(account.vad) },
      stt: { id: engines.models.stt.id, loadMs: engines.models.stt.loadMs, rtf: rtf(account.stt) },
      llm: { id: engines.models.llm.id, loadMs: engines.models.llm.loadMs, rtf: rtf(account.llm) },
      tts: { id: engines.models.tts.id, loadMs: engines.models.tts.loadMs, rtf: rtf(account.tts) },
    },
    runs,
  };
  console.log(table(result, clips.length, reports.length));
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
});
