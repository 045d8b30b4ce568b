import type { TimerBook } from './timer-book';

/** A timer or alarm as the window shows it (times in epoch ms). */
export interface TimerView {
  id: string;
  kind: 'timer' | 'alarm';
  name: string | null;
  durationMs: number | null;
  dueAtMs: number;
  ringing: boolean;
}

/** The timers and alarms ringing or pending at epoch time `atMs`, ringing ones first, as the window lists them. */
export function timerViews(book: TimerBook, atMs: number): TimerView[] {
  const ringing = book.ringing(atMs).map((t) => ({ t, ringing: true }));
  const pending = book.active(atMs).map((t) => ({ t, ringing: false }));
  return [...ringing, ...pending].map(({ t, ringing: r }) => ({ id: t.id, kind: t.kind, name: t.name, durationMs: t.durationMs, dueAtMs: t.dueAtMs, ringing: r }));
}
