/**
 * One request to an OpenAI-compatible server and its limits: the caller's abort, a deadline for the
 * first text (not restarted by whatever else the server sends: headers, keep-alive comments, empty
 * chunks), then a stall limit between pieces of text, and bounded bodies. A hostile or broken server
 * can make an answer short, never endless or unbounded in memory.
 */
import type { FetchFunction } from '../../native-models/downloader';
import { describeCause, httpError, notACompletion, streamBroken, unreachable, type ServerContext } from './openai-errors';

/** Thrown where the caller aborted; the 'abort' result, never seen outside the engine. */
export const ABORTED = Symbol('aborted');

export interface Target extends ServerContext {
  fetch: FetchFunction;
}

export interface ExchangeLimits {
  /** From the request to the first text (or, for a whole-body request, to its end). */
  firstMs: number;
  /** After the first text: the longest wait for the next. */
  stallMs?: number;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function kilobytes(n: number): string {
  return n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} kB` : `${Math.round(n / (1024 * 1024))} MB`;
}

export class Exchange {
  private readonly ctl = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Which limit ended the request, if one did. */
  private expired: 'first' | 'stall' | null = null;
  private started = false;
  /** Bytes received since the last text: a stall with data arriving says so. */
  private idleBytes = 0;

  constructor(
    private readonly outer: AbortSignal | undefined,
    private readonly limits: ExchangeLimits,
  ) {
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    this.arm(limits.firstMs, 'first');
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** Bytes arrived: counted, but they restart no clock. */
  received(bytes: number): void {
    this.idleBytes += bytes;
  }

  /** A piece of text arrived: the stall clock starts (again). */
  text(): void {
    this.started = true;
    this.idleBytes = 0;
    if (this.limits.stallMs !== undefined) this.arm(this.limits.stallMs, 'stall');
    else clearTimeout(this.timer);
  }

  end(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }

  /** Whether the caller aborted (rather than a limit or the network). */
  get callerAborted(): boolean {
    return this.outer?.aborted === true;
  }

  /** What a failed network step means: the caller's abort, a limit, or the network's own error. */
  failure(e: unknown, ctx: ServerContext, chars: number | null): unknown {
    if (this.callerAborted) return ABORTED;
    if (this.expired === 'stall') {
      const data = this.idleBytes > 0 ? ` (it went on sending data, ${kilobytes(this.idleBytes)}, with no text in it)` : '';
      return streamBroken(ctx, chars ?? 0, `no new text for ${seconds(this.limits.stallMs ?? 0)}${data}`);
    }
    if (this.expired === 'first') {
      const what = this.started ? 'the answer was not whole' : chars === null ? 'no answer' : 'no text';
      if (chars === null) return unreachable(ctx, `${what} in ${seconds(this.limits.firstMs)}`);
      const data = this.idleBytes > 0 ? ` (it sent ${kilobytes(this.idleBytes)} with no text in it)` : '';
      return streamBroken(ctx, chars, `${what} in ${seconds(this.limits.firstMs)}${data}`);
    }
    if (chars === null) return unreachable(ctx, describeCause(e));
    return streamBroken(ctx, chars, describeCause(e));
  }

  private arm(ms: number, which: 'first' | 'stall'): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = which;
      this.ctl.abort(new Error(`${which} limit`));
    }, ms);
  }

  private readonly onOuterAbort = (): void => {
    clearTimeout(this.timer);
    this.ctl.abort(this.outer?.reason);
  };
}

/** One request; a network failure is `unreachable`, an HTTP error the message for its status. */
export async function send(t: Target, path: string, init: RequestInit, exchange: Exchange): Promise<Response> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (t.apiKey) headers.Authorization = `Bearer ${t.apiKey}`;
  let res: Response;
  try {
    res = await t.fetch(`${t.baseUrl}${path}`, { ...init, headers, signal: exchange.signal });
  } catch (e) {
    throw exchange.failure(e, t, null);
  }
  if (res.ok) return res;
  // The start of an error body says what went wrong; the rest is not read.
  let body = '';
  try {
    body = await readBounded(res, ERROR_BODY_BYTES, exchange, t, 'error');
  } catch (e) {
    if (e === ABORTED || exchange.signal.aborted) throw exchange.failure(e, t, null);
    // An unreadable error body: the status alone still says what went wrong.
  }
  throw httpError(t, res.status, body, path);
}

/** Enough of an error body for its message. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A body's chunks as they arrive, each counted by the exchange; ends when the body does. A read that
 * fails, or that the abort or a limit cut short, throws what it means (`failure`). Leaving the loop
 * early cancels the body, which closes the connection: how a server learns to stop generating.
 */
export async function* bodyChunks(res: Response, exchange: Exchange, t: Target, chars: () => number): AsyncGenerator<Uint8Array> {
  const reader = res.body?.getReader();
  if (!reader) return;
  const cancel = () => void reader.cancel().catch(() => {});
  exchange.signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw exchange.failure(e, t, chars());
      }
      // A cancelled body reads as ended: it was the abort (or a limit), not the server.
      if (exchange.signal.aborted) throw exchange.failure(exchange.signal.reason, t, chars());
      if (chunk.done) return;
      exchange.received(chunk.value.byteLength);
      yield chunk.value;
    }
  } finally {
    exchange.signal.removeEventListener('abort', cancel);
    cancel();
  }
}

/**
 * A whole body, up to `maxBytes`: an error body is cut there ('error'), anything else is refused
 * beyond it, so a body that never ends costs bounded memory. Linear: chunks are decoded once.
 */
export async function readBounded(res: Response, maxBytes: number, exchange: Exchange, t: Target, kind: 'error' | 'whole'): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for await (const chunk of bodyChunks(res, exchange, t, () => 0)) {
    const room = maxBytes - bytes;
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      if (kind === 'error') {
        parts.push(decoder.decode(chunk.subarray(0, room)));
        break;
      }
      throw notACompletion(t, `its answer went on past ${kilobytes(maxBytes)}, more than any answer needs`);
    }
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** A web page where completions were expected: usually the address of the server's web UI, not its API. */
export function looksLikeHtml(contentType: string | null, start: string): boolean {
  return /text\/html/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body|\?xml|!--)/i.test(start);
}

export function htmlError(t: Target): unknown {
  return notACompletion(t, `it sent a web page (HTML) instead of completions; check that ${t.baseUrl} is its OpenAI-compatible address (it usually ends in /v1)`);
}
