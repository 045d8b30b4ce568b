/**
 * The product's signature: for the last turn, a timeline of where every millisecond between the end
 * of the user's speech and the first sound of the answer went (work done for an answer prepared
 * during the pause sits where it ran, left of the end of speech when it began before it); below it
 * the last turns on one axis, and the session's p50/p95 per stage.
 */
import { echoLine, formatMs, niceTicks, sessionReports, STAGE_LABELS, summarize, waterfall, type StageKey } from '../model/latency';
import type { TurnReport } from '../../electron/pipeline/report';
import { useUi } from '../store';
import { StatsTable } from './StatsTable';

/** The legend: every stage a waterfall may show (a turn has either the LLM stages or the command one). */
const KEYS: StageKey[] = ['endpoint', 'stt', 'llm', 'clause', 'command', 'tts'];

/** The turn clock's span a set of waterfalls needs: from the earliest work (or 0) to the first audio. */
function spanOf(reports: readonly TurnReport[]): { fromMs: number; toMs: number } {
  let fromMs = 0;
  let toMs = 1;
  for (const r of reports) {
    const w = waterfall(r);
    for (const s of w.stages) {
      fromMs = Math.min(fromMs, s.startMs);
      toMs = Math.max(toMs, s.startMs + s.durationMs);
    }
    toMs = Math.max(toMs, w.firstAudioAtMs ?? 0);
  }
  return { fromMs, toMs };
}

function Waterfall({ report }: { report: TurnReport }) {
  const w = waterfall(report);
  const span = spanOf([report]);
  const axis = niceTicks(span.fromMs, span.toMs);
  const pct = (ms: number) => `${((ms - axis.fromMs) / (axis.toMs - axis.fromMs)) * 100}%`;
  const grid = (
    <>
      {axis.ticks.map((t) => (
        <span key={t} className={t === 0 ? 'wf-zero' : 'wf-grid'} style={{ left: pct(t) }} />
      ))}
    </>
  );
  return (
    <figure className="waterfall" data-testid="waterfall" aria-label={`Latency of turn ${report.index + 1}`}>
      <figcaption>
        <span className="turn-text">“{report.userText || '…'}”</span>
        <span className="total">
          voice to voice <strong data-testid="v2v">{formatMs(w.totalMs)}</strong>
        </span>
      </figcaption>
      <div className="wf-rows">
        {w.stages.map((s) => (
          <div className="wf-row" key={`${s.key}-${s.startMs}`} data-testid={`stage-${s.key}`}>
            <span className="wf-label">{s.label}</span>
            <span className="wf-track">
              {grid}
              <span className={`wf-bar stage-${s.key}${s.prepared ? ' prepared' : ''}`} style={{ left: pct(s.startMs), width: `max(2px, ${pct(axis.fromMs + s.durationMs)})` }} />
            </span>
            <span className="wf-value" data-testid={`stage-${s.key}-ms`}>
              {formatMs(s.durationMs)}
            </span>
          </div>
        ))}
        {w.firstAudioAtMs !== null && (
          <div className="wf-row" data-testid="stage-playback">
            <span className="wf-label">First audio played</span>
            <span className="wf-track">
              {grid}
              <span className="wf-bar stage-playback" style={{ left: pct(Math.max(axis.fromMs, w.firstAudioAtMs)), right: 0 }} title={`then played ${formatMs(w.playbackMs)}`} />
            </span>
            <span className="wf-value" data-testid="stage-playback-ms">
              {formatMs(w.totalMs)}
            </span>
          </div>
        )}
        {!w.complete && (
          <p className="hint">
            {report.error ? `Stopped: ${report.error}` : `No answer audio for this turn${report.command ? ` (command: ${report.command.name})` : ''}.`}
          </p>
        )}
        <div className="wf-axis" aria-hidden="true">
          <span className="wf-label">ms from end of speech</span>
          <span className="wf-track">
            {axis.ticks.map((t) => (
              <span key={t} className="tick" style={{ left: pct(t) }}>
                {t === 0 ? '0' : `${t < 0 ? '−' : ''}${formatMs(Math.abs(t))}`}
              </span>
            ))}
          </span>
          <span className="wf-value" />
        </div>
      </div>
      {w.prepared && (
        <p className="hint" data-testid="wf-prepared">
          {w.prepared}
        </p>
      )}
    </figure>
  );
}

function RecentTurns({ reports }: { reports: TurnReport[] }) {
  const recent = reports.slice(-8);
  const span = spanOf(recent);
  const axis = niceTicks(span.fromMs, span.toMs);
  const pct = (ms: number) => `${((ms - axis.fromMs) / (axis.toMs - axis.fromMs)) * 100}%`;
  return (
    <div className="recent" aria-label="Recent turns">
      {recent.map((r) => {
        const w = waterfall(r);
        return (
          <div className="recent-row" key={r.index} title={w.stages.map((s) => `${s.label}: ${formatMs(s.durationMs)}`).join('\n')}>
            <span className="recent-index">#{r.index + 1}</span>
            <span className="recent-bar">
              {w.stages.map((s) => (
                <span key={`${s.key}-${s.startMs}`} className={`stage-${s.key}${s.prepared ? ' prepared' : ''}`} style={{ left: pct(s.startMs), width: pct(axis.fromMs + s.durationMs) }} />
              ))}
              <span className="wf-zero" style={{ left: pct(0) }} />
            </span>
            <span className="recent-total">{formatMs(w.totalMs)}</span>
          </div>
        );
      })}
    </div>
  );
}

export function Latency() {
  const finished = useUi((s) => s.reports);
  const started = useUi((s) => s.started);
  // Percentiles count the answer as soon as it starts playing, not when it ends.
  const reports = sessionReports(finished, started);
  const last = reports[reports.length - 1];
  const summary = summarize(reports);
  const echo = echoLine(finished);
  return (
    <section className="panel latency" aria-labelledby="latency-title">
      <h2 id="latency-title">Where the time went</h2>
      {last ? <Waterfall report={last} /> : <p className="empty">Each turn's latency appears here: endpoint wait, speech to text, LLM (or a local command), TTS.</p>}
      {echo && (
        <p className="hint" data-testid="echo-erle">
          {echo}
        </p>
      )}
      <ul className="legend" aria-hidden="true">
        {KEYS.map((k) => (
          <li key={k}>
            <span className={`swatch stage-${k}`} />
            {STAGE_LABELS[k]}
          </li>
        ))}
        <li>
          <span className="swatch stage-llm prepared" />
          prepared during the pause
        </li>
      </ul>
      {reports.length > 1 && <RecentTurns reports={reports} />}
      <StatsTable caption={`Session: ${reports.length} turn${reports.length === 1 ? '' : 's'}`} testId="session-stats" rows={summary} />
    </section>
  );
}
