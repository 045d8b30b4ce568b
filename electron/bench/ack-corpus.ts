/**
 * The acknowledgement corpus (`npm run bench -- --acks`): espeak-ng voices the project's other
 * speech never used, each asking for a long story and then, over the answer, saying either
 * acknowledgements ("uh huh", "I see", "got it") or real interruptions ("wait", "hold on", "what
 * about Paris") at several levels against the request. Generated, never committed (tens of MB):
 * the same seed, voices and espeak-ng give the same clips.
 *
 * The split is fixed by voice: the policy's thresholds were tuned on the `tuning` voices only; the
 * `held-out` voices are what the figures in docs/listening.md are reported on.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseWav, encodeWav } from '../audio/wav';
import { toMono16k } from '../audio/resample';
import { UserError } from '../errors';
import { prng } from '../seeded-random';

export type Split = 'tuning' | 'held-out';
export type ItemKind = 'acknowledgement' | 'interruption';

/** Eight voices no other corpus here uses: four tune the policy, four are kept back. `rate` words a minute, `pitch` espeak's 0-99. */
export const ACK_VOICES: readonly { voice: string; rate: number; pitch: number; split: Split }[] = [
  { voice: 'en-gb+m4', rate: 165, pitch: 45, split: 'tuning' },
  { voice: 'en-us+f5', rate: 180, pitch: 60, split: 'tuning' },
  { voice: 'en-gb-x-gbclan+m7', rate: 150, pitch: 40, split: 'tuning' },
  { voice: 'en-029+f3', rate: 175, pitch: 55, split: 'tuning' },
  { voice: 'en-us+john', rate: 170, pitch: 50, split: 'held-out' },
  { voice: 'en-gb+linda', rate: 160, pitch: 58, split: 'held-out' },
  { voice: 'en-us-nyc+m4', rate: 185, pitch: 42, split: 'held-out' },
  { voice: 'en-gb-x-rp+f3', rate: 155, pitch: 52, split: 'held-out' },
];

/** Twelve ways to nod along: short, no content word, a falling end. */
export const ACK_PHRASES: readonly string[] = ['uh huh.', 'mm hmm.', 'mm.', 'right.', 'I see.', 'got it.', 'sure.', 'oh okay.', 'yeah yeah.', 'yes.', 'okay.', 'alright.'];
/** Twelve ways to take the floor, of the same lengths. */
export const INTERRUPTION_PHRASES: readonly string[] = ['wait!', 'no, stop.', 'what about Paris?', 'hold on.', 'hang on!', 'wait a moment.', 'no, not that.', 'actually,', 'stop there.', 'excuse me!', 'one question.', 'what time is it?'];
/** Against the request's level: acknowledgements tend to be quieter, interruptions not; both share 0 and -6 dB, so level alone cannot decide. */
export const ACK_LEVELS_DB: readonly number[] = [0, -6, -12];
export const INTERRUPTION_LEVELS_DB: readonly number[] = [4, 0, -6];

const REQUESTS = ['tell me a long story about a dragon.', 'tell me a long story about a castle.', 'tell me a long story about the sea.'];
const RATE = 16000;
/** The request's loud part (90th percentile of 8 ms frames) sits here. */
const REQUEST_LEVEL_DBFS = -20;
const NOISE_DBFS = -62;
/** Where the first item over the answer starts, the spacing of acknowledgements, and what follows the last. */
const FIRST_ITEM_S = 4.5;
const ACK_SPACING_S = 3;
const TAIL_S = 2.5;
const ACKS_PER_CLIP = 3;
/** espeak-ng takes well under a second per phrase; one that hangs is stopped. */
const ESPEAK_TIMEOUT_MS = 20_000;
const ESPEAK_MAX_BYTES = 64 * 1024;
/** Bumped when what the generator writes changes, so a stale cache is regenerated. */
const VERSION = 1;

export interface CorpusItem {
  kind: ItemKind;
  text: string;
  start: number;
  end: number;
  levelDb: number;
}

export interface CorpusClip {
  file: string;
  voice: string;
  split: Split;
  /** Every spoken segment in seconds, as the shared manifests give them: the request, then the items said over its answer. */
  speech: { kind: 'request' | ItemKind; text: string; start: number; end: number }[];
  request: { text: string; start: number; end: number };
  items: CorpusItem[];
}

/** Part of the corpus (the test suite's): these voices, every acknowledgement, interruptions at these levels only. Names and contents are as in the whole. */
export interface CorpusSubset {
  voices: string[];
  interruptionLevels: number[];
}

const sameSubset = (a: CorpusSubset | null, b: CorpusSubset | null) => JSON.stringify(a) === JSON.stringify(b);

export interface AckCorpus {
  version: number;
  subset?: CorpusSubset;
  clips: Record<string, CorpusClip>;
}

export function defaultAckCorpusDir(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'local-voice-assistant', 'ack-corpus');
}


let phraseCount = 0;

/** One phrase in one voice, 16 kHz, without its leading and trailing silence. espeak-ng writes a file (its --stdout header gives no length). */
export async function espeakPhrase(text: string, v: { voice: string; rate: number; pitch: number }, tmpDir: string): Promise<Float32Array> {
  const file = path.join(tmpDir, `phrase-${process.pid}-${phraseCount++}.wav`);
  await new Promise<void>((resolve, reject) => {
    execFile('espeak-ng', ['-v', v.voice, '-s', String(v.rate), '-p', String(v.pitch), '-w', file, text], { timeout: ESPEAK_TIMEOUT_MS, maxBuffer: ESPEAK_MAX_BYTES }, (e) => {
      if (!e) return resolve();
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new UserError(missing ? 'The acknowledgement corpus is spoken by espeak-ng, which is not installed: install it (Debian: apt-get install espeak-ng) and run again.' : `espeak-ng failed on "${text}" (${v.voice}): ${e.message}`, 'corpus-invalid'));
    });
  });
  const bytes = await readFile(file);
  await rm(file, { force: true });
  return trim(toMono16k(parseWav(bytes, `espeak-ng ${v.voice}`)));
}

/** Frame levels (dBFS) of 8 ms frames. */
function frameDb(x: Float32Array): number[] {
  const out: number[] = [];
  for (let o = 0; o + 128 <= x.length; o += 128) {
    let s = 0;
    for (let i = o; i < o + 128; i++) s += x[i]! * x[i]!;
    out.push(10 * Math.log10(s / 128 + 1e-12));
  }
  return out;
}

/** Without espeak's leading and trailing silence (frames under -45 dBFS, as the shared manifests measure). */
function trim(x: Float32Array): Float32Array {
  const db = frameDb(x);
  const first = db.findIndex((d) => d > -45);
  let last = db.length - 1;
  while (last > first && db[last]! <= -45) last--;
  return first < 0 ? new Float32Array(0) : x.slice(first * 128, (last + 1) * 128);
}

/** The loud part of a voice: the 90th percentile of its 8 ms frames above -45 dBFS. */
export function loudPartDb(x: Float32Array): number {
  const db = frameDb(x)
    .filter((d) => d > -45)
    .sort((a, b) => a - b);
  return db.length === 0 ? -100 : db[Math.floor(db.length * 0.9)]!;
}

function scaled(x: Float32Array, toDbfs: number): Float32Array {
  const g = 10 ** ((toDbfs - loudPartDb(x)) / 20);
  return x.map((s) => s * g);
}

/** Builds one clip: the request, then the phrases at `atS` over its answer, on low noise. */
async function buildClip(name: string, v: (typeof ACK_VOICES)[number], request: string, said: { kind: ItemKind; text: string; levelDb: number; atS: number }[], seed: number, tmpDir: string): Promise<{ samples: Float32Array; clip: CorpusClip }> {
  const req = scaled(await espeakPhrase(request, v, tmpDir), REQUEST_LEVEL_DBFS);
  const parts = await Promise.all(said.map(async (s) => scaled(await espeakPhrase(s.text, v, tmpDir), REQUEST_LEVEL_DBFS + s.levelDb)));
  const last = said.at(-1)!;
  const total = Math.ceil((last.atS + parts.at(-1)!.length / RATE + TAIL_S) * RATE);
  const rand = prng(seed);
  const noise = 10 ** (NOISE_DBFS / 20) * Math.sqrt(3);
  const samples = new Float32Array(total).map(() => (rand() * 2 - 1) * noise);
  const put = (x: Float32Array, atS: number) => {
    const at = Math.round(atS * RATE);
    for (let i = 0; i < x.length && at + i < total; i++) samples[at + i] = Math.max(-1, Math.min(1, samples[at + i]! + x[i]!));
  };
  const reqStart = 0.5;
  put(req, reqStart);
  const items: CorpusItem[] = said.map((s, i) => {
    put(parts[i]!, s.atS);
    return { kind: s.kind, text: s.text.replace(/[.,!?]/g, ''), start: round3(s.atS), end: round3(s.atS + parts[i]!.length / RATE), levelDb: s.levelDb };
  });
  const reqSpan = { text: request.replace(/[.,!?]/g, ''), start: reqStart, end: round3(reqStart + req.length / RATE) };
  return { samples, clip: { file: `${name}.wav`, voice: v.voice, split: v.split, request: reqSpan, items, speech: [{ kind: 'request', ...reqSpan }, ...items.map(({ levelDb: _l, ...s }) => s)] } };
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

/**
 * Writes the corpus into `dir` (or finds it there, written by this version): per voice and level,
 * four clips of three acknowledgements each and twelve of one interruption each.
 */
export async function ensureAckCorpus(dir: string, log: (line: string) => void = () => {}, subset: CorpusSubset | null = null): Promise<AckCorpus> {
  const manifestFile = path.join(dir, 'manifest.json');
  try {
    const known = JSON.parse(await readFile(manifestFile, 'utf8')) as AckCorpus;
    if (known.version === VERSION && sameSubset(known.subset ?? null, subset)) return known;
  } catch {
    // None yet, or unreadable: written anew below.
  }
  await mkdir(dir, { recursive: true });
  log(`Generating the acknowledgement corpus into ${dir} (espeak-ng) ...`);
  const clips: Record<string, CorpusClip> = {};
  const clipsPerVoice = (ACK_LEVELS_DB.length * ACK_PHRASES.length) / ACKS_PER_CLIP + INTERRUPTION_LEVELS_DB.length * INTERRUPTION_PHRASES.length;
  for (const [vi, v] of ACK_VOICES.entries()) {
    if (subset && !subset.voices.includes(v.voice)) continue;
    // Each clip its own noise seed, the same in a subset as in the whole.
    let seed = 1 + vi * clipsPerVoice;
    const tag = v.voice.replace(/[^a-z0-9]+/gi, '_');
    const jitter = prng(1000 + vi);
    const at = (k: number, spacing: number) => round3(FIRST_ITEM_S + k * spacing + (jitter() - 0.5) * 0.6);
    for (const [li, levelDb] of ACK_LEVELS_DB.entries()) {
      for (let c = 0; c < ACK_PHRASES.length / ACKS_PER_CLIP; c++) {
        // Rotate which phrases share a clip with the level, so each phrase is heard early and late.
        const said = Array.from({ length: ACKS_PER_CLIP }, (_, k) => ({ kind: 'acknowledgement' as const, text: ACK_PHRASES[(c * ACKS_PER_CLIP + k + li * 4) % ACK_PHRASES.length]!, levelDb, atS: at(k, ACK_SPACING_S) }));
        const name = `ack_${tag}_${li}_${c}`;
        const built = await buildClip(name, v, REQUESTS[(c + li) % REQUESTS.length]!, said, seed++, dir);
        await writeAtomically(path.join(dir, built.clip.file), encodeWav(built.samples, RATE));
        clips[name] = built.clip;
      }
    }
    for (const [li, levelDb] of INTERRUPTION_LEVELS_DB.entries()) {
      for (const [p, text] of INTERRUPTION_PHRASES.entries()) {
        // Drawn whether or not the clip is written, so that a subset's clips are the whole corpus's.
        const [atS, clipSeed] = [at(0, 0), seed++];
        if (subset && !subset.interruptionLevels.includes(levelDb)) continue;
        const name = `int_${tag}_${li}_${p}`;
        const built = await buildClip(name, v, REQUESTS[(p + li) % REQUESTS.length]!, [{ kind: 'interruption', text, levelDb, atS }], clipSeed, dir);
        await writeAtomically(path.join(dir, built.clip.file), encodeWav(built.samples, RATE));
        clips[name] = built.clip;
      }
    }
  }
  const corpus: AckCorpus = { version: VERSION, ...(subset ? { subset } : {}), clips };
  await writeAtomically(manifestFile, Buffer.from(JSON.stringify(corpus, null, 1)));
  return corpus;
}

async function writeAtomically(file: string, data: Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, file);
}
