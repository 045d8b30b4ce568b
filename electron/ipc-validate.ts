/**
 * The small checks every validator at the IPC boundary shares (ipc-contract.ts, ipc-memory.ts):
 * anything from the renderer is untrusted input. Pure, so the sandboxed preload may import it.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Null when `v` has no key but `keys`; else the error naming the others (shortened: they are untrusted). */
export function onlyKeys(v: Record<string, unknown>, keys: readonly string[], what: string): string | null {
  const extra = Object.keys(v).filter((k) => !keys.includes(k));
  return extra.length ? `${what} has unknown field(s) ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}` : null;
}
