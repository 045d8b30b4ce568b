import os from 'node:os';
import { getLlama, LlamaChatSession, LlamaLogLevel, type Llama, type LlamaContext, type LlamaModel, type ChatHistoryItem } from 'node-llama-cpp';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';

export type LlmBackend = 'cuda' | 'vulkan' | 'metal' | 'cpu';

export interface LlmOptions {
  systemPrompt: string;
  gpu: 'auto' | LlmBackend;
  gpuLayers: 'auto' | number;
  contextSize: number;
  /** 0 lets llama.cpp choose. */
  threads: number;
}

export interface LlmInfo {
  id: string;
  backend: LlmBackend;
  gpuDevices: string[];
  /** Set when auto-detection found only a software GPU (llvmpipe and friends) and chose the CPU. */
  softwareGpuSkipped?: string;
  gpuLayers: number;
  totalLayers: number;
  contextSize: number;
  loadMs: number;
  warmUpMs: number;
}

export interface GenerateOptions {
  signal?: AbortSignal;
  maxTokens: number;
  temperature: number;
  onText: (delta: string) => void;
}

export interface GenerateResult {
  text: string;
  /** node-llama-cpp's reason: 'eogToken', 'maxTokens', 'abort'... */
  stopReason: string;
}

export interface LanguageModel {
  readonly info: LlmInfo;
  generate(userText: string, opts: GenerateOptions): Promise<GenerateResult>;
  /** Replaces the last reply in history with what the user actually heard (barge-in). */
  replaceLastReply(text: string, interrupted: boolean): void;
  /** Drops the last user message and reply (a turn the user continued before hearing the answer). */
  dropLastExchange(): void;
  resetConversation(): Promise<void>;
  setSystemPrompt(prompt: string): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * llama.cpp's own default takes every core, which starves the audio path (VAD, STT, TTS) and, on
 * small machines, made generation many times slower here. Leave one core free.
 */
function autoThreads(): number {
  return Math.max(1, Math.min(8, os.availableParallelism() - 1));
}

/** Vulkan drivers that are the CPU in disguise: slower than llama.cpp's own CPU backend. */
const SOFTWARE_GPU = /llvmpipe|lavapipe|softpipe|swiftshader|microsoft basic render/i;

export async function pickBackend(gpu: LlmOptions['gpu']): Promise<{ llama: Llama; skipped?: string }> {
  const common = { build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false } as const;
  if (gpu === 'cpu') return { llama: await getLlama({ ...common, gpu: false }) };
  const llama = await getLlama({ ...common, gpu });
  if (gpu === 'auto' && llama.gpu !== false) {
    const names = await llama.getGpuDeviceNames();
    const soft = names.find((n) => SOFTWARE_GPU.test(n));
    if (soft && names.every((n) => SOFTWARE_GPU.test(n))) {
      await llama.dispose();
      return { llama: await getLlama({ ...common, gpu: false }), skipped: soft };
    }
  }
  return { llama };
}

/** node-llama-cpp chat session with streaming, cancellation and a bounded context. */
export class LlamaEngine implements LanguageModel {
  private session: LlamaChatSession;
  private systemPrompt: string;

  private constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    opts: LlmOptions,
    readonly info: LlmInfo,
  ) {
    this.systemPrompt = opts.systemPrompt;
    this.session = this.newSession();
  }

  static async load(resolved: ResolvedModel, opts: LlmOptions): Promise<LlamaEngine> {
    const spec = resolved.entry.engine;
    if (spec.engine !== 'llama-gguf') throw new Error(`${resolved.entry.id} is not a GGUF model`);
    const modelPath = resolved.paths[spec.model];
    if (!modelPath) throw new Error(`catalog entry ${resolved.entry.id} names no model file`);
    const t0 = performance.now();
    let llama: Llama;
    let skipped: string | undefined;
    try {
      ({ llama, skipped } = await pickBackend(opts.gpu));
    } catch (e) {
      throw new UserError(
        `The LLM backend '${opts.gpu}' is not available on this machine (${(e as Error).message}). Set llm.gpu to "auto" or "cpu".`,
        'llm-backend',
      );
    }
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath, gpuLayers: opts.gpuLayers });
    } catch (e) {
      await llama.dispose();
      throw new UserError(
        `Could not load the language model '${resolved.entry.id}' from ${modelPath}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
    const contextSize = Math.min(opts.contextSize, model.trainContextSize);
    const context = await model.createContext({ contextSize, threads: opts.threads > 0 ? opts.threads : autoThreads() });
    const backend: LlmBackend = llama.gpu === false ? 'cpu' : llama.gpu;
    const info: LlmInfo = {
      id: resolved.entry.id,
      backend,
      gpuDevices: llama.gpu === false ? [] : await llama.getGpuDeviceNames(),
      ...(skipped ? { softwareGpuSkipped: skipped } : {}),
      gpuLayers: model.gpuLayers,
      totalLayers: model.fileInsights.totalLayers,
      contextSize: context.contextSize,
      loadMs: performance.now() - t0,
      warmUpMs: 0,
    };
    const engine = new LlamaEngine(llama, model, context, opts, info);
    await engine.warmUp();
    return engine;
  }

  private newSession(): LlamaChatSession {
    const sequence = this.context.getSequence();
    // The default context shift keeps the system prompt and drops the oldest turns on overflow.
    return new LlamaChatSession({ contextSequence: sequence, systemPrompt: this.systemPrompt });
  }

  /** Evaluates the system prompt now, so the first user turn does not pay for it. */
  private async warmUp(): Promise<void> {
    const t0 = performance.now();
    await this.session.preloadPrompt('');
    this.info.warmUpMs = performance.now() - t0;
  }

  async generate(userText: string, opts: GenerateOptions): Promise<GenerateResult> {
    this.trimHistory();
    let result;
    try {
      result = await this.session.promptWithMeta(userText, {
        signal: opts.signal,
        stopOnAbortSignal: true,
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        onTextChunk: (chunk) => {
          if (!opts.signal?.aborted) opts.onText(chunk);
        },
      });
    } catch (e) {
      // An abort that lands during prompt evaluation rejects despite stopOnAbortSignal.
      if (opts.signal?.aborted) return { text: '', stopReason: 'abort' };
      throw e;
    }
    return { text: result.responseText, stopReason: result.stopReason };
  }

  replaceLastReply(text: string, interrupted: boolean): void {
    const history = this.session.getChatHistory();
    const last = history[history.length - 1];
    if (last?.type !== 'model') return;
    const heard: ChatHistoryItem = { type: 'model', response: [interrupted ? `${text}…` : text] };
    this.session.setChatHistory([...history.slice(0, -1), heard]);
  }

  /**
   * Keeps a long conversation from growing without end: once the history passes half the context,
   * the oldest exchanges are dropped until it fits in a quarter (the system prompt stays). Cutting
   * well below the trigger means the history is re-evaluated from scratch only now and then, not on
   * every turn.
   */
  private trimHistory(): void {
    const history = this.session.getChatHistory();
    const tokens = (h: ChatHistoryItem) => {
      const text = h.type === 'model' ? h.response.filter((r) => typeof r === 'string').join('') : typeof h.text === 'string' ? h.text : JSON.stringify(h.text);
      // A few tokens of chat-template framing per message.
      return this.model.tokenize(text).length + 8;
    };
    const sizes = history.map(tokens);
    let total = sizes.reduce((a, b) => a + b, 0);
    const size = this.context.contextSize;
    if (total <= size / 2) return;
    const first = history[0]?.type === 'system' ? 1 : 0;
    let cut = first;
    // Whole exchanges only (a user message and the reply to it), oldest first.
    while (cut < history.length && total > size / 4) {
      total -= sizes[cut]!;
      cut++;
      if (history[cut]?.type === 'model') {
        total -= sizes[cut]!;
        cut++;
      }
    }
    this.session.setChatHistory([...history.slice(0, first), ...history.slice(cut)]);
  }

  /** The conversation as the model will see it next (diagnostics and tests). */
  chatHistory(): { role: 'system' | 'user' | 'model'; text: string }[] {
    return this.session.getChatHistory().map((h) =>
      h.type === 'system' ? { role: 'system', text: typeof h.text === 'string' ? h.text : JSON.stringify(h.text) } : h.type === 'user' ? { role: 'user', text: h.text } : { role: 'model', text: h.response.filter((r) => typeof r === 'string').join('') },
    );
  }

  dropLastExchange(): void {
    const history = this.session.getChatHistory();
    let cut = history.length;
    if (history[cut - 1]?.type === 'model') cut--;
    if (history[cut - 1]?.type === 'user') cut--;
    this.session.setChatHistory(history.slice(0, cut));
  }

  async resetConversation(): Promise<void> {
    this.session.resetChatHistory();
    await this.warmUp();
  }

  async setSystemPrompt(prompt: string): Promise<void> {
    if (prompt === this.systemPrompt) return;
    this.systemPrompt = prompt;
    const history = this.session.getChatHistory().filter((h) => h.type !== 'system');
    this.session.setChatHistory([{ type: 'system', text: prompt }, ...history]);
    await this.session.preloadPrompt('');
  }

  async dispose(): Promise<void> {
    this.session.dispose();
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}
