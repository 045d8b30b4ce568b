/**
 * Shared fixtures for the real-engine tests (vad, stt, llm, tts): where the test models and the
 * espeak speech clips live, the clip manifest, and small text helpers. Not a test file itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWavFile } from '../electron/audio/wav';
import { toMono16k } from '../electron/audio/resample';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MODELS_DIR = path.resolve(repoRoot, '../shared/models');
export const SPEECH_DIR = path.resolve(repoRoot, '../shared/speech');
export const MODEL_ROOTS = [MODELS_DIR];

export interface ManifestSegment {
  text: string;
  /** Seconds. */
  start: number;
  end: number;
  voice: string;
}

export interface ManifestClip {
  file: string;
  sampleRate: number;
  channels: number;
  format: string;
  duration: number;
  speech: ManifestSegment[];
  note: string;
}

export const MANIFEST: Record<string, ManifestClip> = JSON.parse(
  readFileSync(path.join(SPEECH_DIR, 'manifest.json'), 'utf8'),
);

export function clip(name: string): ManifestClip {
  const c = MANIFEST[name];
  if (!c) throw new Error(`no clip '${name}' in ${SPEECH_DIR}/manifest.json`);
  return c;
}

/** The clip as 16 kHz mono float samples, through the app's own reader and resampler. */
export async function loadClip16k(name: string): Promise<Float32Array> {
  return toMono16k(await readWavFile(path.join(SPEECH_DIR, clip(name).file)));
}

/** Lowercase words, punctuation dropped (the recognizers output a-z, apostrophe and spaces). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Levenshtein distance between two sequences (words or characters). */
export function editDistance<T>(a: readonly T[], b: readonly T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** How many words of `ref` the hypothesis got right, in order (longest common subsequence). */
export function matchingWords(ref: readonly string[], hyp: readonly string[]): number {
  let prev = new Array<number>(hyp.length + 1).fill(0);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [0];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = ref[i - 1] === hyp[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    prev = cur;
  }
  return prev[hyp.length]!;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
