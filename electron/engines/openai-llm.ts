/**
 * The language model on an OpenAI-compatible server (Ollama, LM Studio, llama.cpp's server, vLLM),
 * behind the same `LanguageModel` interface as the local engine: streamed chat completions,
 * cancelled by the same AbortSignal, the same result shape, and one clear error per failure.
 * Nothing the server sends is trusted to end: the answer has a deadline for its first text, a stall
 * limit after it, and caps on tokens, characters, bytes and line length (openai-exchange.ts).
 */
import type { FetchFunction } from '../../native-models/downloader';
import type { ChatMessage, GenerateOptions, GenerateResult, LanguageModel, LlmInfo } from './llm-types';
import { isUserError } from '../errors';
import { checkBaseUrl, LLM_SERVER_ERROR, notACompletion, redact, serverMessage, streamBroken } from './openai-errors';
import { ABORTED, bodyChunks, Exchange, htmlError, looksLikeHtml, readBounded, send, type Target } from './openai-exchange';
import { SseReader, SseTooLong } from './sse';
import { MAX_TOOL_ROUNDS, roundMessages, ToolCallAssembler, ToolCallProblem, toolsForRequest, type ToolCall, type ToolRound } from './tool-calls';

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
   * The longest wait for the answer's first text, from the request (data that holds no text does not
   * extend it). Generous by default: servers such as Ollama load the model on the first request.
   */
  timeoutMs?: number;
  /** After the first text, the longest wait for the next: a stalled stream ends the answer there. */
  stallMs?: number;
}

const DEFAULT_CONTEXT = 4096;
const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_STALL_MS = 10_000;
/** The model list is a cheap request: no reason to wait as long as for a first answer. */
const LIST_TIMEOUT_MS = 30_000;
/** A model list (hundreds of models on a hosted service) is well under this. */
const MAX_LIST_BYTES = 8 * 1024 * 1024;
/** One answer's whole stream: a few hundred bytes per token, for the longest answer a turn allows. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/**
 * Characters per token the client allows on average before it counts the answer as over
 * `maxTokens` (English averages about four): a server that sends one huge piece is cut there.
 */
const MAX_CHARS_PER_TOKEN = 8;

/** Completions' finish reasons in node-llama-cpp's words, which the local engine's callers already read. */
const STOP_REASONS: Record<string, string> = { stop: 'eogToken', length: 'maxTokens' };

/** Thrown by `deliver` once the answer reached its cap: the 'maxTokens' result. */
const CAPPED = Symbol('capped');

function target(o: { baseUrl: string; apiKey?: string; fetch?: FetchFunction; model?: string }): Target {
  return {
    baseUrl: checkBaseUrl(o.baseUrl),
    apiKey: o.apiKey || undefined,
    model: o.model,
    fetch: o.fetch ?? ((url, init) => fetch(url, init)),
  };
}

interface CompletionChoice {
  delta?: { content?: unknown; tool_calls?: unknown };
  message?: { content?: unknown; tool_calls?: unknown };
  finish_reason?: unknown;
}

interface CompletionChunk {
  choices?: CompletionChoice[];
  error?: unknown;
}

/** What the stream held besides text: for an answer that ends with none, and the tool calls when tools were offered. */
interface Seen {
  events: number;
  choices: number;
  tool: string | null;
  calls: ToolCallAssembler | null;
}

/** The answer as it arrives, held to `maxTokens` pieces and `maxTokens` × MAX_CHARS_PER_TOKEN characters. */
class Answer {
  text = '';
  private pieces = 0;
  private readonly maxChars: number;

  constructor(
    private readonly opts: GenerateOptions,
    readonly exchange: Exchange,
  ) {
    this.maxChars = Math.max(1, opts.maxTokens) * MAX_CHARS_PER_TOKEN;
  }

  deliver(delta: unknown): void {
    if (typeof delta !== 'string' || !delta || this.opts.signal?.aborted) return;
    const piece = delta.length > this.maxChars - this.text.length ? delta.slice(0, this.maxChars - this.text.length) : delta;
    this.text += piece;
    this.pieces++;
    this.exchange.text();
    this.opts.onText(piece);
    if (this.pieces >= this.opts.maxTokens || this.text.length >= this.maxChars) throw CAPPED;
  }
}

export class OpenAiCompatibleLlm implements LanguageModel {
  readonly info: LlmInfo;
  private readonly target: Target;
  private readonly timeoutMs: number;
  private readonly stallMs: number;
  /** The server refused tools for this model (HTTP 4xx naming them): it is not offered them again. */
  private toolsRefused = false;

  constructor(opts: OpenAiLlmOptions) {
    this.target = target(opts);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
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

  /**
   * One answer. With tools and `callTool`, each round of calls the model asks for is run and sent
   * back, and the answer goes on; the text of every round is the answer's.
   */
  async generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    if (this.toolsRefused) return this.round(messages, { ...opts, tools: undefined });
    if (!opts.tools?.length || !opts.callTool) return this.round(messages, opts);
    return this.withTools(messages, opts, opts.callTool);
  }

  private async withTools(messages: readonly ChatMessage[], opts: GenerateOptions, callTool: (call: ToolCall) => Promise<string>): Promise<GenerateResult> {
    const maxRounds = Math.max(0, opts.maxToolRounds ?? MAX_TOOL_ROUNDS);
    const rounds: ToolRound[] = [];
    let text = '';
    for (;;) {
      // The last round allows no calls (tool_choice none): the model answers with what the calls returned.
      const last = rounds.length >= maxRounds;
      let r: GenerateResult;
      try {
        r = await this.round(messages, { ...opts, toolRounds: rounds }, last ? 'none' : 'auto');
      } catch (e) {
        // Ollama and others answer 400 for a model that cannot call tools: before anything was said
        // or run, such a model answers without them, and is not offered them again.
        if (rounds.length > 0 || !refusesTools(e)) throw e;
        this.toolsRefused = true;
        return this.round(messages, { ...opts, tools: undefined });
      }
      text += r.text;
      if (opts.signal?.aborted) return { text, stopReason: 'abort' };
      // A server that calls anyway after the last round gets no more: the answer is what it said.
      if (!r.toolCalls?.length || last) return { text, stopReason: r.toolCalls?.length ? 'toolRounds' : r.stopReason };
      const results: ToolRound['results'] = [];
      for (const call of r.toolCalls) {
        if (opts.signal?.aborted) return { text, stopReason: 'abort' };
        results.push({ id: call.id, content: await callTool(call) });
      }
      rounds.push({ calls: r.toolCalls, results });
    }
  }

  /** One request: the answer's text, or the calls the model asked for. */
  private async round(messages: readonly ChatMessage[], opts: GenerateOptions, choice: 'auto' | 'none' = 'auto'): Promise<GenerateResult> {
    const last = messages[messages.length - 1];
    if (last?.role !== 'user') throw new Error('the conversation must end with a user message');
    if (opts.signal?.aborted) return { text: '', stopReason: 'abort' };
    const t = this.target;
    const exchange = new Exchange(opts.signal, { firstMs: this.timeoutMs, stallMs: this.stallMs });
    const answer = new Answer(opts, exchange);
    const offered = opts.tools?.length ? opts.tools : null;
    const seen: Seen = { events: 0, choices: 0, tool: null, calls: offered ? new ToolCallAssembler() : null };
    let finish: string | null;
    const body = JSON.stringify({
      model: t.model,
      messages: [...messages.flatMap((m) => chatMessages(m, offered !== null)), ...roundMessages(opts.toolRounds ?? [])],
      max_tokens: opts.maxTokens,
      temperature: opts.temperature,
      stream: true,
      ...(offered ? { tools: toolsForRequest(offered), tool_choice: choice } : {}),
    });
    try {
      const init = { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body };
      const res = await send(t, '/chat/completions', init, exchange);
      const type = res.headers.get('content-type');
      if (looksLikeHtml(type, '')) throw htmlError(t);
      // A server that ignores `stream` answers with the whole completion at once.
      if (/application\/json/i.test(type ?? '')) finish = await this.whole(res, exchange, answer, seen);
      else finish = await this.stream(res, exchange, answer, seen);
    } catch (e) {
      if (e === ABORTED) return { text: answer.text, stopReason: 'abort' };
      if (e === CAPPED) return { text: answer.text, stopReason: 'maxTokens' };
      throw e;
    } finally {
      exchange.end();
    }
    if (seen.calls?.started) return { text: answer.text, stopReason: 'toolCalls', toolCalls: wholeCalls(t, seen.calls) };
    if (!answer.text) noText(t, seen);
    return { text: answer.text, stopReason: STOP_REASONS[finish] ?? finish };
  }

  /** The whole completion as one JSON body; returns the finish reason. */
  private async whole(res: Response, exchange: Exchange, answer: Answer, seen: Seen): Promise<string> {
    const t = this.target;
    const text = await readBounded(res, MAX_ANSWER_BYTES, exchange, t, 'whole');
    if (looksLikeHtml(null, text.slice(0, 100))) throw htmlError(t);
    const choice = parseChunk(text, t, 0).choices?.[0];
    note(seen, choice, choice?.message);
    takeCalls(t, seen, choice?.message, exchange, 0);
    answer.deliver(choice?.message?.content);
    return typeof choice?.finish_reason === 'string' ? choice.finish_reason : 'stop';
  }

  /** Reads the event stream to its end; returns the finish reason. */
  private async stream(res: Response, exchange: Exchange, answer: Answer, seen: Seen): Promise<string> {
    const t = this.target;
    if (!res.body) throw streamBroken(t, 0, 'the answer had no body');
    const decoder = new TextDecoder();
    const sse = new SseReader();
    const events = (text: string, end: boolean): string[] => {
      try {
        return end ? [...sse.push(text), ...sse.end()] : sse.push(text);
      } catch (e) {
        if (e instanceof SseTooLong) throw streamBroken(t, answer.text.length, e.message);
        throw e;
      }
    };
    let finish: string | null = null;
    let bytes = 0;
    // Leaving the loop (the end, [DONE], a cap) closes the connection: some servers keep it open after [DONE].
    for await (const chunk of bodyChunks(res, exchange, t, () => answer.text.length)) {
      if (bytes === 0 && looksLikeHtml(null, decoder.decode(chunk.subarray(0, 100)))) throw htmlError(t);
      bytes += chunk.byteLength;
      if (bytes > MAX_ANSWER_BYTES) throw streamBroken(t, answer.text.length, `it sent more than ${MAX_ANSWER_BYTES >> 20} MB for one answer`);
      for (const data of events(decoder.decode(chunk, { stream: true }), false)) {
        if (data === '[DONE]') return finish ?? 'stop';
        finish = this.take(data, answer, seen) ?? finish;
      }
    }
    for (const data of events(decoder.decode(), true)) {
      if (data === '[DONE]') return finish ?? 'stop';
      finish = this.take(data, answer, seen) ?? finish;
    }
    // No [DONE]: a finish reason still says the answer is whole; without one, the server died.
    if (finish) return finish;
    throw streamBroken(t, answer.text.length, 'the server ended the answer before finishing it');
  }

  /** One event: its text delivered; its finish reason, if it has one. */
  private take(data: string, answer: Answer, seen: Seen): string | null {
    const choice = parseChunk(data, this.target, answer.text.length).choices?.[0];
    note(seen, choice, choice?.delta);
    takeCalls(this.target, seen, choice?.delta, answer.exchange, answer.text.length);
    answer.deliver(choice?.delta?.content);
    return typeof choice?.finish_reason === 'string' ? choice.finish_reason : null;
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

function note(seen: Seen, choice: CompletionChoice | undefined, part: { tool_calls?: unknown } | undefined): void {
  seen.events++;
  if (choice) seen.choices++;
  const call = Array.isArray(part?.tool_calls) ? (part.tool_calls[0] as { function?: { name?: unknown } } | undefined) : undefined;
  if (typeof call?.function?.name === 'string' && !seen.tool) seen.tool = call.function.name.slice(0, 64);
}

/**
 * One history message as the server expects it: an answer that ran tools is its calls and their
 * results, then what it said (the next turn knows what was done).
 */
function chatMessages(m: ChatMessage, tools: boolean): unknown[] {
  // A request without tools (a model that refused them) gets the words only: servers reject calls then.
  if (m.role !== 'assistant' || !m.tools?.length || !tools) return [{ role: m.role, content: m.text }];
  return [...roundMessages(m.tools), ...(m.text ? [{ role: 'assistant', content: m.text }] : [])];
}

/** A 4xx whose message names tools ("does not support tools"): the model cannot take them. */
function refusesTools(e: unknown): boolean {
  return isUserError(e) && e.code === LLM_SERVER_ERROR.http && /HTTP 4\d\d/.test(e.message) && /\btools?\b|function.?call/i.test(e.message);
}

/** A chunk's tool-call pieces, when tools were offered: progress for the deadlines, and bounded. */
function takeCalls(t: Target, seen: Seen, part: { tool_calls?: unknown } | undefined, exchange: Exchange, chars: number): void {
  if (!seen.calls) return;
  try {
    if (seen.calls.push(part?.tool_calls)) exchange.text();
  } catch (e) {
    if (e instanceof ToolCallProblem) throw streamBroken(t, chars, redact(e.message, t.apiKey));
    throw e;
  }
}

/** The calls whole; a call the server garbled is the answer's one error. */
function wholeCalls(t: Target, calls: ToolCallAssembler): ToolCall[] {
  try {
    return calls.finish();
  } catch (e) {
    if (e instanceof ToolCallProblem) throw notACompletion(t, redact(e.message, t.apiKey));
    throw e;
  }
}

/** An answer that ended with no text: what the server sent instead, said, rather than silence. */
function noText(t: Target, seen: Seen): void {
  if (seen.tool !== null) throw notACompletion(t, `the model asked to call a tool (${JSON.stringify(redact(seen.tool, t.apiKey))}) instead of answering, and this app offers it none`);
  if (seen.events > 0 && seen.choices === 0) throw notACompletion(t, `its answer had no choices (${seen.events} chunk${seen.events === 1 ? '' : 's'}, none with text)`);
}

/** One event's JSON; an error event (vLLM and llama.cpp send them mid-stream) ends the answer. */
function parseChunk(data: string, t: Target, chars: number): CompletionChunk {
  let parsed: CompletionChunk;
  try {
    parsed = JSON.parse(data) as CompletionChunk;
  } catch {
    throw streamBroken(t, chars, `it sent data that is not JSON (${JSON.stringify(redact(data.slice(0, 4096), t.apiKey).slice(0, 80))})`);
  }
  if (parsed === null || typeof parsed !== 'object') throw streamBroken(t, chars, 'it sent data that is not a completion chunk');
  if (parsed.error !== undefined) throw streamBroken(t, chars, `the server reported an error: ${serverMessage(redact(data.slice(0, 65536), t.apiKey)).text}`);
  return parsed;
}

/** The model names the server offers (`GET {baseUrl}/models`, OpenAI's `data[].id`). */
export async function listModels(baseUrl: string, apiKey?: string, fetchFn?: FetchFunction, timeoutMs = LIST_TIMEOUT_MS): Promise<string[]> {
  const t = target({ baseUrl, apiKey, fetch: fetchFn });
  const exchange = new Exchange(undefined, { firstMs: timeoutMs });
  try {
    const res = await send(t, '/models', { method: 'GET', headers: { Accept: 'application/json' } }, exchange);
    const text = await readBounded(res, MAX_LIST_BYTES, exchange, t, 'whole');
    if (looksLikeHtml(res.headers.get('content-type'), text.slice(0, 100))) throw htmlError(t);
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      data = undefined;
    }
    if (!Array.isArray(data)) throw notACompletion(t, 'its model list (GET /models) has no data[] array');
    return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id.length <= 500);
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

/**
 * Checks the address, the key and the model with the model list and a one-token answer, timed; the
 * whole test within `timeoutMs` (default 120 s), whatever the server sends meanwhile.
 */
export async function testConnection(opts: OpenAiLlmOptions): Promise<ConnectionTest> {
  const budget = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const t0 = performance.now();
  const models = await listModels(opts.baseUrl, opts.apiKey, opts.fetch, Math.min(LIST_TIMEOUT_MS, budget));
  const left = Math.max(1, budget - (performance.now() - t0));
  const llm = new OpenAiCompatibleLlm({ ...opts, timeoutMs: left, stallMs: left });
  const t1 = performance.now();
  let first: number | undefined;
  await llm.generate([{ role: 'user', text: 'Say hello.' }], {
    maxTokens: 1,
    temperature: 0,
    onText: () => (first ??= performance.now() - t1),
  });
  const ms = first ?? performance.now() - t1;
  return { models, firstTokenMs: Math.round(ms * 10) / 10 };
}
