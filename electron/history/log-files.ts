/**
 * The history's files in a folder: `session-<id>.jsonl`, then `session-<id>-2.jsonl`, ... once a
 * part passes its size cap. Names, listing and reading; the writer is session-log.ts.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseLogLines, type LoggedTurn, type SkippedLine } from './log-format';

const FILE_NAME = /^session-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-[0-9a-f]{4})(?:-([1-9]\d{0,5}))?\.jsonl$/;

export interface LogFile {
  session: string;
  /** 1 for the first file of a session, then 2, 3, ... */
  part: number;
  path: string;
  bytes: number;
}

export function newSessionId(now: Date): string {
  return `${now.toISOString().slice(0, 19).replace(/:/g, '-')}Z-${randomBytes(2).toString('hex')}`;
}

/** When the session started, as ISO time, read back from its id. */
export function sessionStart(id: string): string {
  const [date, time] = id.slice(0, 19).split('T');
  return new Date(`${date}T${(time ?? '').replace(/-/g, ':')}Z`).toISOString();
}

export function logFileName(session: string, part: number): string {
  return `session-${session}${part > 1 ? `-${part}` : ''}.jsonl`;
}

/** Every history file in `dir`, oldest first (session, then part); none when the folder does not exist. */
export async function listLogFiles(dir: string): Promise<LogFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return [];
    throw e;
  }
  const files: LogFile[] = [];
  for (const name of names) {
    const m = FILE_NAME.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    try {
      const s = await stat(file);
      if (s.isFile()) files.push({ session: m[1]!, part: m[2] ? Number(m[2]) : 1, path: file, bytes: s.size });
    } catch {
      // Deleted between the listing and the stat (a clear, the size cap): not there any more.
    }
  }
  return files.sort((a, b) => (a.session < b.session ? -1 : a.session > b.session ? 1 : a.part - b.part));
}

export interface FileSkip extends SkippedLine {
  file: string;
}

/**
 * The largest history file read: the writer starts a new part at 5 MB (plus at most one line), so
 * anything much larger was not written by the app, and is not held in memory whole.
 */
export const MAX_LOG_FILE_BYTES = 16 * 1024 * 1024;

/** The turns of `files` in order, and every line that could not be read, with its file. */
export async function readLogFiles(files: readonly LogFile[]): Promise<{ turns: LoggedTurn[]; skipped: FileSkip[] }> {
  const turns: LoggedTurn[] = [];
  const skipped: FileSkip[] = [];
  for (const f of files) {
    if (f.bytes > MAX_LOG_FILE_BYTES) {
      skipped.push({ file: f.path, line: 0, reason: `the file is ${Math.round(f.bytes / (1024 * 1024))} MB, more than the app writes (at most ${MAX_LOG_FILE_BYTES / (1024 * 1024)} MB), so it was not read` });
      continue;
    }
    let text: string;
    try {
      text = await readFile(f.path, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') continue;
      throw e;
    }
    const parsed = parseLogLines(text);
    turns.push(...parsed.turns);
    skipped.push(...parsed.skipped.map((s) => ({ file: f.path, ...s })));
  }
  return { turns, skipped };
}

/** Complete lines in a file (each turn is one), counted without parsing them, a piece at a time. */
export async function countLines(file: string): Promise<number> {
  let n = 0;
  try {
    for await (const piece of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let i = piece.indexOf(10); i !== -1; i = piece.indexOf(10, i + 1)) n++;
    }
    return n;
  } catch {
    return n;
  }
}
