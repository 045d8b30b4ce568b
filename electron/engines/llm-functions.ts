/**
 * Tool calls for the local model, through node-llama-cpp's function calling: the tools as its
 * functions (their JSON Schema cut down to what its grammar takes), the rounds already run as its
 * function-call history items, the room their description takes in the context, and the loop that
 * runs the rounds of one answer.
 */
import {
  LlamaText,
  type ChatHistoryItem,
  type ChatModelFunctionCall,
  type ChatModelFunctions,
  type ChatModelResponse,
  type ChatWrapper,
  type GbnfJsonSchema,
  type LLamaChatContextShiftOptions,
  type LlamaChat,
  type LlamaChatResponse,
} from 'node-llama-cpp';
import type { GenerateOptions, GenerateResult } from './llm-types';
import { MAX_TOOL_ROUNDS, type ToolCall, type ToolRound, type ToolSpec } from './tool-calls';

/** Said when a call the model wrote could not be used (cut off, or not what its grammar allows). */
export const TOOL_FAILED_NOTICE = ' Sorry, I could not use a tool for that.';

/**
 * Spoken answers never think first: a reasoning model's thought segment costs the listener its
 * whole length in silence before the first word. A budget of 0 keeps the segment from opening.
 */
export const NO_THINKING = { thoughtTokens: 0 } as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isLiteral = (v: unknown): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
const FORMATS = new Set(['date-time', 'time', 'date']);
/** A schema nested deeper than this is taken as any value (a tool's schema is a few levels deep). */
const MAX_DEPTH = 16;
/** JSON Schema's `{}`: the grammar has no "any" keyword, so spell it out. */
const ANY: GbnfJsonSchema = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };
const FREE_OBJECT: GbnfJsonSchema = { type: 'object', additionalProperties: true };

/**
 * A JSON Schema as node-llama-cpp's grammar takes it. Keywords it cannot take (pattern, minimum,
 * allOf, $ref, title, default...) are dropped rather than failing the tool: the model may then
 * write a value the tool refuses, which the tool says in its result. Note that the grammar makes
 * every listed property required.
 */
export function grammarSchema(schema: unknown, depth = 0): GbnfJsonSchema {
  if (!isObject(schema) || depth > MAX_DEPTH) return ANY;
  const about = typeof schema.description === 'string' ? { description: schema.description } : {};
  if ('const' in schema && isLiteral(schema.const)) return { const: schema.const, ...about };
  const values = Array.isArray(schema.enum) ? schema.enum.filter(isLiteral) : [];
  if (values.length) return { enum: values, ...about };
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : [];
  if (alternatives.length) return { oneOf: alternatives.map((a) => grammarSchema(a, depth + 1)), ...about };
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return grammarSchema({ ...about, ...schema.allOf[0] }, depth + 1);
  const implied = schema.properties ? 'object' : schema.items ? 'array' : undefined;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type ?? implied]).filter((t): t is string => typeof t === 'string' && TYPES.has(t));
  if (!types.length) return ANY;
  const each = [...new Set(types)].map((t) => typed(schema, t, depth));
  return each.length === 1 ? { ...each[0]!, ...about } : { oneOf: each, ...about };
}

function typed(schema: Json, type: string, depth: number): GbnfJsonSchema {
  if (type === 'object') {
    const props = isObject(schema.properties) ? Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, grammarSchema(v, depth + 1)])) : undefined;
    const extra = schema.additionalProperties;
    // Without properties, JSON Schema allows any; with them, only those are offered to the model.
    const additional = isObject(extra) ? grammarSchema(extra, depth + 1) : extra === true || (extra === undefined && !props) ? true : undefined;
    const min = count(schema.minProperties);
    const max = count(schema.maxProperties);
    return {
      type: 'object',
      ...(props ? { properties: props } : {}),
      ...(additional !== undefined ? { additionalProperties: additional } : {}),
      ...(min !== undefined ? { minProperties: min } : {}),
      ...(max !== undefined ? { maxProperties: max } : {}),
    };
  }
  if (type === 'array') {
    // Draft 7 wrote tuples as `items: [...]`; 2020-12 as `prefixItems`.
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    const min = count(schema.minItems);
    const max = count(schema.maxItems);
    return {
      type: 'array',
      ...(isObject(schema.items) ? { items: grammarSchema(schema.items, depth + 1) } : {}),
      ...(prefix ? { prefixItems: prefix.map((p) => grammarSchema(p, depth + 1)) } : {}),
      ...(min !== undefined ? { minItems: min } : {}),
      ...(max !== undefined ? { maxItems: max } : {}),
    };
  }
  if (type === 'string') {
    if (typeof schema.format === 'string' && FORMATS.has(schema.format)) return { type: 'string', format: schema.format as 'date-time' | 'time' | 'date' };
    const min = count(schema.minLength);
    const max = count(schema.maxLength);
    return { type: 'string', ...(min !== undefined ? { minLength: min } : {}), ...(max !== undefined ? { maxLength: max } : {}) };
  }
  return { type: type as 'number' | 'integer' | 'boolean' | 'null' };
}

/** The tools as node-llama-cpp functions; the parameters are always an object, as a ToolCall's arguments are. */
export function toFunctions(tools: readonly ToolSpec[]): ChatModelFunctions {
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const t of tools) {
    // node-llama-cpp refuses the whole set over one name with white space in it.
    if (!t.name || /\s/.test(t.name)) continue;
    const params = grammarSchema(t.parameters);
    functions[t.name] = { description: t.description, params: 'type' in params && params.type === 'object' ? params : FREE_OBJECT };
  }
  return functions;
}

/** A call's arguments as params; text that is not a JSON object gives {}. */
export function parseArguments(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Rounds of calls as function-call items of a model response, each call followed by its result. */
export function functionCallItems(rounds: readonly ToolRound[]): ChatModelFunctionCall[] {
  return rounds.flatMap((r) =>
    r.calls.map((c, i) => ({
      type: 'functionCall' as const,
      name: c.name,
      params: parseArguments(c.arguments),
      result: r.results.find((x) => x.id === c.id)?.content ?? 'error: no result',
      // Parallel-calling formats put each round in a section of its own.
      startsNewChunk: i === 0,
    })),
  );
}

/**
 * Text that starts a call in this chat format, to stop on when no more calls may run (the call
 * syntax, spoken, would be noise). None for a format without a call syntax: it gets no tools.
 */
export function callPrefixes(wrapper: ChatWrapper): LlamaText[] {
  const call = wrapper.settings.functions.call;
  const section = wrapper.settings.functions.parallelism?.call.sectionPrefix;
  return [call.prefix, ...(call.prefixAlternateMatches ?? []), ...(section ? [section] : [])]
    .map((p) => LlamaText(p))
    .filter((p) => p.toString().trim() !== '');
}

/**
 * node-llama-cpp's default context shift measures the history without the functions' description,
 * which the prompt carries too, and throws when the result then does not fit. This one drops the
 * oldest exchanges (the first system message stays) until the prompt, description included, fits.
 */
function shiftWith(functions: ChatModelFunctions): NonNullable<LLamaChatContextShiftOptions['strategy']> {
  return ({ chatHistory, maxTokensCount, tokenizer, chatWrapper }) => {
    const fits = (h: ChatHistoryItem[]) => chatWrapper.generateContextState({ chatHistory: h, availableFunctions: functions }).contextText.tokenize(tokenizer).length <= maxTokensCount;
    const history = [...chatHistory];
    const keep = history[0]?.type === 'system' ? 1 : 0;
    // The question and the answer being written stay; an exchange goes whole.
    while (history.length > keep + 2 && !fits(history)) {
      history.splice(keep, 1);
      while (history.length > keep + 2 && history[keep]?.type !== 'user') history.splice(keep, 1);
    }
    return { chatHistory: history };
  };
}

/**
 * Whether the question and the answer fit beside the functions' description at all: node-llama-cpp
 * throws on a prompt that cannot fit, so a context too small for the tools answers without them.
 * A tenth of the context is kept free, as node-llama-cpp's context shift wants.
 */
export function roomFor(chat: LlamaChat, history: readonly ChatHistoryItem[], functions: ChatModelFunctions, maxTokens: number): boolean {
  const system = history[0]?.type === 'system' ? [history[0]] : [];
  const question = [...history].reverse().find((h) => h.type === 'user');
  const least: ChatHistoryItem[] = [...system, ...(question ? [question] : []), { type: 'model', response: [] }];
  const prompt = chat.chatWrapper.generateContextState({ chatHistory: least, availableFunctions: functions }).contextText.tokenize(chat.model.tokenizer);
  return prompt.length + maxTokens <= chat.context.contextSize * 0.9;
}

/**
 * Errors node-llama-cpp throws on a call it cannot parse (a name or params outside the grammar).
 * Its error class is not exported, so its messages are matched too; other errors stay errors.
 */
function isCallError(e: unknown): boolean {
  return e instanceof Error && (e.constructor.name === 'LlamaFunctionCallValidationError' || /\bfunction (call|name)\b|is not provided in the functions object/i.test(e.message));
}

/** Resolves with the call's result, or undefined as soon as the answer is aborted. */
function untilAborted(result: Promise<string>, signal: AbortSignal | undefined): Promise<string | undefined> {
  if (!signal) return result;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
    result.then(
      (r) => {
        signal.removeEventListener('abort', stop);
        resolve(r);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(e);
      },
    );
  });
}

/** The history with items added to its last model response (copied: node-llama-cpp may keep the one it returned). */
function withResponse(history: ChatHistoryItem[], items: ChatModelResponse['response']): ChatHistoryItem[] {
  const last = history[history.length - 1];
  if (last?.type !== 'model') return [...history, { type: 'model', response: [...items] }];
  return [...history.slice(0, -1), { type: 'model', response: [...last.response, ...items] }];
}

/**
 * One answer with functions offered. With `callTool`, each round of calls is run (one call after
 * another, through the turn's signal) and the answer goes on with their results, at most
 * `maxToolRounds` rounds; the request after those offers none and stops where the model starts
 * another call. Without `callTool`, the calls the model asks for end the answer, run by no one.
 * `history` ends with the user's message (and any rounds already run, as a model response).
 * Returns the history node-llama-cpp evaluated last.
 */
export async function answerWithFunctions(
  chat: LlamaChat,
  start: ChatHistoryItem[],
  tools: readonly ToolSpec[],
  opts: GenerateOptions,
): Promise<{ result: GenerateResult; history: ChatHistoryItem[] }> {
  const functions = toFunctions(tools);
  const run = opts.callTool;
  const maxRounds = run ? Math.max(0, opts.maxToolRounds ?? MAX_TOOL_ROUNDS) : 1;
  const stops = callPrefixes(chat.chatWrapper);
  const strategy = shiftWith(functions);
  const room = Object.keys(functions).length > 0 && roomFor(chat, start, functions, opts.maxTokens);
  let history = start;
  let previous: LlamaChatResponse['lastEvaluation'] | undefined;
  let text = '';
  let ids = (opts.toolRounds ?? []).reduce((n, r) => n + r.calls.length, 0);
  const done = (stopReason: string, toolCalls?: ToolCall[]) => ({ result: { text, stopReason, ...(toolCalls ? { toolCalls } : {}) }, history });
  const failed = () => {
    if (!opts.signal?.aborted) {
      const notice = text.trim() ? TOOL_FAILED_NOTICE : TOOL_FAILED_NOTICE.trimStart();
      text += notice;
      opts.onText(notice);
    }
    return done(opts.signal?.aborted ? 'abort' : 'toolCallFailed');
  };
  for (let round = 0; ; round++) {
    const offer = room && round < maxRounds;
    // A call begun but not finished (its params still coming when maxTokens ran out).
    let open = false;
    let r: LlamaChatResponse<ChatModelFunctions>;
    try {
      r = await chat.generateResponse<ChatModelFunctions>(history, {
        signal: opts.signal,
        stopOnAbortSignal: true,
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        budgets: NO_THINKING,
        onTextChunk: (chunk) => {
          if (opts.signal?.aborted) return;
          text += chunk;
          opts.onText(chunk);
        },
        ...(previous ? { lastEvaluationContextWindow: { history: previous.contextWindow } } : {}),
        contextShift: { ...(offer ? { strategy } : {}), ...(previous ? { lastEvaluationMetadata: previous.contextShiftMetadata } : {}) },
        // Offering none changes the prompt (the functions are described in it), so the whole
        // history is evaluated again: only after the last round, as tool_choice none on a server.
        ...(offer ? { functions, onFunctionCallParamsChunk: (c) => void (open = !c.done) } : { customStopTriggers: stops }),
      });
    } catch (e) {
      if (opts.signal?.aborted) return done('abort');
      if (isCallError(e)) return failed();
      throw e;
    }
    history = r.lastEvaluation.cleanHistory;
    if (opts.signal?.aborted || r.metadata.stopReason === 'abort') return done('abort');
    const calls = r.functionCalls ?? [];
    if (!calls.length) {
      if (open) return failed();
      // Stopped where it began a call after the last round: the answer is what it said.
      return done(r.metadata.stopReason === 'customStopTrigger' ? 'toolRounds' : r.metadata.stopReason);
    }
    const asked: ToolCall[] = calls.map((c) => ({ id: `call_${ids++}`, name: c.functionName, arguments: JSON.stringify(isObject(c.params) ? c.params : {}) }));
    if (!run) return done('toolCalls', asked);
    const results: string[] = [];
    for (const call of asked) {
      const content = opts.signal?.aborted ? undefined : await untilAborted(run(call), opts.signal);
      if (content === undefined) return done('abort');
      results.push(content);
    }
    const items = calls.map((c, i): ChatModelFunctionCall => ({ type: 'functionCall', name: c.functionName, params: c.params, result: results[i], rawCall: c.raw, startsNewChunk: i === 0 }));
    history = withResponse(history, items);
    previous = { ...r.lastEvaluation, contextWindow: withResponse(r.lastEvaluation.contextWindow, items) };
  }
}
