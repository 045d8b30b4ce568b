/**
 * What every language model shares: the interface the pipeline talks to and the shapes it passes.
 * Types only, so the engines (llm.ts, openai-llm.ts, llm-fallback.ts) and their users import them
 * from one place instead of from each other.
 */
import type { LlmProvider } from '../settings/schema';
import type { ToolCall, ToolRound, ToolSpec } from './tool-calls';

export type LlmBackend = 'cuda' | 'vulkan' | 'metal' | 'cpu';

export interface LlmInfo {
  id: string;
  /** 'server': an OpenAI-compatible server runs the model (openai-llm.ts); the GPU fields are then empty. */
  backend: LlmBackend | 'server';
  gpuDevices: string[];
  /** Set when auto-detection found only a software GPU (llvmpipe and friends) and chose the CPU. */
  softwareGpuSkipped?: string;
  /** Why the model runs on the CPU although a GPU backend loaded (no device, only software ones, no layer offloaded); shown in the Models panel. */
  cpuReason?: string;
  gpuLayers: number;
  totalLayers: number;
  contextSize: number;
  /** A local model's weights are mapped from the file (false: read into memory; absent for a server). */
  mappedWeights?: boolean;
  loadMs: number;
  warmUpMs: number;
}

/** Which model answered a turn, whether the local one stood in for the server, and why. */
export interface LlmRoute {
  provider: LlmProvider;
  /** The server failed or was too slow before its first token, and the local model answered. */
  fallback: boolean;
  /** The server's error (null when none): also set when the local model then answered. */
  error: string | null;
}

export interface GenerateOptions {
  signal?: AbortSignal;
  maxTokens: number;
  temperature: number;
  onText: (delta: string) => void;
  /** Which model answers, once that is settled (a server with a local fallback says; see llm-fallback.ts). */
  onRoute?: (route: LlmRoute) => void;
  /**
   * Tools the model may ask for: the server's `tools`, the local model's node-llama-cpp functions
   * (none when its chat format has no call syntax). With `callTool`, the engine runs the calls
   * through it and goes on writing the answer with their results, up to `maxToolRounds` rounds;
   * without, a request for tools ends the answer with `toolCalls`.
   */
  tools?: readonly ToolSpec[];
  /** Runs one call; its result is text for the model (a failure is said in it, not thrown). */
  callTool?: (call: ToolCall) => Promise<string>;
  /** Rounds of calls per answer (default 3); after them the model must answer with what it has. */
  maxToolRounds?: number;
  /** The rounds of tool calls this answer has already run, sent after the user's message (the engines' own loop). */
  toolRounds?: readonly ToolRound[];
}

export interface GenerateResult {
  text: string;
  /**
   * node-llama-cpp's reason: 'eogToken', 'maxTokens', 'abort'...; 'toolCalls' when the model asked
   * for tools; 'toolRounds' when it called again after the last round; 'toolCallFailed' when the
   * local model wrote a call that could not be used (a notice for the user ends the text).
   */
  stopReason: string;
  /** The calls the model asked for (only when tools were offered), whole and checked. */
  toolCalls?: ToolCall[];
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
  /**
   * On an assistant message: the rounds of tool calls the answer ran before (and while) saying
   * `text`, so the next turn knows what was done. Each engine renders them as its provider expects.
   */
  tools?: readonly ToolRound[];
}

/** A language model with no memory of its own: each call is given the whole conversation. */
export interface LanguageModel {
  readonly info: LlmInfo;
  /** Answers the last message, the user's, given the messages before it. */
  generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult>;
  /** How many tokens `text` takes in this model (keeping the history within the context). */
  countTokens(text: string): number;
  /**
   * Where the model runs here: evaluates the conversation and the user's words so far ahead of the
   * answer (the last message, the user's, left open), so that the end of the turn leaves only its last
   * words to evaluate. Any answer asked for stops it. Absent for a server, which has no lasting context here.
   */
  prefill?(messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): Promise<void>;
  /** Tokens evaluated (prompt) and generated so far, where the engine counts them (the local model). */
  tokenUsage?(): { input: number; output: number };
  dispose(): Promise<void>;
}
