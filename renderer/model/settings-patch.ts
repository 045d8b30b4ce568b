/** Builds a settings patch ({"endpointing": {"silenceMs": 400}}) from a dotted path, and reads one. */
import type { Settings } from '../../electron/settings/schema';

export function patchAt(path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  let patch: unknown = value;
  for (let i = keys.length - 1; i >= 0; i--) patch = { [keys[i]!]: patch };
  return patch as Record<string, unknown>;
}

export function valueAt(settings: Settings, path: string): unknown {
  let v: unknown = settings;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}
