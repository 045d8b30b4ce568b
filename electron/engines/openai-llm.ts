/**
 * The language model on an OpenAI-compatible server (Ollama, LM Studio, llama.cpp's server, vLLM),
 * behind the same `LanguageModel` interface as the local engine: streamed chat completions,
 * cancelled by the same AbortSignal, the same result shape, and one clear error per failure.
 */
import type { FetchFunction } from '../../native-models/downloader';
import type { ChatMessage, GenerateOptions, GenerateResult, LanguageModel, LlmInfo } from './llm-types';
import {
  checkBaseUrl,
  describeCause,
  httpError,
  notACompletion,
  redact,
  serverMessage,
  streamBroken,
  unreachable,
  type ServerContext,
} from './openai-errors';
import { SseReader } from './sse';

export interface OpenAiLlmOptions {
  /** As the server documents it, ending in /v1 (e.g. http://localhost:11434/v1 for Ollama). */
  baseUrl: string;
  /** The model name the server knows (e.g. 'llama3.2:3b' on Ollama). */
  model: string;
  /** Sent only as `Authorization: Bearer …`; local servers usually need none. */
  apiKey?: string;
  /** How requests reach the server (default: Node's fetch). The app passes Electron's `net.fetch`. */
  fetch?: FetchFunction;
  /** The context the server gives the model; the pipeline trims the history to fit it. */
  contextSize?: number;
  /**
   * The longest wait for the server's answer, and then for each piece of the stream. Generous by
   * default: servers such as Ollama load the model on the first request before answering.
   */
  timeoutMs?: number;
}

const DEFAULT_CONTEXT = 4096;
const DEFAULT_TIMEOUT_MS = 120_000;
/** The model list is a cheap request: no reason to wait as long as for a first answer. */
const LIST_TIMEOUT_MS = 30_000;

/** Thrown inside `generate` when the caller aborted; turned into the 'abort' result, never seen outside. */
const ABORTED = Symbol('aborted');

/** Completions' finish reasons in node-llama-cpp's words, which the local engine's callers already read. */
const STOP_REASONS: Record<string, string> = { stop: 'eogToken', length: 'maxTokens' };

/** One request's cancellation: the caller's signal, or no data from the server for `timeoutMs`. */
class Exchange {
  private readonly ctl = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  stalled = false;

  constructor(
    private readonly outer: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** The server sent something: the wait starts again. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.ctl.abort(new Error(`no data for ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }

  end(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }

  /** What a failed network step means: the caller's abort, a stall, or the network's own error. */
  failure(e: unknown, ctx: ServerContext, chars: number | null): unknown {
    if (this.outer?.aborted) return ABORTED;
    const seconds = `${Math.round(this.timeoutMs / 100) / 10} s`;
    if (chars === null) return unreachable(ctx, this.stalled ? `no answer in ${seconds}` : describeCause(e));
    return streamBroken(ctx, chars, this.stalled ? `no data for ${seconds}` : describeCause(e));
  }

  private readonly onOuterAbort = (): void => {
    clearTimeout(this.timer);
    this.ctl.abort(this.outer?.reason);
  };
}

interface Target extends ServerContext {
  fetch: FetchFunction;
}

/** One request; a network failure is `unreachable`, an HTTP error the message for its status. */
async function send(t: Target, path: string, init: RequestInit, exchange: Exchange): Promise<Response> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (t.apiKey) headers.Authorization = `Bearer ${t.apiKey}`;
  let res: Response;
  try {
    res = await t.fetch(`${t.baseUrl}${path}`, { ...init, headers, signal: exchange.signal });
  } catch (e) {
    throw exchange.failure(e, t, null);
  }
  exchange.touch();
  if (res.ok) return res;
  let body = '';
  try {
    body = await res.text();
  } catch (e) {
    if (exchange.signal.aborted) throw exchange.failure(e, t, null);
    // An unreadable error body: the status alone still says what went wrong.
  }
  throw httpError(t, res.status, body, path);
}

function target(o: { baseUrl: string; apiKey?: string; fetch?: FetchFunction; model?: string }): Target {
  return {
    baseUrl: checkBaseUrl(o.baseUrl),
    apiKey: o.apiKey || undefined,
    model: o.model,
    fetch: o.fetch ?? ((url, init) => fetch(url, init)),
  };
}

interface CompletionChunk {
  choices?: { delta?: { content?: unknown }; message?: { content?: unknown }; finish_reason?: unknown }[];
  error?: unknown;
}

export class OpenAiCompatibleLlm implements LanguageModel {
  readonly info: LlmInfo;
  private readonly target: Target;
  private readonly timeoutMs: number;

  constructor(opts: OpenAiLlmOptions) {
    this.target = target(opts);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.info = {
      id: `openai-compatible:${opts.model}`,
      backend: 'server',
      // Where the server runs the model (its GPU, its layers) is its own business and not reported.
      gpuDevices: [],
      gpuLayers: 0,
      totalLayers: 0,
      contextSize: opts.contextSize ?? DEFAULT_CONTEXT,
      loadMs: 0,
      warmUpMs: 0,
    };
  }

  async generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    const last = messages[messages.length - 1];
    if (last?.role !== 'user') throw new Error('the conversation must end with a user message');
    if (opts.signal?.aborted) return { text: '', stopReason: 'abort' };
    const t = this.target;
    const exchange = new Exchange(opts.signal, this.timeoutMs);
    let text = '';
    let finish: string | null = null;
    const deliver = (delta: unknown) => {
      if (typeof delta !== 'string' || !delta || opts.signal?.aborted) return;
      text += delta;
      opts.onText(delta);
    };
    const body = JSON.stringify({
      model: t.model,
      messages: messages.map((m) => ({ role: m.role, content: m.text })),
      max_tokens: opts.maxTokens,
      temperature: opts.temperature,
      stream: true,
    });
    try {
      const init = { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body };
      const res = await send(t, '/chat/completions', init, exchange);
      // A server that ignores `stream` answers with the whole completion at once.
      if (/application\/json/i.test(res.headers.get('content-type') ?? '')) {
        const whole = await readAll(res, exchange, t);
        const choice = parseChunk(whole, t, 0).choices?.[0];
        deliver(choice?.message?.content);
        finish = typeof choice?.finish_reason === 'string' ? choice.finish_reason : 'stop';
      } else {
        finish = await this.stream(res, exchange, deliver, () => text.length);
      }
    } catch (e) {
      if (e === ABORTED) return { text, stopReason: 'abort' };
      throw e;
    } finally {
      exchange.end();
    }
    return { text, stopReason: STOP_REASONS[finish] ?? finish };
  }

  /** Reads the event stream to its end; returns the finish reason. */
  private async stream(res: Response, exchange: Exchange, deliver: (delta: unknown) => void, chars: () => number): Promise<string> {
    const t = this.target;
    const reader = res.body?.getReader();
    if (!reader) throw streamBroken(t, 0, 'the answer had no body');
    // Closing the stream closes the connection, which is how the server learns to stop generating.
    const cancel = () => void reader.cancel().catch(() => {});
    exchange.signal.addEventListener('abort', cancel, { once: true });
    const decoder = new TextDecoder();
    const sse = new SseReader();
    let finish: string | null = null;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          throw exchange.failure(e, t, chars());
        }
        // A cancelled stream reads as ended: it was the abort (or the stall), not the server.
        if (exchange.signal.aborted) throw exchange.failure(exchange.signal.reason, t, chars());
        exchange.touch();
        const events = chunk.done ? [...sse.push(decoder.decode()), ...sse.end()] : sse.push(decoder.decode(chunk.value, { stream: true }));
        for (const data of events) {
          if (data === '[DONE]') {
            cancel(); // some servers keep the connection open after [DONE]
            return finish ?? 'stop';
          }
          const parsed = parseChunk(data, t, chars());
          const choice = parsed.choices?.[0];
          deliver(choice?.delta?.content);
          if (typeof choice?.finish_reason === 'string') finish = choice.finish_reason;
        }
        if (chunk.done) {
          // No [DONE]: a finish reason still says the answer is whole; without one, the server died.
          if (finish) return finish;
          throw streamBroken(t, chars(), 'the server ended the answer before finishing it');
        }
      }
    } finally {
      exchange.signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * An estimate: about four characters per token, the usual figure for English with BPE vocabularies.
   * Servers differ in whether and how they expose their tokenizer, and a request per count would cost
   * a round trip each time the history is measured; the pipeline only needs a size to trim by.
   */
  countTokens(text: string): number {
    return Math.ceil(text.length / 4);
  }

  /** Nothing is held: each answer is one request. */
  async dispose(): Promise<void> {}
}

/** A whole (non-streamed) body, under the same timeout and abort as the stream. */
async function readAll(res: Response, exchange: Exchange, t: Target): Promise<string> {
  try {
    return await res.text();
  } catch (e) {
    throw exchange.failure(e, t, 0);
  }
}

/** One event's JSON; an error event (vLLM and llama.cpp send them mid-stream) ends the answer. */
function parseChunk(data: string, t: Target, chars: number): CompletionChunk {
  let parsed: CompletionChunk;
  try {
    parsed = JSON.parse(data) as CompletionChunk;
  } catch {
    throw streamBroken(t, chars, `it sent data that is not JSON (${JSON.stringify(redact(data, t.apiKey).slice(0, 80))})`);
  }
  if (parsed === null || typeof parsed !== 'object') throw streamBroken(t, chars, 'it sent data that is not a completion chunk');
  if (parsed.error !== undefined) throw streamBroken(t, chars, `the server reported an error: ${serverMessage(redact(data, t.apiKey)).text}`);
  return parsed;
}

/** The model names the server offers (`GET {baseUrl}/models`, OpenAI's `data[].id`). */
export async function listModels(baseUrl: string, apiKey?: string, fetchFn?: FetchFunction): Promise<string[]> {
  const t = target({ baseUrl, apiKey, fetch: fetchFn });
  const exchange = new Exchange(undefined, LIST_TIMEOUT_MS);
  try {
    const res = await send(t, '/models', { method: 'GET', headers: { Accept: 'application/json' } }, exchange);
    const body = await readAll(res, exchange, t);
    let data: unknown;
    try {
      data = (JSON.parse(body) as { data?: unknown }).data;
    } catch {
      data = undefined;
    }
    if (!Array.isArray(data)) throw notACompletion(t, 'its model list (GET /models) has no data[] array');
    return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  } finally {
    exchange.end();
  }
}

export interface ConnectionTest {
  /** What the server offers (the chosen model need not be among them: some servers accept aliases). */
  models: string[];
  /** From sending a one-token completion to its first text (or its end, when the token was empty). */
  firstTokenMs: number;
}

/** Checks the address, the key and the model with the model list and a one-token answer, timed. */
export async function testConnection(opts: OpenAiLlmOptions): Promise<ConnectionTest> {
  const models = await listModels(opts.baseUrl, opts.apiKey, opts.fetch);
  const llm = new OpenAiCompatibleLlm(opts);
  const t0 = performance.now();
  let first: number | undefined;
  await llm.generate([{ role: 'user', text: 'Say hello.' }], {
    maxTokens: 1,
    temperature: 0,
    onText: () => (first ??= performance.now() - t0),
  });
  const ms = first ?? performance.now() - t0;
  return { models, firstTokenMs: Math.round(ms * 10) / 10 };
}
