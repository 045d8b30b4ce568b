import type { LanguageModel } from '../../engines/llm-types';
import type { ToolSpec } from '../../engines/tool-calls';
import type { Conversation } from './conversation';

export interface ListenAheadDeps {
  llm: LanguageModel;
  conversation: Conversation;
  /** The tools the answer will be offered: the prefill must frame the prompt as the answer will. */
  tools: () => readonly ToolSpec[] | undefined;
}

/**
 * The user's words fed to the language model while they are still talking: each time the recognizer
 * hears more, the conversation and the words so far are evaluated into the model's context, their
 * message left open. When the turn ends, the prepared answer or the reply shares all of that and
 * evaluates only the last words, so a long request costs no more after it ends than a short one.
 * One prefill at a time; words heard meanwhile wait, and only the latest is fed. Any answer asked of
 * the model stops a prefill in flight (the engine's rule); what it evaluated stays.
 */
export class ListenAhead {
  private running = false;
  /** The words waiting to be fed, newest only. */
  private waiting: string | null = null;
  /** The words last fed, to skip a repeat. */
  private fed = '';
  /** The feeding in progress (resolved when none is). */
  private pumping: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ListenAheadDeps) {}

  /** A prefill is running: engine work in flight (a fast clock must not run ahead of it). */
  get busy(): boolean {
    return this.running;
  }

  /** Whether the model can be fed ahead (a server keeps no context here). */
  get available(): boolean {
    return typeof this.deps.llm.prefill === 'function';
  }

  /** The words of the speech in progress so far. */
  heard(words: string): void {
    if (!this.available || !words.trim()) return;
    this.waiting = words;
    if (!this.running) this.pumping = this.pump();
  }

  /**
   * The system prompt changed (the remembered facts in it): evaluated now, while nobody talks, with an
   * empty user message, so the next turn does not pay for it (the model evaluated the prompt without
   * them when it loaded). Words heard meanwhile replace it.
   */
  warm(): Promise<void> {
    if (!this.available) return Promise.resolve();
    this.waiting ??= '';
    if (!this.running) this.pumping = this.pump();
    return this.pumping;
  }

  /**
   * An answer went into the conversation: if that takes it past the point where the oldest exchanges
   * are dropped, they are dropped now (that answer's exchange kept) and the rest evaluated again
   * while the answer plays. Left to the next turn, that evaluation (everything after the system
   * prompt) would fall between the user's words and the answer: seconds on a CPU.
   */
  tidy(): void {
    if (!this.available) return;
    const { llm, conversation } = this.deps;
    if (conversation.trim(llm.info.contextSize, (t) => llm.countTokens(t), 1)) void this.warm();
  }

  /** The turn ended or was dropped: words still waiting are not fed. */
  stop(): void {
    this.waiting = null;
    this.fed = '';
  }

  private async pump(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting !== null) {
        const words = this.waiting;
        this.waiting = null;
        if (words && words === this.fed) continue;
        this.fed = words;
        const { llm, conversation } = this.deps;
        conversation.trim(llm.info.contextSize, (t) => llm.countTokens(t));
        // Warming (no words yet): the conversation as it stands, the user's message empty. Only settled
        // exchanges: the one of a turn this speech continues is still there until its answer, dropped,
        // settles, and fed with it the words would follow a message the answer will not have.
        const messages = [...conversation.messages(true), words ? conversation.userMessage(words) : { role: 'user' as const, text: '' }];
        // A failed prefill costs nothing but its time: the answer evaluates what it needs itself.
        await llm.prefill!(messages, this.deps.tools()).catch(() => {});
      }
    } finally {
      this.running = false;
    }
  }
}
