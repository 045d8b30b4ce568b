/**
 * The files and the folder `talk` writes, checked before any model loads: a typo costs one line
 * saying what is wrong, not a stack trace after the whole run, nor a hang.
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors';

/** Plain words for the errors a path can meet. */
const WHY: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only file system',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  // Also what /proc answers to a new entry.
  ENOENT: 'not found, or no place for new files',
};

function why(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return WHY[code] ?? (code || (e as Error).message);
}

/** What is at `p`: its stats, null when nothing is, or a UserError for any other failure. */
async function look(flag: string, p: string): Promise<Stats | null> {
  try {
    return await stat(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new UserError(`${flag}: cannot look at ${p} (${why(e)}); give another path`, 'usage');
  }
}

/** The nearest folder up from `p` that exists (the root always does), with what it is. */
async function nearestExisting(flag: string, p: string): Promise<{ at: string; stats: Stats }> {
  // path.resolve has no '..' left, so each step is one name shorter: at most as many steps as names.
  for (let at = path.resolve(p); ; at = path.dirname(at)) {
    const stats = await look(flag, at);
    if (stats) return { at, stats };
    if (path.dirname(at) === at) throw new UserError(`${flag}: no part of ${p} exists; give another path`, 'usage');
  }
}

/**
 * Proves the folder takes new files by making (and removing) one: access() says yes to root
 * everywhere, even in /proc or on a read-only disk.
 */
async function probe(flag: string, dir: string, what: string): Promise<void> {
  const file = path.join(dir, `.talk-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    await writeFile(file, '', { flag: 'wx' });
  } catch (e) {
    throw new UserError(`${flag}: cannot write in ${dir} (${why(e)}); ${what}`, 'usage');
  }
  await rm(file, { force: true });
}

/**
 * `--log DIR` (or `--notes DIR`): a folder that exists and takes files, or one that can be made in the
 * nearest folder that exists. Each missing folder is made on its own (no recursive mkdir, which spins
 * forever on /proc), so the work is bounded by the number of names in the path.
 */
export async function prepareLogFolder(dir: string, flag = '--log'): Promise<void> {
  const fix = 'give a folder you can write to';
  const target = path.resolve(dir);
  const { at, stats } = await nearestExisting(flag, target);
  if (!stats.isDirectory()) {
    const kind = stats.isFile() ? 'a file' : 'a device, pipe or socket';
    throw new UserError(at === target ? `${flag}: ${dir} is ${kind}, not a folder; give a folder` : `${flag}: ${at} is ${kind}, so ${dir} cannot be made inside it; give a folder`, 'usage');
  }
  await probe(flag, at, fix);
  const missing = path.relative(at, target).split(path.sep).filter(Boolean);
  let made = at;
  for (const name of missing) {
    made = path.join(made, name);
    try {
      await mkdir(made);
    } catch (e) {
      throw new UserError(`${flag}: cannot make the folder ${made} (${why(e)}); ${fix}`, 'usage');
    }
  }
  if (missing.length > 0) await probe(flag, target, fix);
}

/**
 * A file `talk` writes at the end of the run (`--output`, `--report`, `--cleaned`): its folder must
 * exist and take files, and the name may not be a folder or anything but a plain file.
 */
export async function checkOutputFile(flag: string, file: string, example: string): Promise<void> {
  if (file === '') throw new UserError(`${flag} needs a file name (example: ${flag} ${example})`, 'usage');
  const there = await look(flag, file);
  if (there?.isDirectory()) throw new UserError(`${flag}: ${file} is a folder; give a file name (example: ${flag} ${path.join(file, example)})`, 'usage');
  // A device or pipe would be replaced, not written through (files are renamed into place).
  if (there && !there.isFile()) throw new UserError(`${flag}: ${file} is not a plain file; give a file name (example: ${flag} ${example})`, 'usage');
  const dir = path.dirname(path.resolve(file));
  const folder = await look(flag, dir);
  if (!folder?.isDirectory()) throw new UserError(`${flag}: the folder ${dir} does not exist; create it first`, 'usage');
  await probe(flag, dir, 'give a folder you can write to');
}

/** Refuses two options naming the same file (one write would replace the other, or the input). */
export function checkDistinct(files: [flag: string, file: string | undefined, what: string][]): void {
  const seen = new Map<string, string>();
  for (const [flag, file, what] of files) {
    if (file === undefined) continue;
    const key = path.resolve(file);
    const other = seen.get(key);
    if (other) throw new UserError(`${flag}: ${file} is also ${other}; give it a name of its own`, 'usage');
    seen.set(key, what);
  }
}

/** Runs a write at the end of the run; a failure a user can act on (disk full, permissions) becomes one line. */
export async function writeOutput(flag: string, file: string, write: () => unknown): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (e instanceof UserError || typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    throw new UserError(`${flag}: cannot write ${file} (${why(e)}); free some space or give another path`, 'usage');
  }
}
