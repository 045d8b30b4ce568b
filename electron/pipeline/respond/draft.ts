import type { LlmRoute } from '../../engines/llm-types';
import type { EventHub } from '../events';
import type { AudioOutput } from '../speak/output';
import type { Utterance } from '../speak/utterance';
import { HeldSink } from '../speak/utterance-sink';
import { answerStream, type AnswerDeps } from './answer-stream';
import type { ToolRound } from '../../engines/tool-calls';
import type { ToolRequest, ToolUse } from '../../tools/toolbox';

export interface DraftDeps extends AnswerDeps {
  output: AudioOutput;
  /** Words a local command answers: nothing is prepared for them (the language model is not asked). */
  isCommand: (text: string) => boolean;
}

/** Case, punctuation and spacing aside, the same words. */
export function sameWords(a: string, b: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}\s']/gu, ' ').replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}

/** What the turn that adopts a draft hears of it from then on. */
export interface DraftOwner {
  onFirstToken: (ms: number) => void;
  onError: (e: Error) => void;
  onRoute: (route: LlmRoute) => void;
  /** A call the draft ran (before its adoption only to a tool that only reads, told then), and its round. */
  onToolUse: (use: ToolUse) => void;
  onToolRound: (round: ToolRound) => void;
  /** A tool that needs the user's yes was wanted after the adoption: the turn asks, and this gives the question. */
  onAsk: (request: ToolRequest) => string;
}

/**
 * An answer prepared while the user pauses, before their turn is committed: the transcript so far,
 * the language model over the conversation plus those words, and the first clauses' audio, all held
 * back (HeldSink). Nothing is added to the conversation: if the turn ends with the same words the reply
 * adopts it and it plays at once; if the user goes on, it is dropped and nothing of it remains.
 */
export class Draft {
  /** When the preparation began (pipeline clock). */
  readonly startedMs: number;
  private readonly sink: HeldSink;
  private utterance: Utterance | null = null;
  private text: string | null = null;
  /** The conversation's version the prompt was built from: any edit since makes the draft stale. */
  private version = -1;
  private dropped = false;
  private running = true;
  private failed = false;
  private deltas = '';
  /** Calls to tools that only read, run before the draft was adopted: they count only once it is. */
  private uses: ToolUse[] = [];
  private rounds: ToolRound[] = [];
  /** Set once a reply adopted it: text and errors go to that turn from then on. */
  private owner: ({ events: EventHub; turn: number } & DraftOwner) | null = null;
  private firstTokenMs: number | null = null;
  /** When the language model was asked for it (pipeline clock), for the turn's timeline. */
  llmStartMs: number | null = null;
  /** Which model is writing it (a server's local fallback), once known. */
  private route: LlmRoute | null = null;
  readonly done: Promise<void>;

  constructor(
    private readonly deps: DraftDeps,
    tentative: Promise<string>,
  ) {
    this.startedMs = deps.clock.now();
    this.sink = new HeldSink(deps.output);
    this.done = this.run(tentative)
      .catch(() => {
        // A recognizer that cannot peek, or a model that fails: the turn is answered the usual way.
        this.failed = true;
      })
      .finally(() => (this.running = false));
  }

  get busy(): boolean {
    return this.running;
  }

  /** The language model has been asked for it (it holds the model's context from then on). */
  get asked(): boolean {
    return this.llmStartMs !== null;
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async run(tentative: Promise<string>): Promise<void> {
    const text = await tentative;
    if (!text || this.dropped || this.deps.isCommand(text)) return;
    await this.deps.before;
    if (this.dropped) return;
    this.text = text;
    const { llm, conversation } = this.deps;
    // Kept within the context as any turn's prompt is (only the oldest exchanges can go): the draft adds nothing to it.
    conversation.trim(llm.info.contextSize, (t) => llm.countTokens(t));
    const messages = [...conversation.messages(), conversation.userMessage(text)];
    this.version = conversation.version;
    this.utterance = answerStream(this.deps, {
      sink: this.sink,
      prompt: () => {
        this.llmStartMs ??= this.now();
        return messages;
      },
      onText: (delta) => {
        if (this.firstTokenMs === null) {
          this.firstTokenMs = this.now();
          this.owner?.onFirstToken(this.firstTokenMs);
        }
        if (this.owner) this.owner.events.emit({ type: 'answer-delta', t: this.now(), turn: this.owner.turn, text: delta });
        else this.deltas += delta;
      },
      onRoute: (route) => {
        this.route = route;
        this.owner?.onRoute(route);
      },
      onError: (e) => {
        this.failed = true;
        this.owner?.onError(e);
      },
      // A prepared answer runs only tools that read: another one wanted means the committed turn
      // asks again, with tools. Once adopted, it is the committed answer: its calls run (or ask for
      // the user's yes) as that answer's would.
      tools: {
        run: false,
        onWanted: () => {
          const owner = this.owner;
          if (owner) return { onUse: owner.onToolUse, onRound: owner.onToolRound, onAsk: owner.onAsk };
          this.failed = true;
          this.utterance?.discard();
          return null;
        },
        readOnly: {
          onUse: (use) => (this.owner ? this.owner.onToolUse(use) : this.uses.push(use)),
          onRound: (round) => (this.owner ? this.owner.onToolRound(round) : this.rounds.push(round)),
        },
      },
    });
    await this.utterance.done;
  }

  /**
   * Whether the committed turn can take this draft: it is being written from the same words, over
   * the conversation as it still is, and nothing failed.
   */
  fits(finalText: string): boolean {
    return !this.dropped && !this.failed && this.utterance !== null && this.text !== null && sameWords(this.text, finalText) && this.deps.conversation.version === this.version;
  }

  /**
   * The turn `turn` takes this draft: what it has written so far is announced, its held audio plays
   * from `atMs`, and what follows is spoken as it comes. Returns the utterance, now the turn's answer.
   */
  adopt(turn: number, events: EventHub, atMs: number, owner: DraftOwner): Utterance {
    const u = this.utterance!;
    this.owner = { events, turn, ...owner };
    if (this.route) owner.onRoute(this.route);
    if (this.firstTokenMs !== null) owner.onFirstToken(this.firstTokenMs);
    if (this.deltas) events.emit({ type: 'answer-delta', t: atMs, turn, text: this.deltas });
    for (const use of this.uses) owner.onToolUse(use);
    for (const round of this.rounds) owner.onToolRound(round);
    u.announceTo(events, turn);
    this.sink.release(atMs);
    return u;
  }

  /** The user went on, or the words changed: stop, and let nothing of it play or remain. */
  drop(): void {
    if (this.owner) return;
    this.dropped = true;
    this.utterance?.discard();
    this.sink.drop();
  }
}
