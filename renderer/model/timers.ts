/**
 * What the Timers panel says about each timer or alarm. Pure: the time is passed in, so the panel
 * can tick once a second and the tests can pick any moment.
 */
import type { TimerView } from '../../electron/timers/timer-view';

/** "pasta timer", "Timer", "wake-up alarm", "Alarm". */
export function timerTitle(t: Pick<TimerView, 'kind' | 'name'>): string {
  if (t.name) return `${t.name} ${t.kind}`;
  return t.kind === 'timer' ? 'Timer' : 'Alarm';
}

/**
 * Time left, rounded up to the second so it reads 0:01 until it rings and never shows 0:00 early:
 * "4:59", "1:02:03". Past due (waiting for a gap to ring, or a late clock tick): "0:00".
 */
export function formatCountdown(remainingMs: number): string {
  const total = Math.max(0, Math.ceil(remainingMs / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A timer's length as asked: "5 s", "10 min", "1 h 30 min", "2 min 30 s". */
export function formatLength(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [h && `${h} h`, m && `${m} min`, s && `${s} s`].filter(Boolean);
  return parts.length ? parts.join(' ') : '0 s';
}

/** An alarm's time on the local clock ("7:30 AM"), with the day when it is not today. */
export function formatAlarmTime(dueAtMs: number, nowMs: number): string {
  const due = new Date(dueAtMs);
  const time = due.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  const now = new Date(nowMs);
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (due.toDateString() === now.toDateString()) return time;
  if (due.toDateString() === tomorrow.toDateString()) return `${time} tomorrow`;
  return `${time} ${due.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric' })}`;
}

/** Ringing ones first (they need an answer), then by due time. */
export function sortTimers(timers: readonly TimerView[]): TimerView[] {
  return [...timers].sort((a, b) => Number(b.ringing) - Number(a.ringing) || a.dueAtMs - b.dueAtMs);
}
