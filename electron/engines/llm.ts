import os from 'node:os';
import { getLlama, LlamaChatSession, LlamaLogLevel, type Llama, type LlamaContext, type LlamaModel, type ChatHistoryItem } from 'node-llama-cpp';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import type { ChatMessage, GenerateOptions, GenerateResult, LanguageModel, LlmBackend, LlmInfo } from './llm-types';
// TEMPORARY: for electron/pipeline/ until its imports name llm-types.ts.

export interface LlmOptions {
  /** Evaluated at load, so the first turn (whose history starts with it) does not pay for it. */
  systemPrompt: string;
  gpu: 'auto' | LlmBackend;
  gpuLayers: 'auto' | number;
  contextSize: number;
  /** 0 lets llama.cpp choose. */
  threads: number;
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

/**
 * One llama.cpp backend per `gpu` choice for the whole process: starting one costs seconds (its
 * binaries are loaded and probed), and every models reload (a settings change) would pay it again.
 * Models and contexts are loaded and freed per engine; the backend is shared and never disposed.
 */
const backends = new Map<LlmOptions['gpu'], Promise<{ llama: Llama; skipped?: string }>>();

export function pickBackend(gpu: LlmOptions['gpu']): Promise<{ llama: Llama; skipped?: string }> {
  let backend = backends.get(gpu);
  if (!backend) {
    backend = startBackend(gpu);
    backends.set(gpu, backend);
    // A failure is not kept: the next load tries again (a driver installed meanwhile, say).
    backend.catch(() => backends.delete(gpu));
  }
  return backend;
}

async function startBackend(gpu: LlmOptions['gpu']): Promise<{ llama: Llama; skipped?: string }> {
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

function historyItem(m: ChatMessage): ChatHistoryItem {
  return m.role === 'assistant' ? { type: 'model', response: [m.text] } : { type: m.role, text: m.text };
}

/**
 * node-llama-cpp with streaming and cancellation. It keeps one chat session only to reuse its
 * context sequence: the evaluated tokens that a new history shares with the last one (the system
 * prompt and the exchanges before) are not evaluated again.
 */
export class LlamaEngine implements LanguageModel {
  private readonly session: LlamaChatSession;

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    opts: LlmOptions,
    readonly info: LlmInfo,
  ) {
    // The default context shift drops the oldest turns should one history still overflow.
    this.session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: opts.systemPrompt });
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
    const engine = new LlamaEngine(model, context, opts, info);
    await engine.warmUp();
    return engine;
  }

  /** Evaluates the system prompt now, so the first user turn does not pay for it. */
  private async warmUp(): Promise<void> {
    const t0 = performance.now();
    await this.session.preloadPrompt('');
    this.info.warmUpMs = performance.now() - t0;
  }

  async generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    const last = messages[messages.length - 1];
    if (last?.role !== 'user') throw new Error('the conversation must end with a user message');
    this.session.setChatHistory(messages.slice(0, -1).map(historyItem));
    let result;
    try {
      result = await this.session.promptWithMeta(last.text, {
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

  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  async dispose(): Promise<void> {
    this.session.dispose();
    await this.context.dispose();
    await this.model.dispose();
    // The backend is shared by every engine of this process (pickBackend).
  }
}
