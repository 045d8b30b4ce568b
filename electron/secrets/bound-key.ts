/**
 * An API key belongs to the server it was entered for: it is stored with that address and sent
 * only there, so typing a new address never hands the old server's key to the new one (pure,
 * browser-safe). Stored as the address, a line break, then the key: neither can hold a line break
 * (keys are printable ASCII without spaces, see api-key-shape.ts).
 */

export interface BoundKey {
  key: string;
  /** The server's address it is for; null for a key stored before keys had one. */
  baseUrl: string | null;
}

/** One address per server: scheme, host (with a non-default port) and path, without trailing slashes. */
export function serverIdentity(baseUrl: string): string | null {
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** Whether two addresses name the same server (case of the host, default ports and trailing slashes aside). */
export function sameServer(a: string, b: string): boolean {
  const x = serverIdentity(a);
  return x !== null && x === serverIdentity(b);
}

export function encodeBoundKey(bound: BoundKey): string {
  return bound.baseUrl === null ? bound.key : `${serverIdentity(bound.baseUrl) ?? bound.baseUrl}\n${bound.key}`;
}

export function decodeBoundKey(stored: string): BoundKey {
  const cut = stored.lastIndexOf('\n');
  if (cut < 0) return { key: stored.trim(), baseUrl: null };
  return { key: stored.slice(cut + 1).trim(), baseUrl: stored.slice(0, cut).trim() || null };
}
