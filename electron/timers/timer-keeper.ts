/**
 * The app's timers across restarts and model reloads: one book, loaded from timers.json at start,
 * saved after every change, and the window's list kept in step with it. The controller owns one;
 * each pipeline it builds works on this same book.
 */
import { messageOf } from '../errors';
import { TimerBook } from './timer-book';
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
  /** The last save queued, awaited on shutdown so the next start reads what this one wrote. */
  private saving: Promise<void> = Promise.resolve();
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

  /** Loaded once, before the first pipeline: that fires anything that fell due while the app was closed. */
  async load(): Promise<void> {
    const { book, notice } = await this.store.load();
    this.current = book;
    if (notice) this.hooks.notice(notice, true);
    // Finished entries are kept a day for nothing but this file; without pruning it would grow for good.
    if (book.prune(Date.now()).length > 0) this.save();
  }

  /** Stores the timers; a failure is shown (once per distinct message), never thrown. */
  save(): void {
    this.current.prune(Date.now());
    this.saving = this.store.save(this.current).then(
      () => {
        this.lastError = '';
      },
      (err: unknown) => {
        const message = messageOf(err, 'Could not save the timers');
        if (message !== this.lastError) this.hooks.notice(message, false);
        this.lastError = message;
      },
    );
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

  /** Resolves when the last save queued has finished. */
  flush(): Promise<void> {
    return this.saving;
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
