/**
 * The product's signature: for the last turn, a waterfall of where every millisecond between the end
 * of the user's speech and the first sound of the answer went; below it the last turns as stacked
 * bars, and the session's p50/p95 per stage.
 */
import { echoLine, formatMs, STAGE_LABELS, summarize, waterfall, type StageKey } from '../model/latency';
import type { TurnReport } from '../../electron/pipeline/report';
import { useUi } from '../store';
import { StatsTable } from './StatsTable';

/** The legend: every stage a waterfall may show (a turn has either the LLM stages or the command one). */
const KEYS: StageKey[] = ['endpoint', 'stt', 'llm', 'clause', 'command', 'tts'];

function niceScale(ms: number): number {
  for (const s of [250, 500, 1000, 1500, 2000, 3000, 5000, 10000, 20000, 60000]) if (ms <= s) return s;
  return Math.ceil(ms / 60000) * 60000;
}

function Waterfall({ report }: { report: TurnReport }) {
  const { stages, totalMs, complete } = waterfall(report);
  const end = stages.length ? stages[stages.length - 1]!.startMs + stages[stages.length - 1]!.durationMs : 0;
  const scale = niceScale(Math.max(end, totalMs ?? 0, 1));
  const pct = (ms: number) => `${(ms / scale) * 100}%`;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * scale);
  return (
    <figure className="waterfall" data-testid="waterfall" aria-label={`Latency of turn ${report.index + 1}`}>
      <figcaption>
        <span className="turn-text">“{report.userText || '…'}”</span>
        <span className="total">
          voice to voice <strong data-testid="v2v">{formatMs(totalMs)}</strong>
        </span>
      </figcaption>
      <div className="wf-rows">
        {stages.map((s) => (
          <div className="wf-row" key={s.key} data-testid={`stage-${s.key}`}>
            <span className="wf-label">{s.label}</span>
            <span className="wf-track">
              <span className={`wf-bar stage-${s.key}`} style={{ left: pct(s.startMs), width: `max(2px, ${pct(s.durationMs)})` }} />
            </span>
            <span className="wf-value" data-testid={`stage-${s.key}-ms`}>
              {formatMs(s.durationMs)}
            </span>
          </div>
        ))}
        {!complete && (
          <p className="hint">
            {report.error ? `Stopped: ${report.error}` : `No answer audio for this turn${report.command ? ` (command: ${report.command.name})` : ''}.`}
          </p>
        )}
        <div className="wf-axis" aria-hidden="true">
          <span className="wf-label" />
          <span className="wf-track">
            {ticks.map((t) => (
              <span key={t} className="tick" style={{ left: pct(t) }}>
                {formatMs(t)}
              </span>
            ))}
          </span>
          <span className="wf-value" />
        </div>
      </div>
    </figure>
  );
}

function RecentTurns({ reports }: { reports: TurnReport[] }) {
  const recent = reports.slice(-8);
  const max = niceScale(Math.max(1, ...recent.map((r) => r.latency.voiceToVoiceMs ?? 0)));
  return (
    <div className="recent" aria-label="Recent turns">
      {recent.map((r) => {
        const { stages } = waterfall(r);
        return (
          <div className="recent-row" key={r.index} title={stages.map((s) => `${s.label}: ${formatMs(s.durationMs)}`).join('\n')}>
            <span className="recent-index">#{r.index + 1}</span>
            <span className="recent-bar">
              {stages.map((s) => (
                <span key={s.key} className={`stage-${s.key}`} style={{ width: `${(s.durationMs / max) * 100}%` }} />
              ))}
            </span>
            <span className="recent-total">{formatMs(r.latency.voiceToVoiceMs)}</span>
          </div>
        );
      })}
    </div>
  );
}

export function Latency() {
  const reports = useUi((s) => s.reports);
  const last = reports[reports.length - 1];
  const summary = summarize(reports);
  const echo = echoLine(reports);
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
      </ul>
      {reports.length > 1 && <RecentTurns reports={reports} />}
      <StatsTable caption={`Session: ${reports.length} turn${reports.length === 1 ? '' : 's'}`} testId="session-stats" rows={summary} />
    </section>
  );
}
