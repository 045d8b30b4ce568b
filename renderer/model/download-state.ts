/**
 * The line under one model on the first-run screen: what its download is doing now, in words. A row
 * that is trying to connect or waiting to retry says so (and why), and a download that failed for
 * good says which and why in one sentence, so no row sits on "queued" while nothing can be reached.
 */
import type { FileProgress, ModelCheckStatus } from '../../electron/ipc-contract';
import { formatBytes, formatSeconds } from '../../native-models/progress-bar';

export interface DownloadRow {
  /** The short state beside the licence. */
  state: string;
  /** A failure to show under the row (a failed download, or a check that failed or was skipped). */
  failure: string | null;
}

export function downloadRow(files: readonly FileProgress[], busy: boolean, check: ModelCheckStatus | undefined): DownloadRow {
  if (check?.state === 'checking') return { state: 'verified · trying it once…', failure: null };
  if (check?.state === 'ok') return { state: `works · ${check.detail ?? ''}`, failure: null };
  if (check?.state === 'failed') return { state: 'does not work', failure: check.detail };
  if (check?.state === 'skipped') return { state: 'skipped · the assistant works without it', failure: check.detail };
  const failed = files.find((f) => f.phase === 'failed');
  if (failed) return { state: 'download failed', failure: failed.message ?? 'Download failed.' };
  const active = files.find((f) => f.phase !== 'done');
  if (files.length > 0 && !active) return { state: 'verified', failure: null };
  const received = files.reduce((a, f) => a + f.receivedBytes, 0);
  if (!active) return { state: busy ? 'queued' : '', failure: null };
  // Cancelled mid-attempt: what is kept, not a retry that will not happen.
  if (!busy) return { state: received > 0 ? `${formatBytes(received)} kept` : '', failure: null };
  if (active.phase === 'connecting' || active.phase === 'retrying') return { state: `${active.message ?? active.phase}…`, failure: null };
  if (active.phase === 'waiting') return { state: 'waiting for another download of the same file…', failure: null };
  if (active.phase === 'verifying' || active.phase === 'extracting') return { state: `${active.phase}…`, failure: null };
  const left = active.etaSeconds !== null && active.etaSeconds > 0 ? ` ${formatSeconds(active.etaSeconds)} left` : '';
  return { state: `${formatBytes(received)} · ${formatBytes(Math.round(active.bytesPerSecond))}/s${left}`, failure: null };
}
