/**
 * Timers on disk: `timers.json` in the app's data folder, with absolute
 * (epoch ms) times, so a timer set before a restart still falls due at the
 * same moment after it.
 *
 * Loading never fails on bad content: a corrupt or invalid file is kept as
 * `timers.json.corrupt-<time>`, the book starts empty, and `notice` says what
 * happened. Saves are atomic (a temp file renamed over the old one) and run
 * one at a time in call order, so the last save called is the one on disk.
 * A temp file left by a process that died mid-save is removed at the next load.
 */
import { writeFileAtomic } from '../settings/file';
import { removeStaleTemps } from '../settings/stale-temps';
import { constants } from 'node:fs';
import { copyFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors';
import { TimerBook } from './timer-book';

export const TIMERS_FILE = 'timers.json';
/** Larger than any file the app writes (at most 100 timers, a few kB), small enough to read whole. */
export const MAX_TIMERS_FILE_BYTES = 8 * 1024 * 1024;

export class TimerStore {
  readonly filePath: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    this.filePath = join(dir, TIMERS_FILE);
  }

  /** Never rejects: any problem gives an empty book and a notice for the user. */
  load(): Promise<{ book: TimerBook; notice: string | null }> {
    return this.serialize(() => this.loadNow());
  }

  /** Writes the book as it is now (a snapshot taken at the call); rejects with a UserError if it cannot. */
  save(book: TimerBook): Promise<void> {
    const text = `${JSON.stringify(book.toJSON(), null, 2)}\n`;
    return this.serialize(() => this.write(text));
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    // A failed save must not block the ones queued after it.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async loadNow(): Promise<{ book: TimerBook; notice: string | null }> {
    await removeStaleTemps(this.filePath);
    let text = '';
    let problem: string | null = null;
    try {
      // 100 timers take a few kB; a file far larger was not written by the app and is not read whole.
      const size = (await stat(this.filePath)).size;
      if (size > MAX_TIMERS_FILE_BYTES) problem = `is ${Math.round(size / 1024)} kB, far more than timers need (at most ${MAX_TIMERS_FILE_BYTES / 1024} kB), so it was not read`;
      else text = await readFile(this.filePath, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return { book: new TimerBook(), notice: null };
      // Unreadable (permissions, a folder in the way): nothing to back up; the next save reports its own error.
      return { book: new TimerBook(), notice: `Could not read your timers (${this.filePath}: ${(e as Error).message}); starting with none.` };
    }

    if (problem === null) {
      try {
        const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        return { book: TimerBook.fromJSON(JSON.parse(body)), notice: null };
      } catch (e) {
        problem = e instanceof SyntaxError ? `is not valid JSON (${e.message})` : `is invalid (${(e as Error).message})`;
      }
    }

    const what = `Your timers file ${this.filePath} ${problem}`;
    let backup: string;
    try {
      backup = await backUp(this.filePath);
    } catch (e) {
      // Without a backup the broken file stays where it is rather than being overwritten.
      return { book: new TimerBook(), notice: `${what}. It could not be backed up (${(e as Error).message}), so it was left as is; your timers were not restored.` };
    }
    try {
      // Replaces the broken file, so the next start does not back it up again.
      await this.write(`${JSON.stringify(new TimerBook().toJSON(), null, 2)}\n`);
    } catch {
      // The backup exists; the next save tries the write again.
    }
    return { book: new TimerBook(), notice: `${what}. It was kept as ${backup}; your timers were not restored.` };
  }

  /** Atomic replace (as settings are written): a crash leaves the old file or the new one, never a torn one. */
  private async write(text: string): Promise<void> {
    try {
      await writeFileAtomic(this.filePath, text);
    } catch (e) {
      throw new UserError(`Could not save timers to ${this.filePath}: ${(e as Error).message}`, 'timers-write-failed');
    }
  }
}

/** Copies `file` to a fresh `<file>.corrupt-<time>`; never overwrites an earlier backup. */
async function backUp(file: string): Promise<string> {
  // No ':' in the name: Windows does not allow it.
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const backup = `${file}.corrupt-${stamp}${n ? `-${n}` : ''}`;
    try {
      await copyFile(file, backup, constants.COPYFILE_EXCL);
      return backup;
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST' || n >= 100) throw e;
    }
  }
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}
