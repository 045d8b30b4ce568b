/**
 * The History tab: what the turn log holds. The summary over every logged turn (p50/p95 per stage,
 * rates, and how each change of settings or models moved the voice-to-voice median), the sessions
 * newest first, and the selected session's turns with their words, badges and a latency bar each.
 * A session can be exported as JSON; the whole history can be cleared (asked inline first). It
 * reloads after each logged turn.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { HistorySession, HistorySessionInfo, LoggedTurn, LogSummary } from '../../electron/history/log-format';
import { api } from '../api/current';
import {
  barScale,
  changeLines,
  exportFileName,
  exportJson,
  formatSessionStart,
  formatTimeRange,
  formatTurnTime,
  plural,
  rateRows,
  sortSessions,
  summaryRows,
  turnBadges,
  turnBar,
  turnTexts,
  type BarAxis,
} from '../model/history';
import { formatMs } from '../model/latency';
import { useUi } from '../store';
import { Toggle } from './Slider';
import { StatsTable } from './StatsTable';

/** A failed request's words: the answer's error, or what the transport threw. */
function failure(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function Summary({ summary }: { summary: LogSummary }) {
  const rows = summaryRows(summary);
  const rates = rateRows(summary);
  const changes = changeLines(summary);
  return (
    <div className="history-summary" data-testid="history-summary">
      <p className="history-totals">
        <strong data-testid="history-total-turns">{plural(summary.turns, 'turn')}</strong> in {plural(summary.sessions, 'session')}
        {summary.from && summary.to && (
          <span className="hint-inline">
            {' '}
            · {formatTimeRange(summary.from, summary.to, Date.now())}
          </span>
        )}
      </p>
      <StatsTable caption="All logged turns" className="stats history-stats" testId="history-stats" rows={rows.map((r) => ({ ...r, title: plural(r.n, 'turn') }))} />
      {rows.some((r) => r.key !== 'bargeInMs' && r.n < summary.turns) && (
        <p className="hint">
          Each stage counts the turns it ran in, with the value each turn's waterfall shows (as <code>npm run bench</code> and <code>npm run log -- summary</code> do): the LLM only turns it answered, barge-in only interrupted answers.
        </p>
      )}
      {rates.length > 0 && (
        <dl className="history-rates" data-testid="history-rates">
          {rates.map((r) => (
            <div key={r.key}>
              <dt>{r.label}</dt>
              <dd>{r.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {changes.length > 0 && (
        <div className="history-changes">
          <h3>Changes (voice to voice, median before → after)</h3>
          <ul data-testid="history-changes">
            {changes.map((c, i) => (
              <li key={`${c.at}-${i}`}>
                <time dateTime={c.at}>{formatSessionStart(c.at, Date.now())}</time> {c.what}: <strong>{c.effect}</strong> <span className="hint-inline">({c.turns})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function TurnRow({ turn, scale }: { turn: LoggedTurn; scale: BarAxis }) {
  const texts = turnTexts(turn);
  const badges = turnBadges(turn);
  const bar = turnBar(turn, scale);
  return (
    <li className="history-turn" data-testid="history-turn">
      <div className="history-turn-head">
        <time dateTime={turn.at}>{formatTurnTime(turn.at)}</time>
        {badges.map((b) => (
          <span key={b.kind} className={`badge badge-${b.kind}`} title={b.title} data-testid={`history-badge-${b.kind}`}>
            {b.label}
          </span>
        ))}
      </div>
      <p className={`history-user${texts.logged ? '' : ' not-logged'}`} data-testid="history-user-text">
        <span className="visually-hidden">You: </span>
        {texts.user || '…'}
      </p>
      <p className={`history-answer${texts.logged ? '' : ' not-logged'}`} data-testid="history-answer-text">
        <span className="visually-hidden">Assistant: </span>
        {texts.answer || '—'}
      </p>
      <div className="history-bar-row">
        <span className="history-bar" role="img" aria-label={bar.description} title={bar.description} data-testid="history-bar">
          {bar.segments.map((s) => (
            <span key={s.key} className={`stage-${s.key}`} data-prepared={s.prepared || undefined} style={{ left: `${s.leftPct}%`, width: `${s.widthPct}%` }} data-testid="history-bar-segment" />
          ))}
          <span className="wf-zero" style={{ left: `${bar.zeroPct}%` }} />
        </span>
        <span className="history-bar-total" data-testid="history-v2v">
          {formatMs(bar.totalMs)}
        </span>
      </div>
    </li>
  );
}

function SessionView({ session, info, onExport }: { session: HistorySession; info: HistorySessionInfo | undefined; onExport: () => void }) {
  const scale = barScale(session.turns);
  const headingId = useId();
  return (
    <section className="history-session" aria-labelledby={headingId} data-testid="history-session-view">
      <div className="history-session-head">
        <h3 id={headingId}>
          {info?.current ? 'This session' : 'Session'} · {formatSessionStart(session.startedAt, Date.now())} · {plural(session.turns.length, 'turn')}
        </h3>
        <button type="button" className="secondary" data-testid="history-export" onClick={onExport} disabled={session.turns.length === 0}>
          Export JSON
        </button>
      </div>
      {session.skipped > 0 && <p className="hint">{plural(session.skipped, 'line')} of the log could not be read and {session.skipped === 1 ? 'is' : 'are'} left out.</p>}
      {session.turns.length === 0 ? (
        <p className="empty">No turns in this session.</p>
      ) : (
        <ol className="history-turns" aria-label="Turns">
          {session.turns.map((t, i) => (
            <TurnRow key={`${t.at}-${i}`} turn={t} scale={scale} />
          ))}
        </ol>
      )}
    </section>
  );
}

/** Downloads `text` as a file (a Blob behind an <a download>), then lets the URL go. */
function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function History() {
  const connected = useUi((s) => s.connection === 'connected');
  const [sessions, setSessions] = useState<HistorySessionInfo[] | null>(null);
  const [summary, setSummary] = useState<LogSummary | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [session, setSession] = useState<HistorySession | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [clearing, setClearing] = useState(false);
  const questionId = useId();
  // Answers can come back out of order: only the latest load of each kind is applied.
  const listSeq = useRef(0);
  const sessionSeq = useRef(0);
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;
  /** The id of the session whose turns are shown (or being loaded). */
  const shownRef = useRef<string | null>(null);

  const loadSession = useCallback(async (id: string) => {
    const seq = ++sessionSeq.current;
    shownRef.current = id;
    try {
      const r = await api().request({ type: 'history-session', id });
      if (seq !== sessionSeq.current) return;
      if (r.ok) setSession(r.session);
      else setError(r.error);
    } catch (e) {
      if (seq === sessionSeq.current) setError(failure(e));
    }
  }, []);

  /** Reloads the list and the summary; the selected session's turns too when `changed` is it, or it is not shown yet. */
  const refresh = useCallback(async (changed?: string) => {
    const seq = ++listSeq.current;
    try {
      const [list, sum] = await Promise.all([api().request({ type: 'history-sessions' }), api().request({ type: 'history-summary' })]);
      if (seq !== listSeq.current) return;
      if (!list.ok) return setError(list.error);
      if (!sum.ok) return setError(sum.error);
      setError(null);
      // A session without a logged turn (this one, before anything was said) has nothing to show.
      const sorted = sortSessions(list.sessions.filter((s) => s.turns > 0));
      setSessions(sorted);
      setSummary(sum.summary);
      // The selection stays while its session exists; else the newest (this session, usually).
      const keep = selectedRef.current && sorted.some((s) => s.id === selectedRef.current) ? selectedRef.current : (sorted[0]?.id ?? null);
      setSelected(keep);
      if (keep && (keep === changed || keep !== shownRef.current)) await loadSession(keep);
      else if (!keep) {
        ++sessionSeq.current;
        shownRef.current = null;
        setSession(null);
      }
    } catch (e) {
      if (seq === listSeq.current) setError(failure(e));
    }
  }, [loadSession]);

  useEffect(() => {
    if (!connected) return;
    void refresh();
    // Each logged turn reloads what it changed (turns logged in quick succession, once).
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = api().onEvent((e) => {
      if (e.type !== 'history') return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        void refresh(e.session);
      }, 200);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [connected, refresh]);

  const select = (id: string) => {
    setSelected(id);
    if (session?.id !== id) setSession(null);
    void loadSession(id);
  };

  const clear = async () => {
    setClearing(true);
    try {
      const r = await api().request({ type: 'clear-history' });
      setConfirming(false);
      if (!r.ok) return setError(r.error);
      setSelected(null);
      selectedRef.current = null;
      shownRef.current = null;
      await refresh();
    } catch (e) {
      setError(failure(e));
    } finally {
      setClearing(false);
    }
  };

  const info = sessions?.find((s) => s.id === selected);
  return (
    <section className="history" aria-labelledby="history-title" data-testid="history">
      <h2 id="history-title" className="visually-hidden">
        History
      </h2>
      {error && (
        <p className="notice notice-error history-error" role="alert" data-testid="history-error">
          {error}
        </p>
      )}
      {sessions === null ? (
        !error && <p className="empty">Loading…</p>
      ) : sessions.length === 0 ? (
        <p className="empty" data-testid="history-empty">
          No conversations yet. Each turn you take is logged here, with its timings.
        </p>
      ) : (
        <>
          {summary && <Summary summary={summary} />}
          <div className="history-browse">
            <nav className="history-sessions" aria-label="Sessions">
              <ul data-testid="history-sessions">
                {sessions.map((s) => (
                  <li key={s.id}>
                    <button
                      type="button"
                      className="history-session-button"
                      aria-pressed={s.id === selected}
                      data-testid="history-session"
                      data-session-id={s.id}
                      data-current={s.current}
                      onClick={() => select(s.id)}
                    >
                      <span className="history-session-when">{formatSessionStart(s.startedAt, Date.now())}</span>
                      {s.current && <span className="badge badge-current">this session</span>}
                      <span className="history-session-turns" data-testid="history-session-turns">
                        {plural(s.turns, 'turn')}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </nav>
            {session && session.id === selected ? (
              <SessionView session={session} info={info} onExport={() => download(exportJson(session), exportFileName(session.id))} />
            ) : (
              <p className="empty">{selected ? 'Loading…' : 'Select a session to see its turns.'}</p>
            )}
          </div>
        </>
      )}
      <div className="history-options">
        <Toggle path="history.logText" label="Keep the words in the history" hint="Off: the next turns are logged with their timings only." />
      </div>
      {sessions !== null && sessions.length > 0 && (
        <div className="reset history-clear">
          {confirming ? (
            <>
              <span id={questionId}>Delete every logged conversation? This cannot be undone.</span>
              <button type="button" className="danger" data-testid="history-clear-confirm" aria-describedby={questionId} disabled={clearing} onClick={() => void clear()}>
                Clear
              </button>
              {/* Focus lands on the safe choice. */}
              <button type="button" className="secondary" disabled={clearing} autoFocus onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" className="secondary" data-testid="history-clear" onClick={() => setConfirming(true)}>
              Clear history…
            </button>
          )}
        </div>
      )}
    </section>
  );
}
