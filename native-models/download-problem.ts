/**
 * Why a download failed, in words: the server's host name and what went wrong, never a raw URL or
 * an errno. Node's fetch puts the system error code on `cause` (an AggregateError for several
 * addresses); Electron's net.fetch says `net::ERR_...` in its message. Both are recognised here.
 */

/** The host a person would recognise ("huggingface.co", "127.0.0.1:8080"). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

function codesOf(e: unknown): string[] {
  const codes: string[] = [];
  const visit = (x: unknown, depth: number) => {
    if (!x || typeof x !== 'object' || depth > 3) return;
    const { code, message, cause, errors } = x as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (typeof message === 'string') for (const m of message.matchAll(/net::(ERR_[A-Z_]+)/g)) codes.push(m[1]!);
    visit(cause, depth + 1);
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1);
  };
  visit(e, 0);
  return codes;
}

const REASONS: [codes: string[], reason: (host: string) => string][] = [
  [['ERR_INTERNET_DISCONNECTED', 'ENETUNREACH', 'ENETDOWN', 'ERR_NETWORK_CHANGED', 'ERR_ADDRESS_UNREACHABLE', 'EHOSTUNREACH'], () => 'there is no network connection'],
  [['ENOTFOUND', 'EAI_AGAIN', 'ERR_NAME_NOT_RESOLVED', 'ERR_NAME_RESOLUTION_FAILED'], (h) => `${h} could not be found (no internet connection?)`],
  [['ECONNREFUSED', 'ERR_CONNECTION_REFUSED'], (h) => `${h} refused the connection`],
  [['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_CONNECTION_TIMED_OUT', 'ERR_TIMED_OUT'], (h) => `${h} did not answer`],
  [['ECONNRESET', 'ERR_CONNECTION_RESET', 'ERR_CONNECTION_CLOSED', 'UND_ERR_SOCKET'], (h) => `the connection to ${h} was cut`],
  [['ERR_PROXY_CONNECTION_FAILED', 'ERR_TUNNEL_CONNECTION_FAILED'], () => 'the proxy could not be reached'],
  [['CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_CERT_AUTHORITY_INVALID', 'ERR_CERT_DATE_INVALID'], (h) => `the certificate of ${h} was not accepted`],
];

/** Why a request to `url` could not connect, as a clause: "huggingface.co could not be found (no internet connection?)". */
export function connectionProblem(e: unknown, url: string): string {
  const host = hostOf(url);
  const codes = codesOf(e);
  for (const [known, reason] of REASONS) if (codes.some((c) => known.includes(c))) return reason(host);
  // Not one we know: keep the error's own words (a proxy's, say), which may be all there is to go on.
  const own = e instanceof Error && e.message && e.message !== 'fetch failed' ? ` (${e.message})` : '';
  return `could not connect to ${host}${own}`;
}
