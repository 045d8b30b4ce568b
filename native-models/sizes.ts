/**
 * A model's download size, said one way everywhere: `models list` and `fetch`, `recommend`, and the
 * first-run screen all take it from here, so no view can show another figure for the same download.
 * Memory needs (an LLM's weights plus its context) are a different quantity and are always said as
 * memory, never as "the model's size".
 */
import { formatBytes } from './progress-bar';
import type { ModelEntry } from './types';

const MiB = 1024 * 1024;

/** What downloading the model takes (its archive, or all its files); null when the catalog does not know. */
export function downloadBytes(entry: ModelEntry): number | null {
  if (entry.archive) return entry.archive.bytes ?? null;
  let sum = 0;
  for (const f of entry.files) {
    if (f.bytes === undefined) return null;
    sum += f.bytes;
  }
  return sum;
}

/** "1.0 GB", or "size unknown" when the catalog lacks a byte count. */
export function downloadSizeText(entry: ModelEntry): string {
  return bytesOrUnknown(downloadBytes(entry));
}

export function bytesOrUnknown(bytes: number | null): string {
  return bytes === null ? 'size unknown' : formatBytes(bytes);
}

/** A memory figure in MiB, in the same units and rounding as a download size. */
export function memoryText(mib: number): string {
  return formatBytes(Math.round(mib * MiB));
}
