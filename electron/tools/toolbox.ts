/**
 * The tools the language model may call in a turn, and running one call: its arguments parsed, the
 * tool found, run within `timeoutMs` and the turn's signal (a barge-in aborts it), and the result or
 * the failure given back to the model as text. Each call is recorded for the turn's report: name,
 * where the tool lives, when it ran and whether it worked. Arguments and results stay out of records.
 * A tool that changes something outside the app is not run from a model's call: the call becomes a
 * question to the user (pipeline/respond/confirmation.ts), and runs only once they say yes.
 */
import type { ToolCall, ToolRound, ToolSpec } from '../engines/tool-calls';
import type { ToolUseReport } from '../pipeline/report';

/** A tool: what the model is told, whether it changes anything outside the app (then it asks first), and its work. */
export interface Tool {
  spec: ToolSpec;
  /** 'built-in', or the MCP server's name. */
  server: string;
  /** Changes something outside the app's own folder: the user is asked before it runs. */
  changes: boolean;
  /**
   * Only reads (the clipboard, the notes, an MCP tool marked readOnlyHint): it may run for an answer
   * prepared during a pause, which may yet be dropped. Adding a note changes nothing outside the
   * app, but it writes: not read-only.
   */
  readOnly?: boolean;
  /** Switched on in settings (default: on). */
  enabled?: () => boolean;
  /** What a call would do, in words after "I'm about to" ("open example.com"); a tool that changes something should say. */
  describe?(args: Record<string, unknown>): string;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** One call as the turn report keeps it (`tools: [...]`, pipeline/report.ts); times on the pipeline clock. */
export type ToolUse = ToolUseReport;

/** A call to a tool that changes something, waiting for the user's yes. */
export interface ToolRequest {
  call: ToolCall;
  server: string;
  /** What it would do, in words ("open example.com"). */
  action: string;
}

/** What a report keeps of a call's arguments and result when texts are logged. */
export const KEPT_TEXT_CHARS = 200;

/** A result the model reads: never longer than this (a tool that returns a book is cut). */
export const MAX_RESULT_CHARS = 8000;

export class Toolbox {
  private readonly tools: () => readonly Tool[];

  constructor(
    tools: readonly Tool[] | (() => readonly Tool[]),
    /** `keepText`: the report keeps each call's arguments and result, cut at 200 characters (history.logText). */
    private readonly options: () => { timeoutMs: number; keepText?: boolean },
    private readonly now: () => number = () => performance.now(),
  ) {
    // A list that changes (an MCP server's tools come and go) is read afresh on every use.
    this.tools = typeof tools === 'function' ? tools : () => tools;
  }

  /** What the model is offered: every tool switched on (those that change something ask first). */
  get specs(): ToolSpec[] {
    return this.offered().map((t) => t.spec);
  }

  get empty(): boolean {
    return this.offered().length === 0;
  }

  private offered(): Tool[] {
    return this.tools().filter((t) => t.enabled?.() ?? true);
  }

  /** Whether `call` is to a tool that only reads (it may run for a prepared answer). */
  readsOnly(call: ToolCall): boolean {
    return this.offered().find((t) => t.spec.name === call.name)?.readOnly === true;
  }

  /**
   * The call as a question to the user when its tool changes something (null: it may run now, or
   * it cannot run at all and `call` says why). Arguments that are not a JSON object run nothing.
   */
  request(call: ToolCall): ToolRequest | null {
    const tool = this.offered().find((t) => t.spec.name === call.name);
    if (!tool?.changes) return null;
    const args = parseArgs(call.arguments);
    if (!args) return null;
    const action = tool.describe?.(args) ?? `use ${tool.spec.name}${tool.server === 'built-in' ? '' : ` from ${tool.server}`}`;
    return { call, server: tool.server, action: action.replace(/\s+/g, ' ').trim().slice(0, 200) };
  }

  /**
   * Runs a call the user said yes to (by voice or the window's Run): its round for the conversation
   * (the call under an id of its own, beside the one that asked) and the line that says how it went.
   */
  async runAgreed(request: ToolRequest, signal: AbortSignal | undefined, record: (use: ToolUse) => void): Promise<{ round: ToolRound; said: string }> {
    const call = { ...request.call, id: `${request.call.id}-confirmed` };
    let failed: string | null = null;
    const result = await this.call(call, signal, (use) => ((failed = use.ok ? null : use.error), record(use)), true);
    return {
      round: { calls: [call], results: [{ id: call.id, content: result }] },
      said: failed === null ? 'Done.' : `That did not work: ${String(failed).replace(/\.$/, '')}.`,
    };
  }

  /**
   * Runs one call; `record` hears of it when it ends. The result, or what went wrong, as text for the
   * model. A tool that changes something runs only with `confirmed` (the user said yes to it).
   */
  async call(call: ToolCall, signal: AbortSignal | undefined, record: (use: ToolUse) => void, confirmed = false): Promise<string> {
    const startMs = this.now();
    const tool = this.offered().find((t) => t.spec.name === call.name);
    const done = (ok: boolean, result: string, error: string | null): string => {
      const text = this.options().keepText ? { arguments: call.arguments.slice(0, KEPT_TEXT_CHARS), result: result.slice(0, KEPT_TEXT_CHARS) } : {};
      record({ name: call.name, server: tool?.server ?? 'unknown', ms: Math.round((this.now() - startMs) * 10) / 10, ok, error, startMs, ...text });
      return result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}… (cut)` : result;
    };
    if (!tool) return done(false, `error: there is no tool named ${call.name}`, 'no such tool');
    if (tool.changes && !confirmed) return done(false, 'error: the user has not agreed to this yet', 'not confirmed');
    const args = parseArgs(call.arguments);
    if (!args) return done(false, 'error: the arguments are not a JSON object', 'arguments not JSON');
    const timeoutMs = this.options().timeoutMs;
    // A timer of our own, not AbortSignal.timeout: that one does not keep the process alive, and a
    // tool that never settles would let `talk` exit mid-turn.
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(new Error(`it took longer than ${timeoutMs / 1000} s`)), timeoutMs);
    const both = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal;
    try {
      const result = await Promise.race([
        tool.run(args, both),
        new Promise<never>((_, reject) => {
          const stop = () => reject(both.reason instanceof Error ? both.reason : new Error('aborted'));
          if (both.aborted) stop();
          else both.addEventListener('abort', stop, { once: true });
        }),
      ]);
      return done(true, result, null);
    } catch (e) {
      const why = limit.signal.aborted ? `it took longer than ${timeoutMs / 1000} s` : signal?.aborted ? 'the turn was interrupted' : (e as Error).message.split('\n')[0]!.slice(0, 200);
      return done(false, `error: ${why}`, why);
    } finally {
      clearTimeout(timer);
    }
  }
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
