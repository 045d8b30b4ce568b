/**
 * First run: what the assistant needs to download (names, sizes, licences, total), which language
 * model suits this machine and why, and a progress bar per file while it downloads.
 */
import { api } from '../api/current';
import { bytesOrUnknown } from '../../native-models/sizes';
import { downloadRow } from '../model/download-state';
import { plannedKindLabel } from '../model/labels';
import { useUi } from '../store';


export function FirstRun() {
  const setup = useUi((s) => s.status?.setup);
  const downloads = useUi((s) => s.downloads);
  if (!setup) return null;
  const busy = setup.state === 'downloading';
  return (
    <section className="panel first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title">Welcome: let's get the models</h2>
      <p>
        Everything runs on this computer, so the assistant needs its models first. They are downloaded once into <code>{setup.folder}</code>, checked, and never
        leave this machine.
      </p>
      {setup.recommendation && (
        <p className="recommendation" data-testid="recommendation">
          <strong>Language model: {setup.recommendation.name}.</strong> {setup.recommendation.reason}
        </p>
      )}
      <ul className="download-list">
        {setup.models.map((m) => {
          const files = Object.values(downloads).filter((d) => d.modelId === m.id);
          const received = files.reduce((a, f) => a + f.receivedBytes, 0);
          const done = files.length > 0 && files.every((f) => f.phase === 'done');
          const total = m.bytes ?? files.reduce((a, f) => a + (f.totalBytes ?? 0), 0);
          const check = setup.checks[m.id];
          const row = downloadRow(files, busy, check);
          return (
            <li key={m.id} data-testid="download-item" data-check={check?.state ?? 'none'}>
              <div className="download-head">
                <span className="model-kind">{plannedKindLabel(m.kind, m.optional)}</span>
                <span className="model-name">{m.name}</span>
                <span className="size">{bytesOrUnknown(m.bytes)}</span>
              </div>
              <progress max={total || 1} value={done ? total || 1 : Math.min(received, total || 1)} aria-label={`Download of ${m.name}`} />
              <div className="download-meta">
                <span>{m.licence}</span>
                <span data-testid="download-state">{row.state}</span>
              </div>
              {row.failure && (
                <div className="notice notice-error" data-testid={check ? 'check-error' : 'download-failed'}>
                  {row.failure}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {setup.error && (
        <div className="notice notice-error" role="alert" data-testid="download-error">
          {setup.error}
        </div>
      )}
      <div className="control-row">
        {busy ? (
          <button type="button" className="secondary" onClick={() => api().send({ type: 'cancel-download' })}>
            Cancel
          </button>
        ) : (
          <button type="button" className="primary" data-testid="download-models" onClick={() => api().send({ type: 'download-models' })}>
            {setup.state === 'waiting' ? 'Download' : 'Resume download'} {setup.totalBytes !== null ? `(${bytesOrUnknown(setup.totalBytes)})` : ''}
          </button>
        )}
        {setup.state === 'cancelled' && <span className="hint">Cancelled. What was downloaded is kept; resuming continues from there.</span>}
      </div>
    </section>
  );
}
