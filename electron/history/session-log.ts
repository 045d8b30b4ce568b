/**
 * The conversation history of one session (an app start, a `talk --log` run): every turn appended
 * as one JSON line. Each line is written whole by one append, one at a time, so a crash loses at
 * most the line being written. Files rotate by size and the oldest go first past a total cap.
 * Failures are returned, never thrown into the pipeline; all file work is async.
 */
import { appendFile, mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../errors';
import type { TurnReport } from '../pipeline/report';
import { countLines, listLogFiles, logFileName, newSessionId, readLogFiles, sessionStart, type FileSkip } from './log-files';
import { formatLogLine, SESSION_ID, type HistorySession, type HistorySessionInfo, type LoggedTurn, type TurnContext } from './log-format';

export interface SessionLogOptions {
  /** A file past this size is continued in the session's next part (default 5 MB). */
  maxFileBytes?: number;
  /** Past this total, the oldest files are deleted (default 100 MB); checked at the first write and each new part. */
  maxTotalBytes?: number;
  now?: () => Date;
}

export type AppendResult = { ok: true; turns: number } | { ok: false; error: string };

const MB = 1024 * 1024;

export class SessionLog {
  private id: string;
  private part = 1;
  /** Bytes in the current part. */
  private bytes = 0;
  /** Turns written in this session. */
  private turns = 0;
  /** A write failed, maybe halfway: the next line starts a new part, so no line is glued to a torn one. */
  private torn = false;
  private checkedTotal = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly maxFileBytes: number;
  private readonly maxTotalBytes: number;
  private readonly now: () => Date;

  constructor(
    readonly dir: string,
    options: SessionLogOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? 5 * MB;
    this.maxTotalBytes = options.maxTotalBytes ?? 100 * MB;
    this.now = options.now ?? (() => new Date());
    this.id = newSessionId(this.now());
  }

  get session(): string {
    return this.id;
  }

  /** Appends the turn; resolves with the session's turn count, or the error (never rejects). */
  append(report: TurnReport, context: Omit<TurnContext, 'session' | 'at'>): Promise<AppendResult> {
    // Stamped now, not when the queue gets to it: `at` is when the turn ended.
    const at = this.now().toISOString();
    return this.serialize(async (): Promise<AppendResult> => {
      const line = `${formatLogLine(report, { ...context, session: this.id, at })}\n`;
      try {
        await this.write(line);
        return { ok: true, turns: this.turns };
      } catch (e) {
        this.torn = true;
        return { ok: false, error: `Could not write the conversation history in ${this.dir}: ${(e as Error).message}` };
      }
    });
  }

  private async write(line: string): Promise<void> {
    const size = Buffer.byteLength(line);
    let newPart = !this.checkedTotal;
    if (this.torn || (this.bytes > 0 && this.bytes + size > this.maxFileBytes)) {
      this.part++;
      this.bytes = 0;
      this.torn = false;
      newPart = true;
    }
    await mkdir(this.dir, { recursive: true });
    await appendFile(this.currentFile(), line, 'utf8');
    this.bytes += size;
    this.turns++;
    if (newPart) {
      this.checkedTotal = true;
      await this.trim();
    }
  }

  private currentFile(): string {
    return path.join(this.dir, logFileName(this.id, this.part));
  }

  /** Deletes the oldest files until the total fits under the cap; the file being written stays. */
  private async trim(): Promise<void> {
    const files = await listLogFiles(this.dir);
    let total = files.reduce((sum, f) => sum + f.bytes, 0);
    const current = this.currentFile();
    for (const f of files) {
      if (total <= this.maxTotalBytes) break;
      if (f.path === current) continue;
      await unlink(f.path).catch(() => undefined);
      total -= f.bytes;
    }
  }

  /** Deletes every history file in the folder; this session goes on afresh, under a new id. */
  clear(): Promise<void> {
    return this.serialize(async () => {
      for (const f of await listLogFiles(this.dir)) {
        try {
          await unlink(f.path);
        } catch (e) {
          if ((e as { code?: string }).code !== 'ENOENT') throw e;
        }
      }
      this.id = newSessionId(this.now());
      this.part = 1;
      this.bytes = 0;
      this.turns = 0;
      this.torn = false;
    });
  }

  /** Every session in the folder, newest first. */
  list(): Promise<HistorySessionInfo[]> {
    return this.serialize(async () => {
      const sessions = new Map<string, HistorySessionInfo>();
      for (const f of await listLogFiles(this.dir)) {
        const s = sessions.get(f.session) ?? { id: f.session, startedAt: sessionStart(f.session), turns: 0, bytes: 0, current: f.session === this.id };
        s.turns += await countLines(f.path);
        s.bytes += f.bytes;
        sessions.set(f.session, s);
      }
      return [...sessions.values()].reverse();
    });
  }

  /** One session's turns; an id that is not a session in the folder is refused (no path is built from it). */
  read(id: string): Promise<HistorySession> {
    return this.serialize(async () => {
      const files = SESSION_ID.test(id) ? (await listLogFiles(this.dir)).filter((f) => f.session === id) : [];
      if (files.length === 0) throw new UserError(`There is no conversation history session "${id.slice(0, 40)}".`, 'history-unknown-session');
      const { turns, skipped } = await readLogFiles(files);
      return { id, startedAt: sessionStart(id), turns, skipped: skipped.length };
    });
  }

  /** Every turn in the folder, oldest first, and the lines that could not be read. */
  readAll(): Promise<{ turns: LoggedTurn[]; skipped: FileSkip[] }> {
    return this.serialize(async () => readLogFiles(await listLogFiles(this.dir)));
  }

  /** Resolves once every write queued so far is done. */
  flush(): Promise<void> {
    return this.serialize(async () => undefined);
  }

  /** One file operation at a time: lines never interleave, and reads never see half a line of ours. */
  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
