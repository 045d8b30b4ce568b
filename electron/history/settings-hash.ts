/** A short fingerprint of the settings, so the history can say where they changed without storing them. */
import { createHash } from 'node:crypto';

/** Secrets never reach the hash: a hash of a short key could be guessed back. */
const SECRET_KEYS = new Set(['apiKey']);

/** JSON with keys sorted at every depth and secret keys left out: equal settings give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => !SECRET_KEYS.has(k) && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** First 12 hex of the sha256 of the canonical settings JSON. */
export function settingsHash(settings: unknown): string {
  return createHash('sha256').update(canonicalJson(settings)).digest('hex').slice(0, 12);
}
