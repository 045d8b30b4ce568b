/**
 * Timers and alarms set by voice: a live countdown for each timer, the clock time of each alarm, a
 * Cancel button each, and a ringing one highlighted with a Stop button. Times are absolute (epoch
 * ms), so the countdown runs from Date.now() and stays right across a reload of the window.
 */
import { useEffect, useState } from 'react';
import type { TimerView } from '../../electron/timers/timer-view';
import { api } from '../api/current';
import { formatAlarmTime, formatCountdown, formatLength, sortTimers, timerTitle } from '../model/timers';
import { useUi } from '../store';

/** Date.now(), refreshed every second while `active`; nothing ticks when no timer is shown. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}

function TimerRow({ t, now }: { t: TimerView; now: number }) {
  const title = timerTitle(t);
  return (
    <li className={`timer${t.ringing ? ' ringing' : ''}`} data-testid="timer" data-kind={t.kind} data-ringing={t.ringing}>
      <span className="timer-title">
        {title}
        {t.kind === 'timer' && t.durationMs !== null && <span className="timer-length"> · {formatLength(t.durationMs)}</span>}
      </span>
      {t.ringing ? (
        <>
          <span className="timer-when ringing-label">Ringing</span>
          <button type="button" className="danger" data-testid="timer-stop" aria-label={`Stop the ${title.toLowerCase()}`} onClick={() => api().send({ type: 'stop-ringing' })}>
            Stop
          </button>
        </>
      ) : (
        <>
          {t.kind === 'timer' ? (
            // role=timer: read on request, not announced every second.
            <span className="timer-when countdown" role="timer" aria-label={`${title}: time left`} data-testid="timer-remaining">
              {formatCountdown(t.dueAtMs - now)}
            </span>
          ) : (
            <time className="timer-when" dateTime={new Date(t.dueAtMs).toISOString()} data-testid="alarm-time">
              {formatAlarmTime(t.dueAtMs, now)}
            </time>
          )}
          <button type="button" className="secondary" data-testid="timer-cancel" aria-label={`Cancel the ${title.toLowerCase()}`} onClick={() => api().send({ type: 'cancel-timer', id: t.id })}>
            Cancel
          </button>
        </>
      )}
    </li>
  );
}

export function Timers() {
  const timers = useUi((s) => s.timers);
  const now = useNow(timers.length > 0);
  const ringing = timers.filter((t) => t.ringing);
  return (
    <section className="panel timers" aria-labelledby="timers-title" data-testid="timers">
      <h2 id="timers-title">Timers</h2>
      {timers.length === 0 ? (
        <p className="empty">None set. Say “set a timer for ten minutes” or “set an alarm for seven”.</p>
      ) : (
        <ul className="timer-list" aria-labelledby="timers-title">
          {sortTimers(timers).map((t) => (
            <TimerRow key={t.id} t={t} now={now} />
          ))}
        </ul>
      )}
      {/* Announced once when something starts ringing (the countdowns are not announced). */}
      <p className="visually-hidden" role="status">
        {ringing.map((t) => `${timerTitle(t)} is ringing.`).join(' ')}
      </p>
    </section>
  );
}
