import type { Timer, TimerBook } from '../../timers/timer-book';

/** A ringing alarm sounds again this often until it is stopped or its minute is up. */
export const ALARM_REPEAT_MS = 10_000;

/**
 * When timers and alarms are heard. Pure (times are epoch ms, passed in): each tick fires what fell
 * due, and hands back what should sound now. Nothing sounds over the assistant or the user: a ring
 * waits for the next gap (`gap` false keeps it queued), however long that takes, so no timer is lost.
 * An alarm sounds again every ALARM_REPEAT_MS while the book says it rings.
 */
export class Ringer {
  private queue: Timer[] = [];
  private lastSounded = new Map<string, number>();

  constructor(private readonly book: TimerBook) {}

  /** Fires what is due at `nowMs`; returns what should sound now (only when `gap`). */
  tick(nowMs: number, gap: boolean): Timer[] {
    this.queue.push(...this.book.due(nowMs));
    const ringing = this.book.ringing(nowMs);
    for (const t of ringing) {
      const last = this.lastSounded.get(t.id);
      if (t.kind === 'alarm' && last !== undefined && nowMs - last >= ALARM_REPEAT_MS && !this.queue.some((q) => q.id === t.id)) this.queue.push(t);
    }
    // A stopped entry never sounds; an alarm whose minute is up neither. A timer waits for its gap as long as it takes.
    const live = new Set(ringing.map((t) => t.id));
    const stopped = new Set(this.book.all().filter((t) => t.stoppedAtMs !== null || t.cancelledAtMs !== null).map((t) => t.id));
    this.queue = this.queue.filter((t) => !stopped.has(t.id) && (t.kind === 'timer' || live.has(t.id)));
    if (!gap || this.queue.length === 0) return [];
    const now = this.queue;
    this.queue = [];
    for (const t of now) this.lastSounded.set(t.id, nowMs);
    return now;
  }

  /** Something is waiting to sound. */
  get waiting(): boolean {
    return this.queue.length > 0;
  }

  /** The next epoch time something falls due or an alarm sounds again; null when nothing will. */
  nextWakeMs(nowMs: number): number | null {
    const times: number[] = [];
    const due = this.book.nextDueMs();
    if (due !== null) times.push(due);
    if (this.queue.length > 0) times.push(nowMs);
    for (const t of this.book.ringing(nowMs)) {
      const last = this.lastSounded.get(t.id);
      if (t.kind === 'alarm' && last !== undefined) times.push(last + ALARM_REPEAT_MS);
    }
    return times.length > 0 ? Math.min(...times) : null;
  }
}
