/**
 * The app's timers across restarts and model reloads: one book, loaded from timers.json at start,
 * saved after every change, and the window's list kept in step with it. The controller owns one;
 * each pipeline it builds works on this same book.
 *
 * Saves are coalesced: one write at a time, of the book as it is when the write starts, and any
 * number of changes during it make one more. A burst of changes (a hundred timers ringing at once)
 * costs two writes, not one serialized copy of the book per change.
 */
import { messageOf } from '../errors';
import { MAX_ACTIVE, TimerBook, type Timer } from './timer-book';
import { TimerStore } from './timer-store';
import { timerViews, type TimerView } from './timer-view';

/** How often the timers list is compared with what the window was last told (see sync). */
const SYNC_MS = 1000;

export interface TimerKeeperHooks {
  /** The list from the running pipeline, or null while none runs (between loads). */
  running(): TimerView[] | null;
  /** The list differs from the one the window was last sent: send it. */
  changed(timers: TimerView[]): void;
  /** A problem for the user; `keep` shows it to a window that connects later too. */
  notice(message: string, keep: boolean): void;
}

export class TimerKeeper {
  private readonly store: TimerStore;
  private current = new TimerBook();
  /** The writes running now (null when none), awaited on shutdown so the next start reads what this one wrote. */
  private writing: Promise<void> | null = null;
  /** The book changed since the running write took its copy. */
  private dirty = false;
  private lastError = '';
  /** The timers list the window was last sent, as JSON (a window starts with none). */
  private sent = '[]';
  private readonly ticker: ReturnType<typeof setInterval>;

  constructor(dataDir: string, private readonly hooks: TimerKeeperHooks) {
    this.store = new TimerStore(dataDir);
    this.ticker = setInterval(() => this.sync(), SYNC_MS);
    this.ticker.unref?.();
  }

  /** The book the pipelines work on (load() replaces the empty one it starts with). */
  get book(): TimerBook {
    return this.current;
  }

  /**
   * Loaded once, before the first pipeline: that rings what fell due while the app was closed. When
   * several did, one of them rings and one notice names them all; a file holding more than
   * MAX_ACTIVE keeps the soonest and says how many went. Either way the file is rewritten once.
   */
  async load(): Promise<void> {
    const { book, notice } = await this.store.load();
    this.current = book;
    if (notice) this.hooks.notice(notice, true);
    const now = Date.now();
    const missed = book.collapseOverdue(now);
    // Those marked rung here (all but one that rings, or all when the book is full) are said in one notice.
    const silenced = missed.some((t) => t.firedAtMs !== null);
    const dropped = book.keepSoonest(now);
    // Finished entries are kept a day for nothing but this file; without pruning it would grow for good.
    const pruned = book.prune(now);
    if (silenced) this.hooks.notice(missedNotice(missed), true);
    if (dropped.length > 0) this.hooks.notice(droppedNotice(dropped), true);
    if (silenced || dropped.length > 0 || pruned.length > 0) this.save();
  }

  /** Stores the timers (soon, coalesced with other changes); a failure is shown (once per distinct message), never thrown. */
  save(): void {
    this.dirty = true;
    this.writing ??= this.writeWhileDirty();
  }

  private async writeWhileDirty(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      this.current.prune(Date.now());
      try {
        await this.store.save(this.current);
        this.lastError = '';
      } catch (err) {
        const message = messageOf(err, 'Could not save the timers');
        if (message !== this.lastError) this.hooks.notice(message, false);
        this.lastError = message;
      }
    }
    this.writing = null;
  }

  /** Timers and alarms pending or ringing, as the window lists them (from the book itself while no pipeline runs). */
  views(): TimerView[] {
    return this.hooks.running() ?? timerViews(this.current, Date.now());
  }

  /** The pipeline sent the window this list itself. */
  told(timers: readonly TimerView[]): void {
    this.sent = JSON.stringify(timers);
  }

  /** Cancels a timer while no pipeline runs, so the window's button never does nothing. */
  cancel(id: string): void {
    if (this.current.cancel(Date.now(), { id }).length > 0) this.changedOffline();
  }

  /** Stops what rings while no pipeline runs. */
  stopRinging(): void {
    if (this.current.stop(Date.now()).length > 0) this.changedOffline();
  }

  /** Stops comparing the list with the window's (shutdown). */
  close(): void {
    clearInterval(this.ticker);
  }

  /** Resolves when every change saved so far is on disk (or its write has failed): no write, and so no temp file, is left running. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** The book changed with no pipeline to say so: stored, and the window told in the pipeline's own terms. */
  private changedOffline(): void {
    this.save();
    this.sync();
  }

  /**
   * Sends the timers list when it differs from the last one sent. Some changes come with no pipeline
   * event: a ring that runs out by itself (an alarm after its minute) would otherwise stay "ringing"
   * in the window, its Stop button doing nothing.
   */
  private sync(): void {
    const timers = this.views();
    const json = JSON.stringify(timers);
    if (json === this.sent) return;
    this.sent = json;
    this.hooks.changed(timers);
  }
}

/** How many to name before "and N more": a notice stays one line whatever the file held. */
const NAMED = 2;

/** "3 timers finished while the app was closed: pasta, tea and 1 more." */
export function missedNotice(missed: readonly Timer[]): string {
  const kinds = new Set(missed.map((t) => t.kind));
  const what = kinds.size > 1 ? 'timers and alarms' : `${missed[0]!.kind}${missed.length === 1 ? '' : 's'}`;
  const label = (t: Timer) => t.name ?? (t.kind === 'alarm' ? 'an alarm' : 'a timer');
  const named = missed.slice(0, NAMED).map(label);
  const more = missed.length - named.length;
  const list = more > 0 ? `${named.join(', ')} and ${more.toLocaleString('en')} more` : named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]!}`;
  return `${missed.length.toLocaleString('en')} ${what} finished while the app was closed: ${list}.`;
}

/** Said when a file held more than the app keeps. */
export function droppedNotice(dropped: readonly Timer[]): string {
  return `Your timers file held more than ${MAX_ACTIVE} timers and alarms; the ${MAX_ACTIVE} due soonest were kept and ${dropped.length.toLocaleString('en')} others were dropped.`;
}
