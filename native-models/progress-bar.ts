/** Download progress as one terminal line: name, bar, percent, bytes, speed, time left. */
import type { FileProgress } from './download-types';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export function progressLine(p: FileProgress, barWidth = 24): string {
  const name = `${p.modelId}/${p.file}`;
  if (p.phase === 'waiting') return `${name}  waiting for another download of the same file…`;
  if (p.phase === 'verifying') return `${name}  verifying…`;
  if (p.phase === 'extracting') return `${name}  extracting…`;
  if (p.phase === 'connecting') return `${name}  ${p.message ?? 'connecting'}…`;
  if (p.phase === 'retrying' || p.phase === 'failed') return `${name}  ${p.message ?? p.phase}`;
  const total = p.totalBytes;
  const frac = total ? Math.min(1, p.receivedBytes / total) : 0;
  const filled = Math.round(frac * barWidth);
  const bar = total ? `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}%` : '[?]';
  const bytes = total ? `${formatBytes(p.receivedBytes)} / ${formatBytes(total)}` : formatBytes(p.receivedBytes);
  if (p.phase === 'done') return `${name}  ${bar}  ${bytes}  done`;
  const speed = p.bytesPerSecond > 0 ? `  ${formatBytes(Math.round(p.bytesPerSecond))}/s` : '';
  const eta = p.etaSeconds !== null && p.etaSeconds > 0 ? `  ${formatSeconds(p.etaSeconds)} left` : '';
  return `${name}  ${bar}  ${bytes}${speed}${eta}`;
}
