/** A short fingerprint of the settings, so the history can say where they changed without storing them. */
import { createHash } from 'node:crypto';
import { withoutSecrets, type Settings } from '../settings/schema';

/** JSON with keys sorted at every depth: equal settings give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** First 12 hex of the sha256 of the canonical settings JSON; secrets never reach it (a hash of a short key could be guessed back). */
export function settingsHash(settings: Settings): string {
  return createHash('sha256').update(canonicalJson(withoutSecrets(settings))).digest('hex').slice(0, 12);
}
