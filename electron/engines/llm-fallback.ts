/**
 * The language model on a server, with a deadline and a fallback for every request: when the server
 * fails before its first token, or sends none in time, the local model (when one is installed)
 * answers that turn instead. A failure after the first token is not retried: part of the answer
 * may already have been spoken, and the error is reported with what was said.
 */
import { UserError, isUserError } from '../errors';
import type { ChatMessage, GenerateOptions, GenerateResult, LanguageModel, LlmInfo } from './llm-types';

export const LLM_SLOW_CODE = 'llm-server-slow';

export interface ServerWithFallbackOptions {
  /**
   * How long the server may take to its first token, read per request. The pipeline passes its turn
   * budget: the holding phrase covers that wait, and then the local model takes over.
   */
  firstTokenMs: () => number;
  /**
   * Without a local model there is nothing to switch to, so the server is given longer (it may be
   * loading the model, as Ollama does on its first request) before the turn gives up.
   */
  aloneFirstTokenMs: () => number;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export class ServerWithFallback implements LanguageModel {
  readonly info: LlmInfo;

  constructor(
    readonly server: LanguageModel,
    readonly local: LanguageModel | null,
    private readonly opts: ServerWithFallbackOptions,
  ) {
    // The history must fit whichever model answers.
    const contextSize = local ? Math.min(server.info.contextSize, local.info.contextSize) : server.info.contextSize;
    this.info = { ...server.info, contextSize };
  }

  countTokens(text: string): number {
    // The larger count keeps the history within both contexts.
    return Math.max(this.server.countTokens(text), this.local?.countTokens(text) ?? 0);
  }

  async generate(messages: readonly ChatMessage[], opts: GenerateOptions): Promise<GenerateResult> {
    const limitMs = this.local ? this.opts.firstTokenMs() : this.opts.aloneFirstTokenMs();
    const request = new AbortController();
    const outer = opts.signal;
    const forward = () => request.abort(outer?.reason);
    outer?.addEventListener('abort', forward, { once: true });
    let started = false;
    let slow = false;
    const timer = setTimeout(() => {
      if (started) return;
      slow = true;
      request.abort(new Error('no first token in time'));
    }, limitMs);
    let failure: unknown = null;
    try {
      const result = await this.server.generate(messages, {
        ...opts,
        signal: request.signal,
        onText: (delta) => {
          if (!started) {
            started = true;
            clearTimeout(timer);
            opts.onRoute?.({ provider: 'openai-compatible', fallback: false, error: null });
          }
          opts.onText(delta);
        },
      });
      if (!slow) {
        if (!started && result.stopReason !== 'abort') opts.onRoute?.({ provider: 'openai-compatible', fallback: false, error: null });
        return result;
      }
    } catch (e) {
      if (started) {
        opts.onRoute?.({ provider: 'openai-compatible', fallback: false, error: messageOf(e) });
        throw e;
      }
      failure = e;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
    if (outer?.aborted) return { text: '', stopReason: 'abort' };
    const error =
      failure === null
        ? new UserError(
            `The LLM server sent no answer within ${seconds(limitMs)}${this.local ? '' : '; it may still be loading the model, so try again in a moment'}.`,
            LLM_SLOW_CODE,
          )
        : failure;
    if (!this.local) {
      opts.onRoute?.({ provider: 'openai-compatible', fallback: false, error: messageOf(error) });
      throw error;
    }
    opts.onRoute?.({ provider: 'local', fallback: true, error: messageOf(error) });
    return this.local.generate(messages, opts);
  }

  async dispose(): Promise<void> {
    await Promise.all([this.server.dispose(), this.local?.dispose()]);
  }
}

function messageOf(e: unknown): string {
  return isUserError(e) || e instanceof Error ? e.message : String(e);
}
