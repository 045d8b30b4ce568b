/**
 * The memory on disk: `memory.json` beside the settings, one fact a line, written atomically and
 * readable only by the user (the facts are personal).
 *
 * A file the app cannot use (not JSON, invalid, far too large, or from a newer version of the app)
 * is left exactly as it is, named in one notice, and memory stays off until the user clears it:
 * clearing moves it aside (`memory.json.unreadable-<time>`, never deleted) and starts afresh. Saves
 * run one at a time in call order, so the last one called is the one on disk.
 */
import { rename, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../settings/file';
import { jsonSyntaxError } from '../settings/json-error';
import { removeStaleTemps } from '../settings/stale-temps';
import { MemoryBook, NewerVersionError } from './memory-book';

export const MEMORY_FILE = 'memory.json';
/** 200 facts of 500 characters with their dates take under 120 kB; a larger file is not the app's and is not read. */
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;

export interface LoadedMemory {
  /** Null when the file could not be used: memory is off until it is cleared. */
  book: MemoryBook | null;
  /** The one notice for the user, when the file could not be used. */
  problem: string | null;
}

export class MemoryStore {
  readonly filePath: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The file on disk is one the app could not use: never written over, only moved aside by clear(). */
  private unusable = false;

  constructor(dir: string) {
    this.filePath = join(dir, MEMORY_FILE);
  }

  /** Never rejects. */
  load(): Promise<LoadedMemory> {
    return this.serialize(() => this.loadNow());
  }

  /** Writes the book as it is now; rejects with the reason when it cannot (the caller tells the user). */
  save(book: MemoryBook): Promise<void> {
    const text = book.toFileText();
    return this.serialize(async () => {
      if (this.unusable) throw new Error(`${this.filePath} could not be read, so it is not written over; clear the memory to start afresh`);
      await writeFileAtomic(this.filePath, text, 0o600);
    });
  }

  /** Empties the memory on disk; a file that could not be used is kept aside, and its new name returned. */
  clear(): Promise<{ keptAs: string | null }> {
    return this.serialize(async () => {
      let keptAs: string | null = null;
      if (this.unusable) {
        keptAs = `${this.filePath}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        await rename(this.filePath, keptAs);
        this.unusable = false;
      }
      await writeFileAtomic(this.filePath, new MemoryBook().toFileText(), 0o600);
      return { keptAs };
    });
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async loadNow(): Promise<LoadedMemory> {
    await removeStaleTemps(this.filePath);
    const unusable = (why: string): LoadedMemory => {
      this.unusable = true;
      return { book: null, problem: `Your memory file ${this.filePath} ${why}. It was left as it is, and memory is off until you clear it (the Memory panel's Clear all, or say "forget everything").` };
    };
    let text: string;
    try {
      const size = (await stat(this.filePath)).size;
      if (size > MAX_MEMORY_FILE_BYTES) return unusable(`is ${Math.round(size / 1024)} kB, far more than the app writes (at most ${MAX_MEMORY_FILE_BYTES / 1024} kB), so it was not read`);
      text = await readFile(this.filePath, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return { book: new MemoryBook(), problem: null };
      return unusable(`could not be read (${(e as Error).message})`);
    }
    try {
      const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      return { book: MemoryBook.fromJSON(JSON.parse(body)), problem: null };
    } catch (e) {
      if (e instanceof NewerVersionError) return unusable(e.message);
      // Never JSON.parse's own message: it quotes the file, and the facts must not reach a notice or a log.
      if (e instanceof SyntaxError) {
        const at = jsonSyntaxError(text);
        return unusable(at ? `is not valid JSON (line ${at.line}, column ${at.column}: ${at.message})` : 'is not valid JSON');
      }
      return unusable(`is invalid: ${(e as Error).message}`);
    }
  }
}
