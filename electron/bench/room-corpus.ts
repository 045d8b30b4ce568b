/**
 * What the room benchmark (`npm run bench -- --rooms DIR`) runs over: the rooms (every impulse
 * response in DIR, with RT60 and DRR from its rooms.json when there is one) and the speech clips
 * with their spoken segments (a corpus's manifest.json, plus the clips of its sub-folders in which
 * the user interrupts an answer). Everything is checked before a model loads.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { toMono16k } from '../audio/resample';
import { readWavFile } from '../audio/wav';
import { UserError } from '../errors';
import { readImpulseResponse } from '../pipeline/run/echo';
import { fail, isObject, ManifestProblem, span } from './turn-corpus';

export interface Span {
  startMs: number;
  endMs: number;
  /** The words spoken, where the manifest gives them (bench --real-size hands them on as the transcript). */
  text?: string;
}

export interface RoomClip {
  /** The manifest's name; a sub-folder's clip is `folder/name`. */
  name: string;
  samples: Float32Array;
  /** What the user says, in ms from the clip's start, in order. */
  speech: Span[];
  /** The user speaks over the assistant's answer to interrupt it: its segments spoken over an answer are barge-ins. */
  bargeIn: boolean;
}

export interface Room {
  name: string;
  file: string;
  /** 16 kHz mono. */
  ir: Float32Array;
  /** From rooms.json, null when it does not say. */
  rt60: number | null;
  drrDb: number | null;
}

/** Clips in which the user interrupts an answer (../shared/speech); any other whose manifest entry says `"bargeIn": true`. */
export const BARGE_IN_CLIPS: readonly string[] = ['interrupt', 'stop_over_answer'];

/** Where to look for the format when a manifest is wrong. */
const FORMAT = 'A corpus is a folder with manifest.json mapping clip names to {"file": "x.wav", "speech": [{"start": s, "end": s}, ...]} (see ../shared/speech/README.md)';

/**
 * A JSON file; `undefined` when `optional` and it does not exist. Any other problem is one UserError:
 * `problem(why)` says it.
 */
async function readJson(file: string, problem: (why: string) => string, optional = false): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(problem((e as Error).message), 'corpus-invalid');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(problem((e as Error).message), 'corpus-invalid');
  }
}

const cannotRead = (file: string) => (why: string) => `Cannot read the corpus manifest ${file}: ${why}. ${FORMAT}.`;

interface Entry {
  name: string;
  file: string;
  speech: Span[];
  bargeIn: boolean;
}

function entries(manifest: unknown, manifestFile: string): Entry[] {
  try {
    if (!isObject(manifest)) fail('must map clip names to {"file": "x.wav", "speech": [...]}');
    return Object.entries(manifest).map(([name, v]) => {
      const at = `clip "${name}"`;
      if (!isObject(v)) return fail(`${at} must be an object with "file" and "speech"`);
      if (typeof v.file !== 'string' || v.file === '') return fail(`${at} has no "file" (the clip's WAV, relative to the manifest)`);
      if (!Array.isArray(v.speech)) return fail(`${at} has no "speech" list of {"start", "end"} in seconds (the room benchmark needs to know when the user speaks)`);
      const speech = v.speech
        .map((s, i) => ({ ...span(s, `${at} speech[${i}]`), ...(isObject(s) && typeof s.text === 'string' ? { text: s.text } : {}) }))
        .sort((a, b) => a.startMs - b.startMs);
      return { name, file: v.file, speech, bargeIn: v.bargeIn === true || BARGE_IN_CLIPS.includes(name) };
    });
  } catch (e) {
    if (!(e instanceof ManifestProblem)) throw e;
    throw new UserError(`${manifestFile}: ${e.message}. ${FORMAT}.`, 'corpus-invalid');
  }
}

/**
 * Every clip of `dir`'s manifest, then the barge-in clips of its sub-folders' manifests (so
 * ../shared/speech brings commands/stop_over_answer). `only`: keep the clips so named (`name` or
 * `folder/name`); a name that matches none is an error listing those there are.
 */
export async function readRoomCorpus(dir: string, only: readonly string[] | null = null): Promise<RoomClip[]> {
  const manifestFile = path.join(dir, 'manifest.json');
  const top = entries(await readJson(manifestFile, cannotRead(manifestFile)), manifestFile);
  if (top.length === 0) throw new UserError(`${manifestFile} lists no clips. ${FORMAT}.`, 'corpus-invalid');
  const found: (Entry & { dir: string })[] = top.map((e) => ({ ...e, dir }));
  const subs = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  for (const sub of subs) {
    const file = path.join(dir, sub, 'manifest.json');
    const manifest = await readJson(file, cannotRead(file), true);
    if (manifest === undefined) continue;
    for (const e of entries(manifest, file)) {
      if (e.bargeIn) found.push({ ...e, name: `${sub}/${e.name}`, dir: path.join(dir, sub) });
    }
  }
  const matches = (e: Entry, name: string) => e.name === name || e.name.split('/').pop() === name;
  if (only) {
    const unknown = only.filter((name) => !found.some((e) => matches(e, name)));
    if (unknown.length > 0) throw new UserError(`--clips: no clip named ${unknown.join(', ')} in ${dir} (there are: ${found.map((e) => e.name).join(', ')})`, 'usage');
  }
  const chosen = only ? found.filter((e) => only.some((name) => matches(e, name))) : found;
  const clips: RoomClip[] = [];
  for (const e of chosen) clips.push({ name: e.name, speech: e.speech, bargeIn: e.bargeIn, samples: toMono16k(await readWavFile(path.resolve(e.dir, e.file))) });
  return clips;
}

/** rooms.json's RT60 (s) and DRR (dB) by room name; none when the folder has no rooms.json. */
async function roomFacts(dir: string): Promise<Map<string, { rt60: number | null; drrDb: number | null }>> {
  const file = path.join(dir, 'rooms.json');
  const facts = new Map<string, { rt60: number | null; drrDb: number | null }>();
  const json = await readJson(file, (why) => `--rooms: cannot read ${file} (${why}); fix it or remove it`, true);
  if (json === undefined) return facts;
  const list = isObject(json) ? json.rooms : null;
  if (!Array.isArray(list)) throw new UserError(`--rooms: ${file} must be {"rooms": [{"name", "rt60", "drr_db"}, ...]}`, 'room-invalid');
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  for (const r of list) if (isObject(r) && typeof r.name === 'string') facts.set(r.name, { rt60: num(r.rt60), drrDb: num(r.drr_db) });
  return facts;
}

/** Every *.wav in `dir` as a room, in rooms.json's order, then by name. */
export async function readRooms(dir: string): Promise<Room[]> {
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    throw new UserError(`--rooms: cannot read the folder ${dir} (${e.code ?? e.message}): give a folder of impulse response WAV files`, 'room-invalid');
  });
  const wavs = names.filter((n) => /\.wav$/i.test(n)).sort();
  if (wavs.length === 0) throw new UserError(`--rooms: ${dir} holds no .wav file: give a folder of impulse response WAV files (e.g. ../shared/rooms)`, 'room-invalid');
  const facts = await roomFacts(dir);
  const order = [...facts.keys()];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const rooms: Room[] = [];
  for (const w of wavs) {
    const name = w.replace(/\.wav$/i, '');
    const file = path.join(dir, w);
    rooms.push({ name, file, ir: await readImpulseResponse(file, '--rooms'), rt60: facts.get(name)?.rt60 ?? null, drrDb: facts.get(name)?.drrDb ?? null });
  }
  return rooms.sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}
