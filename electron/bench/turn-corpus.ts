/**
 * The turn-taking corpus (`../shared/speech/turns`): per clip a WAV file, the spoken segments and
 * every pause of 100 ms or more, marked "hold" (the user goes on) or "end" (the user has finished).
 * The manifest is checked before any audio is read, so a bad one costs one clear line, not a run.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { toMono16k } from '../audio/resample';
import { readWavFile } from '../audio/wav';
import { UserError } from '../errors';

export type PauseKind = 'hold' | 'end';

/** A silence in the clip, in ms from its start. */
export interface Pause {
  startMs: number;
  endMs: number;
  kind: PauseKind;
}

export interface TurnClip {
  name: string;
  file: string;
  speech: { startMs: number; endMs: number }[];
  /** Sorted by start, not overlapping. */
  pauses: Pause[];
  samples: Float32Array;
}

type Entry = Omit<TurnClip, 'samples'>;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A {"start", "end"} span in seconds, as ms; throws a ManifestProblem naming `where` when it is not one. */
export function span(v: unknown, where: string): { startMs: number; endMs: number } {
  if (!isObject(v)) return fail(`${where} must be an object like {"start": 1.2, "end": 1.8}`);
  if (!isTime(v.start)) return fail(`${where}.start must be a number of seconds (0 or more), got ${JSON.stringify(v.start)}`);
  if (!isTime(v.end)) return fail(`${where}.end must be a number of seconds (0 or more), got ${JSON.stringify(v.end)}`);
  if (!(v.end > v.start)) return fail(`${where} ends (${v.end} s) before it starts (${v.start} s)`);
  return { startMs: v.start * 1000, endMs: v.end * 1000 };
}

/** What is wrong with a manifest, said in a few words; the reader turns it into a UserError naming the file. */
export class ManifestProblem extends Error {}
export function fail(message: string): never {
  throw new ManifestProblem(message);
}

function entry(name: string, v: unknown): Entry {
  const at = `clip "${name}"`;
  if (!isObject(v)) return fail(`${at} must be an object with "file", "speech" and "pauses"`);
  if (typeof v.file !== 'string' || v.file === '') return fail(`${at} has no "file" (the clip's WAV, relative to the manifest)`);
  if (!Array.isArray(v.speech)) return fail(`${at} has no "speech" list of {"start", "end"} in seconds`);
  if (!Array.isArray(v.pauses)) return fail(`${at} has no "pauses" list of {"start", "end", "kind"} in seconds`);
  const speech = v.speech.map((s, i) => span(s, `${at} speech[${i}]`));
  const pauses = v.pauses.map((p, i): Pause => {
    const where = `${at} pauses[${i}]`;
    const s = span(p, where);
    const kind = (p as Record<string, unknown>).kind;
    if (kind !== 'hold' && kind !== 'end') return fail(`${where}.kind must be "hold" or "end", got ${JSON.stringify(kind)}`);
    return { ...s, kind };
  });
  for (let i = 1; i < pauses.length; i++) {
    if (pauses[i]!.startMs < pauses[i - 1]!.endMs) return fail(`${at} pauses[${i}] starts before pauses[${i - 1}] ends: list them in order, without overlaps`);
  }
  if (!pauses.some((p) => p.kind === 'end')) return fail(`${at} has no pause of kind "end" (where the user has finished)`);
  return { name, file: v.file, speech, pauses };
}

/** Checks a parsed manifest; throws UserError naming the file, the clip and the field that is wrong. */
export function parseTurnManifest(manifest: unknown, manifestFile: string): Entry[] {
  try {
    if (!isObject(manifest)) fail('must map clip names to {"file": "x.wav", "speech": [...], "pauses": [...]}');
    const entries = Object.entries(manifest).map(([name, v]) => entry(name, v));
    if (entries.length === 0) fail('lists no clips');
    return entries;
  } catch (e) {
    if (!(e instanceof ManifestProblem)) throw e;
    throw new UserError(`${manifestFile}: ${e.message}. See ../shared/speech/README.md, "turns/", for the format.`, 'corpus-invalid');
  }
}

/** Reads and checks the manifest, then every clip's audio (16 kHz mono). */
export async function readTurnCorpus(dir: string): Promise<TurnClip[]> {
  const manifestFile = path.join(dir, 'manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (e) {
    throw new UserError(
      `Cannot read the turn corpus manifest ${manifestFile}: ${(e as Error).message}. A turn corpus is a folder with manifest.json and its WAV files (see ../shared/speech/turns).`,
      'corpus-invalid',
    );
  }
  const entries = parseTurnManifest(manifest, manifestFile);
  const clips: TurnClip[] = [];
  for (const e of entries) clips.push({ ...e, samples: toMono16k(await readWavFile(path.resolve(dir, e.file))) });
  return clips;
}
