import type { LlmRoute } from '../../engines/llm-types';
import type { UtteranceSink } from '../speak/utterance-sink';
import type { Settlement } from './conversation';
import type { Draft } from './draft';
import type { EventHub } from '../events';
import type { TurnRecord } from './turn-record';
import { troubleLine } from './llm-trouble';
import { Utterance } from '../speak/utterance';
import type { Transcript } from '../vocabulary';
import { answerStream, voiceOf, type AnswerDeps } from './answer-stream';
import type { LocalAnswer } from '../skills/local-commands';
import type { ToolRound } from '../../engines/tool-calls';
import type { ToolConfirmations } from './confirmation';
import type { ToolRequest } from '../../tools/toolbox';

export interface ReplyDeps extends AnswerDeps {
  /** Where the answer's audio goes. */
  sink: UtteranceSink;
  events: EventHub;
  /** What the user said before a pause this turn continues (a merged continuation), if any. */
  carried?: Promise<string>;
  /** An answer prepared during the turn's last pause: taken if it was prepared from the same words. */
  draft?: Draft;
  /**
   * Answers the words locally when they are a command (a timer, the time, "stop"): what to say, null
   * to say nothing; or null when they are not a command and the language model answers.
   */
  command?: (text: string, endOfTurnMs: number) => LocalAnswer | null;
  /** Says a short line on the assistant's own account (a failed answer's reason), after the answer. */
  say?: (text: string) => void;
  /** The question about a tool that changes something, open until the user's next turn answers it. */
  confirmations?: ToolConfirmations;
}

/**
 * The answer to one user turn, as a handle: the final transcript, then an utterance whose text is
 * the language model writing over the conversation. cancel() and discard() stop every stage, and
 * nothing of this answer is queued for playback afterwards. It fills in the turn's record as it goes.
 */
export class Reply {
  private stopped = false;
  private resolveTranscript!: (text: string) => void;
  /** The user's words for this turn (with those it continues), once the recognizer has finished. */
  readonly transcript = new Promise<string>((r) => (this.resolveTranscript = r));
  private utterance: Utterance | null = null;
  /** Why the language model failed this turn, to be said once what it wrote has been spoken. */
  private failure: Error | null = null;
  private running = true;
  /** The rounds of tool calls this answer ran, for the conversation. */
  private readonly rounds: ToolRound[] = [];
  /** Stops a confirmed tool run by this reply (the answer's own utterance stops the model's). */
  private readonly abort = new AbortController();
  /** Resolves when nothing more will be produced (audio may still be playing). */
  readonly done: Promise<void>;

  constructor(
    readonly record: TurnRecord,
    private readonly deps: ReplyDeps,
    heard: Promise<Transcript>,
  ) {
    this.done = this.run(heard).finally(() => {
      this.running = false;
      this.resolveTranscript(this.record.userText);
    });
  }

  get turn(): number {
    return this.record.index;
  }

  /** Engine work is in flight (the fast clock must not skip time). */
  get busy(): boolean {
    return this.running;
  }

  get aborted(): boolean {
    return this.stopped;
  }

  /** Stream positions of the answer's audio. */
  get audioSpan(): { from: number; to: number } | null {
    return this.utterance?.audioSpan ?? null;
  }

  /** The answer is being made, or heard, at stream position `position`. */
  soundingAt(position: number): boolean {
    return this.utterance?.soundingAt(position) ?? false;
  }

  /** Whether any of the answer had played once the output reached stream position `position`. */
  heardBy(position: number): boolean {
    return this.utterance?.heardBy(position) ?? false;
  }

  /** What the user heard of this answer, for history: all of it, its heard part, or nothing. */
  get settlement(): Settlement {
    const r = this.record;
    const heard = this.utterance?.heardText ?? '';
    // The whole answer as the model wrote it (not trimmed): the next prompt then starts with the tokens it already evaluated.
    const tools = this.rounds.length > 0 ? { tools: [...this.rounds] } : {};
    return r.discarded ? { type: 'dropped' } : r.interrupted ? { type: 'interrupted', heard, ...tools } : { type: 'whole', text: this.utterance?.text ?? '', ...tools };
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async run(heard: Promise<Transcript>): Promise<void> {
    const { events, llm, conversation } = this.deps;
    const r = this.record;
    const own = await heard;
    r.sttFinalMs = own.finalMs;
    r.sttDecodeMs = own.decodeMs;
    const before = this.deps.carried ? await this.deps.carried : '';
    const text = [before, own.text].filter(Boolean).join(' ');
    r.userText = text;
    this.resolveTranscript(text);
    events.emit({ type: 'final', t: r.sttFinalMs, turn: r.index, text });
    const draft = this.deps.draft;
    if (!text || this.stopped) {
      draft?.drop();
      return;
    }
    const answered = this.deps.confirmations?.answer(text, r.index) ?? null;
    if (answered) {
      events.emit({ type: 'confirmation', t: this.now(), pending: null });
      if (answered.words !== 'other') {
        draft?.drop();
        r.prepared = 'none';
        r.preparedAtMs = null;
        await this.confirmed(text, answered.words === 'yes', answered.request);
        return;
      }
      // Something else: the question lapses and the words are a request of their own.
      r.confirmation = { tool: answered.request.call.name, server: answered.request.server, outcome: 'dropped' };
    }
    const local = this.deps.command?.(text, r.endOfTurnMs) ?? null;
    if (local) {
      r.command = local.command;
      // Nothing was prepared for it: a draft does not start on a command's words.
      draft?.drop();
      r.prepared = 'none';
      r.preparedAtMs = null;
      const said = local.pending ? await local.pending : local.say;
      if (said && !this.stopped) await this.sayLocally(said);
      return;
    }
    if (draft?.fits(text)) {
      conversation.append(r.index, text);
      r.generated = true;
      r.llmUsed = true;
      r.prepared = 'used';
      r.llm = this.defaultRoute();
      const answer = draft.adopt(r.index, events, this.now(), {
        onFirstToken: (ms) => (r.llmFirstTokenMs ??= ms),
        onError: (e) => this.failed(e),
        onRoute: (route) => this.routed(route),
        onToolUse: (use) => r.tools.push(use),
        onToolRound: (round) => this.rounds.push(round),
        onAsk: (request) => this.ask(request),
      });
      r.llmStartMs = draft.llmStartMs;
      this.utterance = answer;
      r.answer = answer;
      await answer.done;
      this.sayFailure();
      return;
    }
    if (draft) {
      draft.drop();
      r.prepared = 'dropped';
    }

    await this.deps.before;
    if (this.stopped) return;
    const answer = answerStream(this.deps, {
      sink: this.deps.sink,
      prompt: () => {
        conversation.trim(llm.info.contextSize, (t) => llm.countTokens(t));
        conversation.append(r.index, text);
        r.generated = true;
        r.llmUsed = true;
        r.llm = this.defaultRoute();
        r.llmStartMs ??= this.now();
        return conversation.messages();
      },
      onText: (delta) => {
        r.llmFirstTokenMs ??= this.now();
        events.emit({ type: 'answer-delta', t: this.now(), turn: r.index, text: delta });
      },
      onRoute: (route) => this.routed(route),
      onError: (e) => this.failed(e),
      announce: { events, turn: r.index },
      tools: {
        run: true,
        onUse: (use) => r.tools.push(use),
        onRound: (round) => this.rounds.push(round),
        onAsk: (request) => this.ask(request),
      },
    });
    this.utterance = answer;
    r.answer = answer;
    await answer.done;
    this.sayFailure();
  }

  /** The answer asks the user before a tool that changes something runs: the question to speak. */
  private ask(request: ToolRequest): string {
    const r = this.record;
    const { events } = this.deps;
    const asked = this.deps.confirmations!.ask(request, r.index, this.now());
    r.confirmation = { tool: request.call.name, server: request.server, outcome: 'asked' };
    events.emit({ type: 'confirmation', t: this.now(), pending: asked.pending });
    return asked.question;
  }

  /** The route a turn takes unless the model says otherwise: the configured provider, no fallback. */
  private defaultRoute(): LlmRoute {
    return { provider: this.deps.llm.info.backend === 'server' ? 'openai-compatible' : 'local', fallback: false, error: null };
  }

  private routed(route: LlmRoute): void {
    const r = this.record;
    r.llm = { ...route };
    if (route.fallback && route.error) {
      this.deps.events.emit({ type: 'notice', t: this.now(), message: `${route.error.replace(/\.$/, '')}. The local model answered instead.` });
    }
  }

  /** The language model failed: the turn's error, shown; the route keeps the server's words. */
  private failed(e: Error): void {
    const r = this.record;
    this.failure = e;
    r.error = `The language model failed: ${e.message}`;
    if (r.llm && !r.llm.error) r.llm = { ...r.llm, error: e.message };
    this.deps.events.emit({ type: 'error', t: this.now(), message: r.error });
  }

  /** After what was written has been spoken: why the answer failed or stopped short, in one line. */
  private sayFailure(): void {
    if (!this.failure || this.stopped) return;
    this.deps.say?.(troubleLine(this.failure, (this.utterance?.text ?? '').trim() !== ''));
  }

  /**
   * The user answered the question about a tool: a yes runs it (recorded like any call), a no does
   * not; either way a short line says what happened, and the exchange goes into history with the
   * call so the model knows.
   */
  private async confirmed(text: string, yes: boolean, request: ToolRequest): Promise<void> {
    const r = this.record;
    const tool = { tool: request.call.name, server: request.server };
    this.deps.conversation.append(r.index, text);
    r.generated = true;
    if (!yes || !this.deps.tools) {
      r.confirmation = { ...tool, outcome: 'declined' };
      await this.sayLocally("Okay, I won't.");
      return;
    }
    const { round, said } = await this.deps.tools.runAgreed(request, this.abort.signal, (use) => r.tools.push(use));
    this.rounds.push(round);
    r.confirmation = { ...tool, outcome: 'ran' };
    if (this.stopped) return;
    await this.sayLocally(said);
  }

  /** A command's answer: a fixed text through the same voice, sink and events as any answer. */
  private async sayLocally(text: string): Promise<void> {
    const { events } = this.deps;
    const r = this.record;
    events.emit({ type: 'answer-delta', t: this.now(), turn: r.index, text });
    const answer = new Utterance(
      { kind: 'text', text },
      {
        tts: this.deps.tts,
        sink: this.deps.sink,
        clock: this.deps.clock,
        voice: () => voiceOf(this.deps.options()),
        announce: { events, turn: r.index },
      },
    );
    this.utterance = answer;
    r.answer = answer;
    await answer.done;
  }

  /**
   * The user interrupted: generation and synthesis stop, and the heard part is cut from how far the
   * output had played (`playedTo`, a stream position) when playback stopped at `atMs`.
   */
  cancel(playedTo: number, atMs: number): string {
    this.stopped = true;
    this.abort.abort();
    this.record.interrupted = true;
    const heard = this.utterance?.cancel(playedTo) ?? '';
    this.deps.events.emit({ type: 'interrupted', t: atMs, turn: this.turn, heardText: heard });
    return heard;
  }

  /** The user went on before hearing any of it: stop everything and forget the answer. */
  discard(): void {
    this.stopped = true;
    this.abort.abort();
    this.record.discarded = true;
    this.utterance?.discard();
  }
}
