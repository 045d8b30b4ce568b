import type { TimerBook } from '../../timers/timer-book';
import { timerViews, type TimerView } from '../../timers/timer-view';
import type { Clock } from '../clock';
import type { EventHub } from '../events';

/** The timers and alarms a pipeline keeps, and where their times come from. */
export interface TimerOptions {
  book: TimerBook;
  /** Epoch ms at pipeline time 0: timers are stored in absolute time and run on the pipeline clock. */
  epochBase: number;
  /** The timers changed (the app stores them). */
  changed?: (book: TimerBook) => void;
}

/**
 * The timer book on the pipeline clock: what the window lists, cancelling and stopping, and telling
 * the app and the window whenever something changed, also when time alone changed it (a timer fired,
 * an alarm rang out).
 */
export class PipelineTimers {
  readonly book: TimerBook;
  /** What rang and what was next when last told. */
  private ringingKey = '';

  constructor(
    private readonly options: TimerOptions,
    private readonly clock: Clock,
    private readonly events: EventHub,
  ) {
    this.book = options.book;
  }

  /** Epoch ms at pipeline time `ms`. */
  epochAt(ms: number): number {
    return this.options.epochBase + ms;
  }

  /** Timers and alarms still pending or ringing, for the window. */
  views(): TimerView[] {
    return timerViews(this.book, this.epochAt(this.clock.now()));
  }

  /** Something changed: the app stores the book and the window shows the list. */
  changed(): void {
    this.options.changed?.(this.book);
    this.events.emit({ type: 'timers', t: this.clock.now(), timers: this.views() });
  }

  /** Cancels a pending timer or alarm by id. */
  cancel(id: string): void {
    if (this.book.cancel(this.epochAt(this.clock.now()), { id }).length > 0) this.changed();
  }

  /** Stops what rings. */
  stopRinging(): void {
    if (this.book.stop(this.epochAt(this.clock.now())).length > 0) this.changed();
  }

  /** Fired, rung out or stopped as time passed: tells of it once. */
  watch(now: number): void {
    const key = this.book.ringing(this.epochAt(now)).map((t) => t.id).join(',') + '|' + String(this.book.nextDueMs());
    if (key === this.ringingKey) return;
    this.ringingKey = key;
    this.changed();
  }
}
