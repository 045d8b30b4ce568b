/**
 * What can go wrong talking to an OpenAI-compatible server, each as one UserError with its own code,
 * worded for the person who set the server up. The API key never appears in any of them: every
 * message goes through `redact`, since some servers echo the key they refused.
 */
import { UserError } from '../errors';

export const LLM_SERVER_ERROR = {
  /** Connection refused, unknown host, no answer in time. */
  unreachable: 'llm-server-unreachable',
  /** 401 or 403. */
  auth: 'llm-server-auth',
  /** 404 on a completion, or the server says it does not know the model. */
  model: 'llm-server-model',
  /** 429. */
  busy: 'llm-server-busy',
  /** Any other HTTP error, or an answer that is not a completion. */
  http: 'llm-server-http',
  /** The stream of an answer broke, stalled or carried an error. */
  stream: 'llm-server-stream-broken',
  /** The server address is not an http(s) URL. */
  address: 'llm-server-address',
} as const;

export interface ServerContext {
  baseUrl: string;
  apiKey?: string;
  /** The model asked for; absent for requests that name none (the model list). */
  model?: string;
}

/** Network error codes (Node's and undici's) in words. */
const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'no data in time',
  UND_ERR_SOCKET: 'the connection closed',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection closed',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * The useful part of a fetch failure. Node wraps the real error ("fetch failed", cause ECONNREFUSED,
 * sometimes an AggregateError of one per address); Electron's net.fetch says "net::ERR_...".
 */
export function describeCause(e: unknown): string {
  let code: string | undefined;
  let deepest = e instanceof Error ? e.message : String(e);
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const err = c as { code?: unknown; message?: unknown; errors?: unknown[] };
    if (typeof err.code === 'string') code = err.code;
    if (!code && Array.isArray(err.errors)) {
      const inner = err.errors.find((x) => typeof (x as { code?: unknown })?.code === 'string') as { code: string } | undefined;
      if (inner) code = inner.code;
    }
    if (typeof err.message === 'string' && err.message) deepest = err.message;
  }
  const chromium = /net::ERR_[A-Z_]+/.exec(deepest)?.[0];
  if (code && NETWORK_CAUSES[code]) return `${NETWORK_CAUSES[code]} (${code})`;
  return chromium ?? (code ? `${deepest} (${code})` : deepest);
}

/** A run of this many characters of the key, anywhere, is a piece of it (a message cut mid-key, a key split by whitespace). */
const KEY_FRAGMENT = 8;

/**
 * The key replaced wherever it appears: whole, as JSON escapes it, and any run of KEY_FRAGMENT or
 * more of its characters (a body cut mid-key, a key with whitespace in it that was collapsed).
 * Applied to what a server sent before anything is cut or collapsed.
 */
export function redact(text: string, apiKey: string | undefined): string {
  if (!apiKey) return text;
  let out = text;
  for (const form of new Set([apiKey, JSON.stringify(apiKey).slice(1, -1)])) out = out.split(form).join('***');
  if (apiKey.length < KEY_FRAGMENT) return out;
  const grams = new Set<string>();
  for (let i = 0; i + KEY_FRAGMENT <= apiKey.length; i++) grams.add(apiKey.slice(i, i + KEY_FRAGMENT));
  let result = '';
  let i = 0;
  while (i < out.length) {
    if (!grams.has(out.slice(i, i + KEY_FRAGMENT))) {
      result += out[i];
      i++;
      continue;
    }
    // The longest run from here that is still a piece of the key.
    let j = i + KEY_FRAGMENT;
    while (j < out.length && apiKey.includes(out.slice(i, j + 1))) j++;
    result += '***';
    i = j;
  }
  return result;
}

function make(message: string, code: string, apiKey: string | undefined): UserError {
  // A user:password in the address is a credential too: messages reach the window and the history log.
  return new UserError(redact(message, apiKey).replace(/\/\/[^/@\s]+@/g, '//'), code);
}

/** The address, without trailing slashes; an error unless it is an http(s) URL. */
export function checkBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(trimmed).protocol);
  } catch {
    // not a URL at all
  }
  if (!ok) {
    throw new UserError(
      `The LLM server address '${trimmed}' is not an http(s) URL. Give it as the server documents it, e.g. http://localhost:11434/v1.`,
      LLM_SERVER_ERROR.address,
    );
  }
  return trimmed;
}

export function unreachable(ctx: ServerContext, why: string): UserError {
  return make(`Cannot reach the LLM server at ${ctx.baseUrl}: ${why}. Is it running?`, LLM_SERVER_ERROR.unreachable, ctx.apiKey);
}

export function streamBroken(ctx: ServerContext, chars: number, why: string): UserError {
  return make(`The LLM server's stream broke after ${chars} characters: ${why}.`, LLM_SERVER_ERROR.stream, ctx.apiKey);
}

export function notACompletion(ctx: ServerContext, why: string): UserError {
  return make(`The LLM server at ${ctx.baseUrl} did not answer like an OpenAI-compatible server: ${why}.`, LLM_SERVER_ERROR.http, ctx.apiKey);
}

/** What an error body says: the JSON error message most servers send, else the start of the text. */
export function serverMessage(body: string): { text: string; json: boolean; code?: string } {
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    const err = j.error;
    const inner = typeof err === 'object' && err !== null ? (err as Record<string, unknown>) : {};
    const text = [inner.message, err, j.message, j.detail].find((x) => typeof x === 'string' && x.trim());
    if (typeof text === 'string') return { text: excerpt(text), json: true, code: typeof inner.code === 'string' ? inner.code : undefined };
  } catch {
    // not JSON: fall through to the text itself
  }
  return { text: excerpt(body), json: false };
}

function excerpt(text: string): string {
  // Without its closing period: the message puts its own after it.
  const one = text.replace(/\s+/g, ' ').trim().replace(/\.+$/, '');
  return one.length > 200 ? `${one.slice(0, 200)}…` : one;
}

/** Servers that do not answer 404 for an unknown model (some say 400) still say so in words or a code. */
const UNKNOWN_MODEL = /model\b.*\b(not found|does not exist|not exist|unknown|not loaded|no such)/i;

/** One message per HTTP failure, with what the server said about it. */
export function httpError(ctx: ServerContext, status: number, body: string, path: string): UserError {
  // Redacted before it is cut or its whitespace collapsed: a cut key, or one with a tab in it, is still the key.
  const said = serverMessage(redact(body, ctx.apiKey));
  const tail = said.text ? `: ${said.text}` : '';
  const key = ctx.apiKey;
  if (status === 401 || status === 403) {
    const what = key ? 'refused the API key' : 'wants an API key, and none is set';
    return make(`The LLM server ${what} (${status})${tail}. Check the API key in the settings.`, LLM_SERVER_ERROR.auth, key);
  }
  if (ctx.model !== undefined && (status === 404 || said.code === 'model_not_found' || UNKNOWN_MODEL.test(said.text))) {
    // A 404 without a JSON error is more likely a wrong address than a missing model.
    const address = said.json ? '' : ` (or ${ctx.baseUrl}${path} is not its address: OpenAI-compatible servers usually end in /v1)`;
    return make(
      `The LLM server has no model '${ctx.model}' (${status})${tail}${address}. Pick one the server lists, or load or pull that model on the server.`,
      LLM_SERVER_ERROR.model,
      key,
    );
  }
  if (status === 429) return make(`The LLM server is busy or rate-limited (429)${tail}. Wait a moment and try again.`, LLM_SERVER_ERROR.busy, key);
  const hint = status === 404 ? ' Check the address: OpenAI-compatible servers usually end in /v1.' : '';
  return make(`The LLM server at ${ctx.baseUrl} answered ${path} with HTTP ${status}${tail}.${hint}`, LLM_SERVER_ERROR.http, key);
}
