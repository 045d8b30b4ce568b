/**
 * First run: what the assistant needs to download (names, sizes, licences, total), which language
 * model suits this machine and why, and a progress bar per file while it downloads.
 */
import { api } from '../api/current';
import type { FileProgress, ModelCheckStatus } from '../../electron/ipc-contract';
import { formatBytes, formatSeconds } from '../../native-models/progress-bar';
import { bytesOrUnknown } from '../../native-models/sizes';
import { plannedKindLabel } from '../model/labels';
import { useUi } from '../store';


/** One model's line under its progress bar. */
function downloadState(files: FileProgress[], received: number, busy: boolean, check: ModelCheckStatus | undefined): string {
  if (check?.state === 'checking') return 'verified · trying it once…';
  if (check?.state === 'ok') return `works · ${check.detail ?? ''}`;
  if (check?.state === 'failed') return 'does not work';
  if (check?.state === 'skipped') return 'skipped · the assistant works without it';
  const active = files.find((f) => f.phase !== 'done');
  if (files.length > 0 && !active) return 'verified';
  if (!active) return busy ? 'queued' : '';
  if (active.phase === 'verifying' || active.phase === 'extracting') return `${active.phase}…`;
  const left = active.etaSeconds !== null && active.etaSeconds > 0 ? ` ${formatSeconds(active.etaSeconds)} left` : '';
  return `${formatBytes(received)} · ${formatBytes(Math.round(active.bytesPerSecond))}/s${left}`;
}

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
                <span data-testid="download-state">{downloadState(files, received, busy, check)}</span>
              </div>
              {(check?.state === 'failed' || check?.state === 'skipped') && (
                <div className="notice notice-error" data-testid="check-error">
                  {check.detail}
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
