/**
 * `npm run bench -- --history-search [--json OUT.json]`: the history search (electron/memory/
 * history-search.ts) over two generated histories, 10,000 turns and about 50 MB, against the naive
 * way (every file read whole, every line parsed, a substring scan). Also the field extraction alone:
 * scanning a line's bytes against JSON.parse of the line.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { listLogFiles, logFileName, readLogFiles } from '../history/log-files';
import { formatLogLine } from '../history/log-format';
import { tokenize } from '../memory/bm25';
import { parseTurnFields, scanTurnFields, searchHistory, type HistoryQuery } from '../memory/history-search';
import type { TurnReport } from '../pipeline/report';
import { prng } from '../seeded-random';
import { distribution, type Distribution } from '../stats';
import { parseCli } from './args';

export const HISTORY_SEARCH_USAGE = 'npm run bench -- --history-search [--json OUT.json]';

const MB = 1024 * 1024;
/** As the app's SessionLog starts a new part. */
const PART_BYTES = 5 * MB;
const TURNS_PER_SESSION = 5000;
const TURN_GAP_MS = 90_000;
const FIRST_TURN_MS = Date.UTC(2024, 0, 1, 8);

const PICK = {
  city: ['Paris', 'Berlin', 'Tokyo', 'Madrid', 'Oslo', 'Rome', 'Vienna', 'Prague'],
  name: ['Anna', 'Tom', 'Priya', 'Jonas', 'Mei', 'Carlos'],
  thing: ['meeting', 'invoice', 'dentist appointment', 'car insurance', 'birthday party'],
  food: ['risotto', 'pancakes', 'lentil soup', 'banana bread', 'ramen'],
  animal: ['fox', 'penguin', 'dragon', 'cat', 'owl'],
  genre: ['jazz', 'classical', 'rock', 'lo-fi', 'folk'],
} as const;
/** A request and its answer; {city} etc. are filled in at random. */
const TOPICS: [string, string][] = [
  ['what is the weather like in {city} tomorrow', 'Tomorrow in {city} it will be mostly cloudy with a high of {n} degrees and a light wind from the west. You may want a jacket in the evening.'],
  ['set a timer for {n} minutes', 'Okay, a timer for {n} minutes starts now. I will tell you when it is done.'],
  ['remind me to call {name} about the {thing}', 'Sure. I will remind you to call {name} about the {thing} at five this afternoon.'],
  ['how do I cook {food}', 'For {food}, start with good ingredients, keep the heat moderate and taste as you go. It takes about {n} minutes in all.'],
  ['tell me a short story about a {animal}', 'Once upon a time a curious little {animal} wandered far from home, found a lantern in the snow and followed its light back to the village.'],
  ['play some {genre} music', 'Playing a {genre} playlist. Say stop whenever you want me to stop the music.'],
  ['how far is {city} from {city2}', 'It is roughly {n}00 kilometres from {city} to {city2}, about {n} hours by train.'],
  ['book a train trip to {city} next friday', 'I cannot book tickets myself, but trains to {city} leave every hour on Friday mornings.'],
];

export interface HistorySpec {
  /** Turns to write, or: write until the history holds this many bytes. */
  turns?: number;
  bytes?: number;
  /** The logged report for a turn's words (default: a full report, as the app logs one). */
  report?: (userText: string, assistantText: string, index: number) => TurnReport;
  /** Words put into the turn at this position (0: the oldest). */
  plant?: { index: number; userText: string; assistantText: string };
  /** Every n-th turn logged with text logging off. */
  textlessEvery?: number;
  seed?: number;
}

export interface WrittenHistory {
  turns: number;
  bytes: number;
  files: number;
  /** `at` of the first and last turn (epoch ms), and of the planted one (null when none). */
  firstMs: number;
  lastMs: number;
  plantedMs: number | null;
}

/** Sessions of 5,000 turns, 90 s apart, in files split at 5 MB as the app writes them. */
export async function writeHistory(dir: string, spec: HistorySpec): Promise<WrittenHistory> {
  const random = prng(spec.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? k);
  const makeReport = spec.report ?? fullReport;
  const out = { turns: 0, bytes: 0, files: 0, firstMs: FIRST_TURN_MS, lastMs: FIRST_TURN_MS, plantedMs: null as number | null };
  let lines: string[] = [];
  let partBytes = 0;
  let [session, part, file] = ['', 1, ''];
  const flush = async () => {
    if (lines.length > 0) await writeFile(file, lines.join(''));
    lines = [];
  };
  for (let i = 0; spec.turns !== undefined ? i < spec.turns : out.bytes < (spec.bytes ?? 0); i++) {
    const atMs = FIRST_TURN_MS + i * TURN_GAP_MS + Math.floor(i / TURNS_PER_SESSION) * 3_600_000;
    if (i % TURNS_PER_SESSION === 0) {
      await flush();
      session = `${new Date(atMs - 5000).toISOString().slice(0, 19).replace(/:/g, '-')}Z-${(i / TURNS_PER_SESSION).toString(16).padStart(4, '0').slice(-4)}`;
      [part, partBytes] = [1, 0];
      file = path.join(dir, logFileName(session, part));
      out.files++;
    }
    const [u, a] = pick(TOPICS);
    const v = { city: pick(PICK.city), city2: pick(PICK.city), name: pick(PICK.name), thing: pick(PICK.thing), food: pick(PICK.food), animal: pick(PICK.animal), genre: pick(PICK.genre), n: String(2 + Math.floor(random() * 30)) };
    const planted = spec.plant?.index === i ? spec.plant : null;
    const userText = planted?.userText ?? fill(u, v);
    const assistantText = planted?.assistantText ?? fill(a, v);
    const texts = !(spec.textlessEvery && i % spec.textlessEvery === spec.textlessEvery - 1) || planted !== null;
    const line = `${formatLogLine(makeReport(userText, assistantText, i), { session, at: new Date(atMs).toISOString(), app: '0.1.0', settingsHash: 'a1b2c3d4e5f6', models: { vad: 'silero-vad@1a2b3c4d', stt: 'zipformer-en@5e6f7a8b', llm: 'qwen2.5-1.5b@9c0d1e2f', tts: 'piper-amy@3a4b5c6d', turn: 'eou@7e8f9a0b' }, texts })}\n`;
    const size = Buffer.byteLength(line);
    if (partBytes > 0 && partBytes + size > PART_BYTES) {
      await flush();
      [part, partBytes, out.files] = [part + 1, 0, out.files + 1];
      file = path.join(dir, logFileName(session, part));
    }
    lines.push(line);
    [partBytes, out.bytes, out.turns, out.lastMs] = [partBytes + size, out.bytes + size, out.turns + 1, atMs];
    if (planted) out.plantedMs = atMs;
  }
  await flush();
  return out;
}

/** A turn's report with what a real one carries besides its words: timeline, checks, route, echo. */
function fullReport(userText: string, assistantText: string, index: number): TurnReport {
  const t0 = index * 10_000;
  return {
    index, userText, assistantText, heardText: assistantText, interrupted: false, startedBy: 'speech', endReason: 'turn-model', bargeIn: null, backchannels: [], tools: [], confirmation: null,
    holdingPhrase: false, mergedContinuation: false, inputGainDb: 0, command: null, llmUsed: true, llm: { provider: 'local', fallback: false, error: null }, prepared: 'used', preparedLeadMs: 180,
    turnDetector: { checks: [0, 1, 2].map((k) => ({ atMs: t0 + 1200 + k * 300, probability: 0.2 + k * 0.3, text: userText.split(' ').slice(0, 3 + k).join(' '), heldBy: null })) },
    timings: { speechStartMs: t0, speechEndMs: t0 + 1900, endOfTurnMs: t0 + 2110, sttFinalMs: t0 + 2160, llmFirstTokenMs: t0 + 2290, firstClauseMs: t0 + 2410, firstAudioMs: t0 + 2460, lastAudioMs: t0 + 7400, llmStartMs: t0 + 1930 },
    timeline: (['endpoint', 'stt', 'llm', 'clause', 'tts', 'playback'] as const).map((stage, k) => ({ stage, startMs: k * 110 - 30, endMs: k * 130 + 90 })),
    latency: { endpointMs: 210, sttMs: 50, llmTtftMs: 130, ttsFirstAudioMs: 50, voiceToVoiceMs: 560 },
    engine: { sttFinalDecodeMs: 38, llmUntilFirstClauseMs: 240, ttsFirstClauseMs: 44 },
    echo: { erleDb: 24.5, erleSettledDb: 27.1, tailMs: 250 },
  };
}

/** RSS growth while `fn` runs: its peak (sampled every 2 ms, and at the end) over RSS before it. */
export async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growthBytes: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  try {
    const value = await fn();
    return { value, growthBytes: Math.max(peak, process.memoryUsage.rss()) - before };
  } finally {
    clearInterval(timer);
  }
}

/** The baseline: every file read whole, every line parsed and checked, a substring scan over every turn. */
export async function naiveSearch(dir: string, q: HistoryQuery): Promise<{ hits: number; bytesRead: number }> {
  const files = await listLogFiles(dir);
  const { turns } = await readLogFiles(files);
  const words = q.words.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter((w) => tokenize(w).length > 0);
  const [from, to] = [q.fromMs ?? -Infinity, q.toMs ?? Infinity];
  const found: { score: number; atMs: number }[] = [];
  for (const t of turns) {
    const atMs = Date.parse(t.at);
    if (!t.texts || atMs < from || atMs > to) continue;
    const text = `${t.report.userText} ${t.report.assistantText}`.toLowerCase();
    const score = words.length === 0 ? 1 : words.filter((w) => text.includes(w)).length;
    if (score > 0) found.push({ score, atMs });
  }
  found.sort((a, b) => b.score - a.score || b.atMs - a.atMs);
  return { hits: Math.min(5, found.length), bytesRead: files.reduce((s, f) => s + f.bytes, 0) };
}

const DAY = 86_400_000;
/** About 20 questions, as a user would ask them; a few with a date range relative to the last turn. */
function benchQueries(h: WrittenHistory): HistoryQuery[] {
  const words = ['what did I say about the trip to Lisbon', 'weather in Paris', 'set a timer', 'call Anna about the invoice', 'how do I cook risotto', 'a story about a fox', 'jazz music', 'the dentist', 'how far is Tokyo from Oslo',
    'xylophone quartet', 'remind me', 'Berlin tomorrow', 'the meeting', 'train trip to Rome', 'pancakes', 'Prague', 'cat stories', 'degrees'];
  const yesterday = { fromMs: h.lastMs - 2 * DAY, toMs: h.lastMs - DAY };
  return [...words.map((w) => ({ words: w })), { words: 'what did we talk about yesterday', ...yesterday }, { words: 'weather', fromMs: h.lastMs - 7 * DAY, toMs: h.lastMs }];
}

interface SideFigures {
  ms: Distribution;
  maxBytesRead: number;
  maxRssGrowthMiB: number;
  truncated?: number;
}

async function runSide(queries: HistoryQuery[], run: (q: HistoryQuery) => Promise<{ bytesRead: number; truncated?: boolean }>): Promise<SideFigures> {
  const ms: number[] = [];
  let [maxBytesRead, maxGrowth, truncated] = [0, 0, 0];
  for (const q of queries) {
    const t0 = performance.now();
    const { value, growthBytes } = await peakRssGrowth(() => run(q));
    ms.push(performance.now() - t0);
    [maxBytesRead, maxGrowth, truncated] = [Math.max(maxBytesRead, value.bytesRead), Math.max(maxGrowth, growthBytes), truncated + (value.truncated ? 1 : 0)];
  }
  return { ms: distribution(ms), maxBytesRead, maxRssGrowthMiB: Math.round((maxGrowth / MB) * 10) / 10, truncated };
}

/** µs a line to read the fields: the byte scan, and JSON.parse of the whole line; best of 3 passes. */
async function extractionFigures(dir: string): Promise<{ lines: number; meanLineBytes: number; scanUs: number; parseUs: number; agree: boolean }> {
  const [file] = await listLogFiles(dir);
  const data = await readFile(file!.path);
  const lines: Buffer[] = [];
  for (let s = 0, nl = data.indexOf(10); nl !== -1; s = nl + 1, nl = data.indexOf(10, s)) lines.push(data.subarray(s, nl));
  const time = (f: (l: Buffer) => unknown) => {
    let best = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      const t0 = performance.now();
      for (const l of lines) f(l);
      best = Math.min(best, performance.now() - t0);
    }
    return Math.round((best / lines.length) * 1000 * 100) / 100;
  };
  const agree = lines.every((l) => JSON.stringify(scanTurnFields(l)) === JSON.stringify(parseTurnFields(l.toString())));
  return { lines: lines.length, meanLineBytes: Math.round(data.length / lines.length), scanUs: time(scanTurnFields), parseUs: time((l) => parseTurnFields(l.toString())), agree };
}

const ms = (d: Distribution) => `${d.median} / ${d.p95} / ${d.max}`;

export async function benchHistory(argv: string[]): Promise<void> {
  const help = `Searches two generated histories (10,000 turns; about 50 MB) with about 20 questions each, and the
same with the naive way (every file read, every line parsed, a substring scan): ms, bytes read, RSS growth.

Usage: ${HISTORY_SEARCH_USAGE}

  --json OUT.json    also write the numbers as JSON
  -h, --help         this help`;
  const { values } = parseCli(argv, { 'history-search': { type: 'boolean' }, json: { type: 'string' } }, HISTORY_SEARCH_USAGE, help);
  const root = await mkdtemp(path.join(os.tmpdir(), 'lva-bench-history-'));
  const plant = { userText: "I'm planning a trip to Lisbon in May with Anna, we want to see the tiled houses", assistantText: 'Lisbon in May sounds lovely: mild weather, and the trams up to the castle are worth it.' };
  try {
    const rows = [];
    // Planted among the oldest of 10,000 turns, and within the newest 20,000 (the turn bound) of 50 MB.
    for (const [name, spec, at] of [['10,000 turns', { turns: 10_000 }, 137], ['about 50 MB', { bytes: 50 * MB }, 12_000]] as const) {
      const dir = path.join(root, name.replace(/\W+/g, '-'));
      await mkdir(dir);
      const h = await writeHistory(dir, { ...spec, plant: { index: at, ...plant }, textlessEvery: 10 });
      const queries = benchQueries(h);
      process.stderr.write(`${name}: ${h.turns} turns, ${(h.bytes / MB).toFixed(1)} MB in ${h.files} files; ${queries.length} queries\n`);
      const search = await runSide(queries, (q) => searchHistory(dir, q));
      const naive = await runSide(queries, (q) => naiveSearch(dir, q));
      const planted = (await searchHistory(dir, { words: plant.userText.slice(0, 40) })).hits[0]?.at === new Date(h.plantedMs!).toISOString();
      rows.push({ name, turns: h.turns, bytes: h.bytes, files: h.files, queries: queries.length, plantedAt: at, plantedFirst: planted, search, naive });
    }
    const extraction = await extractionFigures(path.join(root, '10-000-turns'));
    const result = { machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.availableParallelism(), node: process.version }, rows, extraction };
    console.log('history search: ms from the call to the answer (median / p95 / max), most bytes read, most RSS growth of one query');
    for (const r of rows) {
      console.log(`${r.name} (${r.turns} turns, ${(r.bytes / MB).toFixed(1)} MB, ${r.files} files, ${r.queries} queries; planted turn ${r.plantedAt} first: ${r.plantedFirst ? 'yes' : 'NO'})`);
      console.log(`  search    ${ms(r.search.ms)} ms, read ${(r.search.maxBytesRead / MB).toFixed(1)} MB, RSS +${r.search.maxRssGrowthMiB} MiB, ${r.search.truncated} truncated`);
      console.log(`  naive     ${ms(r.naive.ms)} ms, read ${(r.naive.maxBytesRead / MB).toFixed(1)} MB, RSS +${r.naive.maxRssGrowthMiB} MiB`);
    }
    const x = extraction;
    console.log(`fields of a line (${x.lines} lines of ${x.meanLineBytes} bytes on average): byte scan ${x.scanUs} µs, JSON.parse ${x.parseUs} µs${x.agree ? '' : ' (they DISAGREE)'}`);
    console.log(`machine: ${result.machine.cpu}, ${result.machine.cores} cores, node ${result.machine.node}`);
    if (values.json) {
      await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`wrote ${values.json}`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
