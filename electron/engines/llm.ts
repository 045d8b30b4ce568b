import os from 'node:os';
import { getLlama, LlamaChat, LlamaChatSession, LlamaLogLevel, type LlamaOptions, type ChatHistoryItem, type ChatWrapper, type Llama, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import { answerWithFunctions, callPrefixes, functionCallItems, NO_THINKING, roomFor, toFunctions } from './llm-functions';
import type { ChatMessage, GenerateOptions, GenerateResult, LanguageModel, LlmBackend, LlmInfo } from './llm-types';
import { withPlainForks } from './plain-forks';
import type { ToolSpec } from './tool-calls';

export interface LlmOptions {
  /** Evaluated at load, so the first turn (whose history starts with it) does not pay for it. */
  systemPrompt: string;
  gpu: 'auto' | LlmBackend;
  gpuLayers: 'auto' | number;
  contextSize: number;
  /** 0 lets llama.cpp choose. */
  threads: number;
  /** The chat format, function calls included; by default ('auto') node-llama-cpp reads it from the model. */
  chatWrapper?: 'auto' | ChatWrapper;
  /**
   * The tools answers will offer, described in the prompt at load with the system prompt: the first
   * answer with them then evaluates only its own tokens (the description is hundreds of tokens).
   */
  tools?: readonly ToolSpec[];
}

/**
 * llama.cpp's own default takes every core, which starves the audio path (VAD, STT, TTS) and, on
 * small machines, made generation many times slower here. Leave one core free.
 */
export function autoThreads(): number {
  return Math.max(1, Math.min(8, os.availableParallelism() - 1));
}

/** Vulkan drivers that are the CPU in disguise: slower than llama.cpp's own CPU backend. */
const SOFTWARE_GPU = /llvmpipe|lavapipe|softpipe|swiftshader|microsoft basic render/i;

/**
 * One llama.cpp backend per `gpu` choice for the whole process: starting one costs seconds (its
 * binaries are loaded and probed), and every models reload (a settings change) would pay it again.
 * Models and contexts are loaded and freed per engine; the backend is shared and never disposed.
 */
const backends = new Map<LlmOptions['gpu'], Promise<PickedBackend>>();

/** A llama.cpp backend; `skipped`/`cpuReason`: auto-detection found a GPU backend that is not one, and chose the CPU. */
export interface PickedBackend {
  llama: Llama;
  /** The software devices found, or the GPU backend that found none. */
  skipped?: string;
  /** Why the CPU runs the model although a GPU backend loaded, as the Models panel says it. */
  cpuReason?: string;
}

export function pickBackend(gpu: LlmOptions['gpu']): Promise<PickedBackend> {
  let backend = backends.get(gpu);
  if (!backend) {
    backend = startBackend(gpu);
    backends.set(gpu, backend);
    // A failure is not kept: the next load tries again (a driver installed meanwhile, say).
    backend.catch(() => backends.delete(gpu));
  }
  return backend;
}

const BACKEND_NAMES: Record<string, string> = { cuda: 'CUDA', vulkan: 'Vulkan', metal: 'Metal' };

/**
 * Why a GPU backend with these devices is the CPU in disguise, or null when it is a real GPU. A
 * backend with no device (Vulkan with only a software driver such as lavapipe lists none) or only
 * software renderers evaluates on the CPU, slower than llama.cpp's own CPU backend.
 */
export function notAGpu(backend: string, names: readonly string[]): { skipped: string; cpuReason: string } | null {
  const label = BACKEND_NAMES[backend] ?? backend;
  if (names.length === 0) return { skipped: `${backend} (no device)`, cpuReason: `${label} found no GPU device; the language model runs on the CPU.` };
  if (!names.every((n) => SOFTWARE_GPU.test(n))) return null;
  return { skipped: names.join(', '), cpuReason: `${label} found only a software renderer (${names.join(', ')}); the language model runs on the CPU.` };
}

async function startBackend(gpu: LlmOptions['gpu']): Promise<PickedBackend> {
  const common = { build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false } as const;
  const load = (options: LlamaOptions) => withPlainForks(() => getLlama(options));
  if (gpu === 'cpu') return { llama: await load({ ...common, gpu: false }) };
  const llama = await load({ ...common, gpu });
  if (gpu === 'auto' && llama.gpu !== false) {
    const why = notAGpu(llama.gpu, await llama.getGpuDeviceNames());
    if (why) {
      await llama.dispose();
      return { llama: await load({ ...common, gpu: false }), ...why };
    }
  }
  return { llama };
}

/** A message as node-llama-cpp takes it; an answer's tool calls come before its text, as they ran. */
export function historyItem(m: ChatMessage): ChatHistoryItem {
  if (m.role !== 'assistant') return { type: m.role, text: m.text };
  return { type: 'model', response: [...functionCallItems(m.tools ?? []), ...(m.text || !m.tools?.length ? [m.text] : [])] };
}

/**
 * node-llama-cpp with streaming and cancellation. It keeps one chat session only to reuse its
 * context sequence: the evaluated tokens that a new history shares with the last one (the system
 * prompt and the exchanges before) are not evaluated again. An answer with tools runs through a
 * LlamaChat on the same sequence, which leaves the rounds of calls to the engine (llm-functions.ts).
 */
export class LlamaEngine implements LanguageModel {
  private readonly session: LlamaChatSession;
  private readonly chat: LlamaChat;
  /** Whether node-llama-cpp can tell a call in this chat format; without, tools are not offered. */
  readonly callsTools: boolean;
  /** Answers one at a time: the session and the chat share one context sequence. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The prefill running or queued, if any: an answer asked for stops it. */
  private prefilling: AbortController | null = null;

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    opts: LlmOptions,
    readonly info: LlmInfo,
  ) {
    // The default context shift drops the oldest turns should one history still overflow.
    this.session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: opts.systemPrompt, chatWrapper: opts.chatWrapper ?? 'auto' });
    this.chat = new LlamaChat({ contextSequence: this.session.sequence, chatWrapper: this.session.chatWrapper });
    this.callsTools = callPrefixes(this.session.chatWrapper).length > 0;
  }

  /** The chat format node-llama-cpp uses for this model (its name, e.g. 'Llama2Chat'). */
  get chatFormat(): string {
    return this.session.chatWrapper.wrapperName;
  }

  static async load(resolved: ResolvedModel, opts: LlmOptions): Promise<LlamaEngine> {
    const spec = resolved.entry.engine;
    if (spec.engine !== 'llama-gguf') throw new Error(`${resolved.entry.id} is not a GGUF model`);
    const modelPath = resolved.paths[spec.model];
    if (!modelPath) throw new Error(`catalog entry ${resolved.entry.id} names no model file`);
    const t0 = performance.now();
    let llama: Llama;
    let skipped: string | undefined;
    let cpuReason: string | undefined;
    try {
      ({ llama, skipped, cpuReason } = await pickBackend(opts.gpu));
    } catch (e) {
      throw new UserError(
        `The LLM backend '${opts.gpu}' is not available on this machine (${(e as Error).message}). Set llm.gpu to "auto" or "cpu".`,
        'llm-backend',
      );
    }
    let model: LlamaModel;
    try {
      // On the CPU, llama.cpp copies most weights into a layout for its vector units: mapped, the file
      // stays resident beside that copy (a 1.1 GB model took 1.9 GiB of RSS; read, 1.3 GiB).
      model = await llama.loadModel({ modelPath, gpuLayers: opts.gpuLayers, ...(llama.gpu === false ? { useMmap: false } : {}) });
    } catch (e) {
      throw new UserError(
        `Could not load the language model '${resolved.entry.id}' from ${modelPath}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
    const contextSize = Math.min(opts.contextSize, model.trainContextSize);
    // A GPU backend that offloaded no layer evaluates on the CPU: it is the CPU backend, said and tuned so.
    if (llama.gpu !== false && model.gpuLayers === 0) cpuReason ??= `${BACKEND_NAMES[llama.gpu] ?? llama.gpu} offloaded no layer of the model; it runs on the CPU.`;
    const onCpu = llama.gpu === false || model.gpuLayers === 0;
    // On the CPU, llama.cpp's flash attention (node-llama-cpp's default where supported) makes each
    // token cost grow steeply with the context: measured here about 3 times slower per token at
    // 1,400 tokens of context, the size of a prompt that describes the tools (docs/tools.md).
    const flashAttention = onCpu ? false : 'auto';
    const context = await model.createContext({ contextSize, threads: opts.threads > 0 ? opts.threads : autoThreads(), flashAttention });
    const backend: LlmBackend = onCpu ? 'cpu' : (llama.gpu as LlmBackend);
    const info: LlmInfo = {
      id: resolved.entry.id,
      backend,
      gpuDevices: llama.gpu === false ? [] : await llama.getGpuDeviceNames(),
      ...(skipped ? { softwareGpuSkipped: skipped } : {}),
      ...(cpuReason ? { cpuReason } : {}),
      gpuLayers: model.gpuLayers,
      totalLayers: model.fileInsights.totalLayers,
      contextSize: context.contextSize,
      mappedWeights: model.useMmap,
      loadMs: performance.now() - t0,
      warmUpMs: 0,
    };
    const engine = new LlamaEngine(model, context, opts, info);
    await engine.warmUp(opts.tools);
    return engine;
  }

  /** Evaluates the system prompt (and the tools' description) now, so the first user turn does not pay for it. */
  private async warmUp(tools: readonly ToolSpec[] | undefined): Promise<void> {
    const t0 = performance.now();
    const history: ChatHistoryItem[] = [...this.session.getChatHistory(), { type: 'user', text: '' }];
    const functions = tools?.length && this.callsTools ? toFunctions(tools) : {};
    if (Object.keys(functions).length && roomFor(this.chat, history, functions, 0)) await this.chat.loadChatAndCompleteUserMessage(history, { functions, maxTokens: 0 });
    else await this.session.preloadPrompt('');
    this.info.warmUpMs = performance.now() - t0;
  }

  async generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    const last = messages[messages.length - 1];
    if (last?.role !== 'user') throw new Error('the conversation must end with a user message');
    this.prefilling?.abort();
    const answer = this.queue.then(() => (opts.tools?.length && this.callsTools ? this.withTools(messages, opts) : this.plain(messages, last.text, opts)));
    this.queue = answer.catch(() => {});
    return answer;
  }

  private async plain(messages: readonly ChatMessage[], prompt: string, opts: GenerateOptions): Promise<GenerateResult> {
    if (opts.signal?.aborted) return { text: '', stopReason: 'abort' };
    this.session.setChatHistory(messages.slice(0, -1).map(historyItem));
    let result;
    try {
      result = await this.session.promptWithMeta(prompt, {
        signal: opts.signal,
        stopOnAbortSignal: true,
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        budgets: NO_THINKING,
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

  private async withTools(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    if (opts.signal?.aborted) return { text: '', stopReason: 'abort' };
    const history: ChatHistoryItem[] = [...messages.map(historyItem), { type: 'model', response: functionCallItems(opts.toolRounds ?? []) }];
    const { result, history: evaluated } = await answerWithFunctions(this.chat, history, opts.tools ?? [], opts);
    // The session's history is what the sequence now holds, as after an answer without tools.
    this.session.setChatHistory(evaluated);
    return result;
  }

  /**
   * Evaluates the conversation and the user's words so far into the context, their message left open,
   * so that when the turn ends only its last words are left to evaluate: the next prefill or answer
   * shares everything up to the first token that differs. The same functions as the answer's keep that
   * prefix the same. The lowest priority: an answer asked for, or another prefill, stops it.
   */
  prefill(messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): Promise<void> {
    if (messages[messages.length - 1]?.role !== 'user') return Promise.reject(new Error('the conversation must end with a user message'));
    this.prefilling?.abort();
    const controller = new AbortController();
    this.prefilling = controller;
    const run = this.queue
      .then(async () => {
        if (controller.signal.aborted) return;
        const history = messages.map(historyItem);
        const functions = tools?.length && this.callsTools ? toFunctions(tools) : {};
        const withFunctions = Object.keys(functions).length > 0 && roomFor(this.chat, history, functions, 0);
        try {
          await this.chat.loadChatAndCompleteUserMessage(history, { ...(withFunctions ? { functions } : {}), maxTokens: 0, signal: controller.signal, stopOnAbortSignal: true });
        } catch (e) {
          // Stopped mid-evaluation: what was evaluated stays in the context for the answer.
          if (!controller.signal.aborted) throw e;
        }
      })
      .finally(() => {
        if (this.prefilling === controller) this.prefilling = null;
      });
    this.queue = run.catch(() => {});
    return run;
  }

  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  tokenUsage(): { input: number; output: number } {
    const meter = this.session.sequence.tokenMeter;
    return { input: meter.usedInputTokens, output: meter.usedOutputTokens };
  }

  async dispose(): Promise<void> {
    // A prefill may be evaluating (the user was talking): freeing the context under it never returns.
    this.prefilling?.abort();
    await this.queue;
    this.chat.dispose();
    this.session.dispose();
    await this.context.dispose();
    await this.model.dispose();
    // The backend is shared by every engine of this process (pickBackend).
  }
}
