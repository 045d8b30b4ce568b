/**
 * `npm run bench -- [--models DIR] [--corpus DIR] [--runs N] [--settings FILE] [--json OUT.json] [--tools]`
 * `npm run bench -- --turns [--corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json] [--svg OUT.svg] [--quick]`
 * `npm run bench -- --acks [--split held-out|tuning|all]` (electron/cli/bench-acks.ts)
 * `npm run bench -- --history-search [--json OUT.json]` (electron/cli/bench-history.ts)
 * `npm run bench -- --calibrate [--standins DIR] [--small] [--all] [--json OUT.json] [ID...]` (electron/cli/bench-calibrate.ts)
 * `npm run bench -- --rooms DIR [--corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json] [--gains G,...] [--clips NAME,...] [--quick]`
 *
 * Runs the app's pipeline (same code, real engines, fast clock) over every clip of a speech corpus
 * (its manifest.json), N times, and reports where the milliseconds go: per stage median, p95, p99
 * and max over all turns; our own overhead; barge-in reaction; each engine's real-time factor;
 * model load times; peak memory; and the machine, so results can be compared.
 * With --turns: the turn-taking benchmark instead (electron/bench/turns.ts); with --rooms, the room
 * benchmark (electron/bench/rooms.ts).
 */
import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWavFile } from '../audio/wav';
import { toMono16k } from '../audio/resample';
import { instrument, newAccount, type EngineAccount } from '../bench/instrument';
import { machineInfo, machineLine, rtf, type MachineInfo } from '../bench/machine';
import { STAGE_ROWS, stageDistributions, turnStages, type StageDistributions } from '../bench/stages';
import { turnFigures, type TurnFigures } from '../report/turn-figures';
import { readRoomCorpus, readRooms } from '../bench/room-corpus';
import { costSummary, QUICK_CLIPS, ROOM_GAINS, roomTable, runRoomBench } from '../bench/rooms';
import { UserError } from '../errors';
import { FastForwardClock } from '../pipeline/clock';
import { TimelineOutput } from '../pipeline/speak/output';
import type { TurnReport } from '../pipeline/report';
import { runInput } from '../pipeline/run/run-input';
import { defaultStandinsDir, prepareRealSize, REAL_SIZE_NOTE, realSizeClipEngines, realSizeModel, realSizeReport, realSizeTable, type PromptTokenCounts, type RealSizeReport, type RealSizeSetup } from '../bench/real-size';
import type { RoomClip } from '../bench/room-corpus';
import type { LoadedEngines } from '../pipeline/load-engines';
import type { ToolSpec } from '../engines/tool-calls';
import type { SpokenSegment } from '../bench/scripted-words';
import { distribution, type Distribution } from '../stats';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { loadSettingsFile } from '../settings/file';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../settings/schema';
import { parseCli, runCli } from './args';
import { ACKS_USAGE, benchAcks } from './bench-acks';
import { benchHistory, HISTORY_SEARCH_USAGE } from './bench-history';
import { benchCalibrate, CALIBRATE_USAGE } from './bench-calibrate';
import { benchTurns } from './bench-turns';
import { busyLine, parseBusy, startBusyWork } from '../bench/busy-work';
import { builtInToolbox } from '../tools/built-in';
import { benchMemoryBook } from '../bench/memory-facts';
import { MAX_FACTS } from '../memory/memory-book';
import { loggingOpener } from '../tools/open';
import type { Toolbox } from '../tools/toolbox';

const USAGE = 'npm run bench -- [--models DIR] [--corpus DIR] [--runs N] [--settings FILE] [--json OUT.json] [--tools] [--memory-facts N] [--real-size [--tier cpu|gpu] [--standins DIR]]';
const TURNS_USAGE = 'npm run bench -- --turns [--corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json] [--svg OUT.svg] [--quick]';
const ROOMS_USAGE = 'npm run bench -- --rooms DIR [--corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json] [--gains G,...] [--clips NAME,...] [--quick] [--real-size [--tier cpu|gpu] [--standins DIR]]';
const here = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_CORPUS = path.resolve(here, '../../../shared/speech');
const DEFAULT_TURN_CORPUS = path.join(DEFAULT_CORPUS, 'turns');

export interface BenchResult {
  /** Per stage over all turns (electron/bench/stages.ts); the endpoint also against the silence setting. */
  stages: StageDistributions & { endpointMs: Distribution & { silenceMs: number; error: Distribution } };
  /** Turns whose answer was prepared during a pause and used, prepared and dropped, or not prepared. */
  prepared: { used: number; dropped: number; none: number };
  machine: MachineInfo;
  models: Record<'vad' | 'stt' | 'llm' | 'tts', { id: string; loadMs: number; rtf: number | null }>;
  runs: number;
  /** The echo canceller's time per 32 ms window (while the assistant played: echo expected), over every clip. */
  echoCancellerMs: { n: number; median: number | null; p95: number | null };
  /** With --tools: the tools offered, and how many calls the turns made (null: none offered). */
  tools: { offered: string[]; calls: number } | null;
  /** With --real-size: the stand-ins, threads, prompt tokens, the first turn apart and the sequential cascade. */
  realSize?: RealSizeReport;
  /** Every turn's waterfall (ms from the end of its speech), in the order run: where one turn's time went. */
  turns: { prepared: TurnReport['prepared']; endReason: TurnReport['endReason']; voiceToVoiceMs: number | null; timeline: TurnFigures['timeline'] }[];
}

interface Clip {
  name: string;
  samples: Float32Array;
  /** The manifest's spoken segments (ms), for --real-size's words. */
  speech: SpokenSegment[];
}

/** A manifest's `speech` list in ms; entries without text or times are left out. */
function segmentsOf(entry: unknown): SpokenSegment[] {
  const speech = (entry as { speech?: unknown })?.speech;
  if (!Array.isArray(speech)) return [];
  return speech.flatMap((s: { text?: unknown; start?: unknown; end?: unknown }) =>
    typeof s?.text === 'string' && typeof s.start === 'number' && typeof s.end === 'number' ? [{ text: s.text, startMs: s.start * 1000, endMs: s.end * 1000 }] : [],
  );
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
    clips.push({ name, samples: toMono16k(await readWavFile(path.resolve(dir, file))), speech: segmentsOf(entry) });
  }
  if (clips.length === 0) throw new UserError(`${manifestFile} lists no clips.`, 'corpus-invalid');
  return clips;
}

/**
 * One run: each clip through the app's pipeline on a fresh clock and timeline (the engines stay
 * loaded, the conversation is reset), fed until its answers have finished playing.
 */
type Engines = Parameters<typeof instrument>[0];
/** How a run sees a clip's engines: as loaded, or (--real-size) hearing the clip's manifest words on its clock. */
type ClipEngines = (engines: Engines, clip: Clip, clock: FastForwardClock) => Engines;

async function runOnce(engines: Engines, clips: Clip[], settings: Settings, account: EngineAccount, echoCosts: number[], tools: Toolbox | null, forClip: ClipEngines, memoryFacts: number, warmMs: number[]): Promise<TurnReport[][]> {
  const perClip: TurnReport[][] = [];
  for (const clip of clips) {
    const clock = new FastForwardClock();
    const output = new TimelineOutput();
    const memory = { book: benchMemoryBook(memoryFacts) };
    const pipeline = new VoicePipeline({ ...instrument(forClip(engines, clip, clock), account), tools }, output, clock, () => settings, { memory });
    // The remembered facts are evaluated as the conversation begins, as part of loading (timed apart).
    const t0 = performance.now();
    await pipeline.ready();
    warmMs.push(performance.now() - t0);
    pipeline.events.on((e) => {
      if (e.type === 'audio') account.llm.audioMs += e.endMs - e.startMs;
    });
    perClip.push(await runInput(pipeline, clip.samples, clock, output, { fast: true }));
    echoCosts.push(...pipeline.echoCostMs);
  }
  return perClip;
}

function fmt(v: number | null, digits = 0): string {
  return v === null ? '—' : v.toFixed(digits);
}

function table(r: BenchResult, clips: number, turns: number): string {
  const rows: [string, Distribution][] = STAGE_ROWS.map(([name, pick]) => [name, pick(r.stages)]);
  // The endpoint's error against the silence setting goes right under the endpoint.
  rows.splice(1, 0, [`  error vs silenceMs ${r.stages.endpointMs.silenceMs}`, r.stages.endpointMs.error]);
  const w = Math.max(...rows.map(([n]) => n.length));
  const lines = [`${'stage (ms)'.padEnd(w)}  ${'n'.padStart(4)}  ${'median'.padStart(7)}  ${'p95'.padStart(7)}  ${'p99'.padStart(7)}  ${'max'.padStart(7)}`];
  for (const [name, d] of rows) {
    const digits = name.startsWith('overhead') ? 1 : 0;
    lines.push(`${name.padEnd(w)}  ${String(d.n).padStart(4)}  ${fmt(d.median, digits).padStart(7)}  ${fmt(d.p95, digits).padStart(7)}  ${fmt(d.p99, digits).padStart(7)}  ${fmt(d.max, digits).padStart(7)}`);
  }
  const e = r.echoCancellerMs;
  lines.push(`${'echo canceller (per 32 ms window)'.padEnd(w)}  ${String(e.n).padStart(4)}  ${fmt(e.median, 3).padStart(7)}  ${fmt(e.p95, 3).padStart(7)}`);
  lines.push('');
  lines.push(`${'engine'.padEnd(6)}  ${'model'.padEnd(32)}  ${'load ms'.padStart(8)}  ${'RTF'.padStart(6)}`);
  for (const [kind, m] of Object.entries(r.models)) {
    lines.push(`${kind.padEnd(6)}  ${m.id.padEnd(32)}  ${fmt(m.loadMs).padStart(8)}  ${fmt(m.rtf, 3).padStart(6)}`);
  }
  lines.push('');
  lines.push(machineLine(r.machine));
  lines.push(`${r.runs} run(s) × ${clips} clips = ${turns} turns`);
  return lines.join('\n');
}

runCli(async () => {
  // Loads no models and takes options of its own.
  if (process.argv.includes('--history-search')) return benchHistory(process.argv.slice(2));
  if (process.argv.includes('--calibrate')) return benchCalibrate(process.argv.slice(2));
  const { values } = parseCli(
    process.argv.slice(2),
    {
      models: { type: 'string' },
      corpus: { type: 'string' },
      runs: { type: 'string' },
      settings: { type: 'string' },
      json: { type: 'string' },
      turns: { type: 'boolean' },
      svg: { type: 'string' },
      quick: { type: 'boolean' },
      rooms: { type: 'string' },
      gains: { type: 'string' },
      clips: { type: 'string' },
      tools: { type: 'boolean' },
      'memory-facts': { type: 'string' },
      'real-size': { type: 'boolean' },
      tier: { type: 'string' },
      standins: { type: 'string' },
      acks: { type: 'boolean' },
      split: { type: 'string' },
      'ack-corpus': { type: 'string' },
      busy: { type: 'string' },
    },
    USAGE,
    `Runs the app's pipeline over a speech corpus and prints per-stage latency (median, p95, p99, max),
endpoint error, our overhead, barge-in reaction, engine load times and real-time factors.
With --turns, the turn-taking benchmark: end-of-turn policies (silence alone, the end-of-turn model)
over a corpus with marked pauses, false cut-offs against end latency, and voice-to-voice of the
streaming pipeline against a sequential one.
With --rooms, the room benchmark: the clips with the assistant's answers coming back through each
room's impulse response, at echo gains 0.5 and 1: self-interruptions, false turns, barge-ins, ERLE.
With --acks, the acknowledgement benchmark: new espeak-ng voices saying acknowledgements or real
interruptions over a long answer (generated once, docs/listening.md): how many let it go on, how
many stop it within 350 ms.
With --calibrate, each real-size stand-in alone beside the speed published for the real model.

Usage: ${USAGE}
       ${TURNS_USAGE}
       ${ROOMS_USAGE}
       ${ACKS_USAGE}
       ${HISTORY_SEARCH_USAGE}
       ${CALIBRATE_USAGE}

  --models DIR       where to find models (default: the user's models folder, then the bundled ones)
  --corpus DIR       a folder of WAV clips with manifest.json (default: ../shared/speech; with --turns ../shared/speech/turns)
  --runs N           passes over the corpus (default 3; not with --turns or --rooms)
  --settings FILE    settings JSON merged over the defaults (default: llm.maxTokens 64)
  --json OUT.json    also write the numbers as JSON
  --tools            offer the built-in tools as the app does (notes in a temporary folder, an empty clipboard,
                     open only logged): the latency of turns that use none, beside a run without
  --memory-facts N   every conversation starts with N remembered facts (0-200; the newest that fit
                     memory.maxTokens go into the system prompt): what memory costs a turn
  --turns            the turn-taking benchmark
  --svg OUT.svg      with --turns: also draw false cut-offs against end latency, per policy family
  --quick            with --turns: three policies (silence 300 and 600 ms, the model at p>=0.5 after 200 ms) instead of the sweep;
                     with --rooms: four clips (${QUICK_CLIPS.join(', ')})
  --rooms DIR        the room benchmark over every impulse response (*.wav) in DIR, e.g. ../shared/rooms
  --gains G,...      with --rooms: the echo gains (default ${ROOM_GAINS.join(',')}; each 0-4)
  --clips NAME,...   with --rooms: only these clips of the corpus
  --real-size        on real-size stand-ins of the default models (real architecture and size, random weights;
                     written once into --standins, gigabytes): engines compute for real, words are scripted
                     (the clips' manifest text, fixed answers cut to the tokens generated); adds real-time
                     factors, threads, prompt tokens per turn, the first turn apart and the sequential cascade
  --tier cpu|gpu     with --real-size: which tier's defaults (default cpu: Qwen2.5 1.5B; gpu: Qwen3 4B)
  --standins DIR     with --real-size: where the stand-ins are kept (default ${defaultStandinsDir()})
  --busy N           N threads of unrelated CPU work beside the pipeline for the whole run (any benchmark)
  --acks             the acknowledgement benchmark
  --split S          with --acks: held-out (default: the voices the policy was never tuned on), tuning or all
  --ack-corpus DIR   with --acks: where the generated corpus is kept (default: a cache folder; needs espeak-ng once)
  --history-search   the history search benchmark (generated histories of 10,000 turns and about 50 MB), beside a naive scan
  -h, --help         this help`,
  );
  if (values.rooms !== undefined) {
    if (values.turns || values.svg !== undefined || values.runs !== undefined) throw new UserError(`--turns, --svg and --runs do not go with --rooms. Usage: ${ROOMS_USAGE}`, 'usage');
  } else if (values.gains !== undefined || values.clips !== undefined) throw new UserError(`--gains and --clips go with --rooms. Usage: ${ROOMS_USAGE}`, 'usage');
  if (!values.turns && values.rooms === undefined && (values.svg !== undefined || values.quick)) throw new UserError(`--svg and --quick go with --turns (--quick also with --rooms). Usage: ${TURNS_USAGE}`, 'usage');
  if (values.turns && values.runs !== undefined) throw new UserError(`--runs does not go with --turns (each policy runs once over the corpus). Usage: ${TURNS_USAGE}`, 'usage');
  const busy = parseBusy(values.busy);
  const base = values.settings ? await loadSettingsFile(values.settings) : DEFAULT_SETTINGS;
  const stopBusy = startBusyWork(busy);
  try {
    await bench();
  } finally {
    await stopBusy();
  }
  if (busy > 0 && !values.turns && !values.acks) console.log(busyLine(busy));

  async function bench(): Promise<void> {
    if (values.acks) {
      if (values.turns || values.rooms !== undefined || values['real-size'] || values.runs !== undefined) throw new UserError(`--acks runs alone. Usage: ${ACKS_USAGE}`, 'usage');
      return benchAcks(base, values, busy);
    }
    if (values.split !== undefined || values['ack-corpus'] !== undefined) throw new UserError(`--split and --ack-corpus go with --acks. Usage: ${ACKS_USAGE}`, 'usage');
    // Short answers keep a run about latency, not about how long the model can talk.
    let settings = values.settings ? base : mergeSettings(base, { llm: { maxTokens: 64 } });
    if (!values['real-size'] && (values.tier !== undefined || values.standins !== undefined)) throw new UserError(`--tier and --standins go with --real-size. Usage: ${USAGE}`, 'usage');
    const tier = values.tier ?? 'cpu';
    if (tier !== 'cpu' && tier !== 'gpu') throw new UserError(`--tier must be cpu or gpu, got "${tier}"`, 'usage');
    if (values['real-size'] && values.turns) throw new UserError('--real-size goes with the latency and room benchmarks, not yet with --turns.', 'usage');
    const realSize = values['real-size'] ? await prepareRealSize(tier, path.resolve(values.standins ?? defaultStandinsDir()), settings, (l) => process.stderr.write(`${l}\n`)) : null;
    if (realSize) settings = realSize.settings;
    if (values.turns) return benchTurns(settings, values, DEFAULT_TURN_CORPUS, busy);
    if (values.rooms !== undefined) return benchRooms(settings, { ...values, rooms: values.rooms }, realSize, busy);
    const runs = Number(values.runs ?? '3');
    if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new UserError(`--runs must be a whole number from 1 to 1000, got "${values.runs}"`, 'usage');
    const clips = await readCorpus(path.resolve(values.corpus ?? DEFAULT_CORPUS));
    const tools = values.tools ? benchToolbox(settings) : null;
    const memoryFacts = Number(values['memory-facts'] ?? '0');
    if (!Number.isInteger(memoryFacts) || memoryFacts < 0 || memoryFacts > MAX_FACTS) throw new UserError(`--memory-facts must be a whole number from 0 to ${MAX_FACTS}, got "${values['memory-facts']}"`, 'usage');
    const promptTokens: PromptTokenCounts = { perAnswer: [], prefilled: 0 };
    const engines = await loadBenchEngines(settings, values.models, realSize, promptTokens, tools?.specs ?? []);
    const forClip: ClipEngines = realSize ? (e, clip, clock) => realSizeClipEngines(e, clip.speech, clock) : (e) => e;
    const account = newAccount();
    const reports: TurnReport[] = [];
    const echoCosts: number[] = [];
    const sequential: number[] = [];
    const warmMs: number[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        const perClip = await runOnce(engines, clips, settings, account, echoCosts, tools, forClip, memoryFacts, warmMs);
        for (const r of perClip) reports.push(...r);
        process.stderr.write(`run ${i + 1}/${runs}: ${perClip.flat().length} turns\n`);
      }
      if (realSize && engines.turn) {
        const { sequentialClip } = await import('../bench/sequential');
        for (const clip of clips) {
          const clock = new FastForwardClock();
          const turns = await sequentialClip({ ...forClip(engines, clip, clock), turn: engines.turn }, clip.samples, settings, clock);
          sequential.push(...turns.map((t) => t.v2vMs));
        }
      }
      const { microFigures, microTable } = await import('../bench/micro');
      console.log(microTable(await microFigures(engines.turn)));
    } finally {
      await engines.dispose();
    }
    const silenceMs = settings.endpointing.silenceMs;
    // Only turns ended by silence alone waited for silenceMs (the model's verdict or max length did not).
    const bySilence = reports.filter((r) => r.endReason === 'silence');
    const stages = stageDistributions(reports.map(turnStages));
    const count = (p: TurnReport['prepared']) => reports.filter((r) => r.prepared === p).length;
    const llmInfo = engines.llm.info;
    const result: BenchResult = {
      stages: { ...stages, endpointMs: { ...stages.endpointMs, silenceMs, error: distribution(bySilence.map((r) => turnFigures(r).endpointMs - silenceMs)) } },
      prepared: { used: count('used'), dropped: count('dropped'), none: count('none') },
      machine: machineInfo(llmInfo),
      models: {
        vad: { id: engines.models.vad.id, loadMs: engines.models.vad.loadMs, rtf: rtf(account.vad) },
        stt: { id: engines.models.stt.id, loadMs: engines.models.stt.loadMs, rtf: rtf(account.stt) },
        llm: { id: engines.models.llm.id, loadMs: engines.models.llm.loadMs, rtf: rtf(account.llm) },
        tts: { id: engines.models.tts.id, loadMs: engines.models.tts.loadMs, rtf: rtf(account.tts) },
      },
      runs,
      echoCancellerMs: costSummary(echoCosts),
      tools: tools ? { offered: tools.specs.map((t) => t.name), calls: reports.reduce((n, r) => n + (r.tools?.length ?? 0), 0) } : null,
      ...(realSize ? { realSize: realSizeReport(realSize, reports.map((r) => turnFigures(r).voiceToVoiceMs), promptTokens, sequential) } : {}),
      turns: reports.map((r) => {
        const f = turnFigures(r);
        return { prepared: r.prepared, endReason: r.endReason, voiceToVoiceMs: f.voiceToVoiceMs, timeline: f.timeline };
      }),
    };
    console.log(table(result, clips.length, reports.length));
    if (result.realSize) console.log(`\n${realSizeTable(result.realSize)}`);
    const inPrompt = reports.find((r) => r.memory)?.memory;
    if (inPrompt) console.log(`memory: ${memoryFacts} facts kept, ${inPrompt.facts} in the system prompt (${inPrompt.tokens} tokens, memory.maxTokens ${settings.memory.maxTokens}${settings.memory.enabled ? '' : ', memory off'}); evaluated as each conversation began: the first ${fmt(warmMs[0] ?? null)} ms, then median ${fmt(distribution(warmMs.slice(1)).median)} ms`);
    if (result.tools) console.log(`tools offered: ${result.tools.offered.join(', ')} (${result.tools.calls} call${result.tools.calls === 1 ? '' : 's'} made)`);
    if (values.json) {
      await writeFile(values.json, `${JSON.stringify({ ...result, busy }, null, 2)}\n`);
      console.log(`wrote ${values.json}`);
    }
  }
});

/** `--tools`: the built-in tools the app offers by default, kept away from the user's own files. */
function benchToolbox(settings: Settings): Toolbox {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lva-bench-tools-'));
  return builtInToolbox({ dataDir: dir, clipboard: { readText: () => '' }, opener: loggingOpener(path.join(dir, 'opened.txt')) }, () => settings);
}

/** `--gains 0.5,1`: echo gains from 0 to 4, as `--echo` takes them. */
function parseGains(spec: string): number[] {
  return spec.split(',').map((part) => {
    const g = /^\s*\d+(?:\.\d+)?\s*$/.test(part) ? Number(part) : NaN;
    if (!(g >= 0 && g <= 4)) throw new UserError(`--gains: "${part}" is not an echo gain from 0 to 4 (example: --gains 0.5,1)`, 'usage');
    return g;
  });
}

/** The engines as loaded, or (--real-size) the stand-ins with the language model's words scripted and its prompt tokens counted. */
async function loadBenchEngines(settings: Settings, models: string | undefined, realSize: RealSizeSetup | null, promptTokens: PromptTokenCounts, tools: readonly ToolSpec[] = []): Promise<LoadedEngines> {
  const loaded = await loadEngines(settings, realSize?.root ?? models, tools, realSize?.catalog);
  return realSize ? { ...loaded, llm: realSizeModel(loaded.llm, settings.llm.maxTokens, promptTokens) } : loaded;
}

/** `--rooms DIR`: the room benchmark (electron/bench/rooms.ts), its table and JSON. */
async function benchRooms(settings: Settings, values: { rooms: string; models?: string; corpus?: string; json?: string; gains?: string; clips?: string; quick?: boolean }, realSize: RealSizeSetup | null, busy: number): Promise<void> {
  const gains = values.gains === undefined ? [...ROOM_GAINS] : parseGains(values.gains);
  if (values.quick && values.clips !== undefined) throw new UserError(`--quick chooses the clips: give it or --clips, not both. Usage: ${ROOMS_USAGE}`, 'usage');
  const only = values.quick ? QUICK_CLIPS : values.clips === undefined ? null : values.clips.split(',').map((c) => c.trim());
  const rooms = await readRooms(path.resolve(values.rooms));
  const clips = await readRoomCorpus(path.resolve(values.corpus ?? DEFAULT_CORPUS), only);
  const engines = await loadBenchEngines(settings, values.models, realSize, { perAnswer: [], prefilled: 0 });
  const words = (clip: RoomClip) => clip.speech.flatMap((s) => (s.text ? [{ text: s.text, startMs: s.startMs, endMs: s.endMs }] : []));
  let result;
  try {
    const progress = (line: string) => process.stderr.write(`${line}\n`);
    result = await runRoomBench(engines, rooms, clips, gains, settings, progress, realSize ? (e, clip, clock) => realSizeClipEngines(e, words(clip), clock) : undefined);
  } finally {
    await engines.dispose();
  }
  console.log(roomTable(result));
  if (realSize) console.log(`real size, ${realSize.tier} tier: ${REAL_SIZE_NOTE}`);
  console.log(machineLine(result.machine));
  console.log(`took ${result.tookS} s after loading the models`);
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify({ ...result, busy }, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
}

/** The engines, loaded only when a benchmark runs: their native libraries take a second or more, which --help must not wait for. */
async function loadEngines(...args: Parameters<typeof import('./engines-for').loadEnginesFor>): ReturnType<typeof import('./engines-for').loadEnginesFor> {
  const { loadEnginesFor } = await import('./engines-for');
  return loadEnginesFor(...args);
}
