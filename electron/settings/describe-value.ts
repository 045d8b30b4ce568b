/** How a bad value is shown in a settings error: short, and unambiguous about its type (pure). */
export function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v;
}
