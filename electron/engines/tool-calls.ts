/**
 * Tool calls as language models ask for them (OpenAI's chat completions `tools` / `tool_calls`,
 * which Ollama, LM Studio, llama.cpp's server and vLLM speak too): the shapes passed between the
 * pipeline and the engines, and the assembly of a streamed call, whose id, name and arguments arrive
 * in pieces spread over many chunks. Pure; nothing a server sends is trusted: the number of calls,
 * the name and the arguments' size are bounded, and the arguments must be a JSON object.
 */

/** A tool the model may call: its name, what it does, and its parameters as a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One call the model asked for; `arguments` is the JSON object's text, as the model wrote it. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One round of an answer that called tools: what the model asked, and what each call returned (by id). */
export interface ToolRound {
  calls: ToolCall[];
  results: { id: string; content: string }[];
}

/** Rounds of tool calls in one answer (issue 27); then the model answers with what it has. */
export const MAX_TOOL_ROUNDS = 3;

export const TOOL_CALL_LIMITS = {
  /** Calls in one answer: models ask for one or two; a server that streams hundreds is broken. */
  calls: 8,
  nameChars: 64,
  /** One call's arguments (a note's text, a URL): far more than a spoken request needs. */
  argumentChars: 64 * 1024,
} as const;

/** What was wrong with the calls a server sent, in words for the "the server's answer was broken" line. */
export class ToolCallProblem extends Error {}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

interface Slot {
  id: string;
  name: string;
  arguments: string;
}

/** Collects the `tool_calls` of one answer's chunks; `finish()` gives the whole calls. */
export class ToolCallAssembler {
  private readonly slots: Slot[] = [];

  /** Whether any call has begun. */
  get started(): boolean {
    return this.slots.length > 0;
  }

  /** One chunk's `tool_calls` (a delta's or a whole message's); returns whether it added anything. */
  push(toolCalls: unknown): boolean {
    if (toolCalls === undefined || toolCalls === null) return false;
    if (!Array.isArray(toolCalls)) throw new ToolCallProblem('its tool_calls is not a list');
    let added = false;
    for (const raw of toolCalls) {
      if (typeof raw !== 'object' || raw === null) throw new ToolCallProblem('a tool call is not an object');
      const part = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const slot = this.slotFor(part);
      if (typeof part.id === 'string' && part.id && !slot.id) slot.id = part.id.slice(0, 128);
      const name = part.function?.name;
      if (typeof name === 'string' && name) {
        slot.name += name;
        if (slot.name.length > TOOL_CALL_LIMITS.nameChars) throw new ToolCallProblem(`a tool's name is longer than ${TOOL_CALL_LIMITS.nameChars} characters`);
        added = true;
      }
      const args = part.function?.arguments;
      // Some servers send the arguments as an object rather than its text.
      const text = typeof args === 'string' ? args : args !== undefined && args !== null ? JSON.stringify(args) : '';
      if (text) {
        slot.arguments += text;
        if (slot.arguments.length > TOOL_CALL_LIMITS.argumentChars) {
          throw new ToolCallProblem(`the arguments of "${slot.name.slice(0, 64)}" went on past ${TOOL_CALL_LIMITS.argumentChars / 1024} kB`);
        }
        added = true;
      }
    }
    return added;
  }

  /** The calls, in order; each with a valid name and a JSON object for arguments ('' counts as {}). */
  finish(): ToolCall[] {
    return this.slots.map((s, i) => {
      if (!TOOL_NAME.test(s.name)) throw new ToolCallProblem(s.name ? `it asked for a tool with an invalid name (${JSON.stringify(s.name.slice(0, 64))})` : 'it asked for a tool call without a name');
      const text = s.arguments.trim() || '{}';
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ToolCallProblem(`the arguments of "${s.name}" are not JSON (${JSON.stringify(text.slice(0, 60))})`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ToolCallProblem(`the arguments of "${s.name}" are not a JSON object`);
      return { id: s.id || `call_${i}`, name: s.name, arguments: text };
    });
  }

  /**
   * The call a piece belongs to: by its `index` (OpenAI streams), else a new one when it names a
   * tool or brings an id not seen (servers that send each call whole), else the last one.
   */
  private slotFor(part: { index?: unknown; id?: unknown; function?: { name?: unknown } }): Slot {
    let at: number;
    if (typeof part.index === 'number') {
      if (!Number.isInteger(part.index) || part.index < 0 || part.index >= TOOL_CALL_LIMITS.calls) {
        throw new ToolCallProblem(`it sent a tool call numbered ${String(part.index).slice(0, 20)} (at most ${TOOL_CALL_LIMITS.calls} calls are taken)`);
      }
      at = part.index;
    } else {
      const last = this.slots[this.slots.length - 1];
      const startsNew = !last || (typeof part.function?.name === 'string' && part.function.name !== '' && last.name !== '') || (typeof part.id === 'string' && part.id !== '' && part.id !== last.id && last.id !== '');
      at = startsNew ? this.slots.length : this.slots.length - 1;
      if (at >= TOOL_CALL_LIMITS.calls) throw new ToolCallProblem(`it asked for more than ${TOOL_CALL_LIMITS.calls} tool calls in one answer`);
    }
    while (this.slots.length <= at) this.slots.push({ id: '', name: '', arguments: '' });
    return this.slots[at]!;
  }
}

/** The request's `tools`, as chat completions take them. */
export function toolsForRequest(tools: readonly ToolSpec[]): unknown[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** The messages that follow the user's for the rounds already run: the model's calls, then each result. */
export function roundMessages(rounds: readonly ToolRound[]): unknown[] {
  return rounds.flatMap((r) => [
    { role: 'assistant', content: null, tool_calls: r.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) },
    ...r.results.map((x) => ({ role: 'tool', tool_call_id: x.id, content: x.content })),
  ]);
}
