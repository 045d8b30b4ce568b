import { matchCommand } from '../../commands/match';
import type { PipelineContext } from '../context';
import type { Backchannel, BargeInTimes } from '../report';
import type { LocalAnswer } from '../skills/local-commands';
import { Utterance } from '../speak/utterance';
import { PlayingSink } from '../speak/utterance-sink';
import type { EndedTurn } from '../turns/turn-events';
import type { AssistantPhase, StartedBy } from '../vocabulary';
import type { AnswerDeps } from './answer-stream';
import type { ToolConfirmations } from './confirmation';
import { Draft } from './draft';
import { HoldingPhrases } from './holding-phrase';
import { ListenAhead } from './listen-ahead';
import { Reply } from './reply';
import { newTurnRecord, turnReport } from './turn-record';

/** A turn being answered, with what else was said for it. */
interface PendingTurn {
  reply: Reply;
  /** The holding phrase spoken while the answer was late, if any. */
  holding: Utterance | null;
  /** Nothing more will be produced; history has been updated. */
  settled: boolean;
}

/** A turn whose answer was dropped because the user went on talking: the next turn continues it. */
interface Carried {
  speechStartMs: number;
  startedBy: StartedBy;
  transcript: Promise<string>;
  /** The transcript once it has come (to feed the model ahead with the words that follow it). */
  text?: string;
}

/** What answers are written with, besides the context; `before` is kept here (the LLM chain). */
export interface AnswersDeps extends Omit<AnswerDeps, 'before'> {
  /** The user's words as a local command, answered without the language model (null: not one). */
  command: (text: string, endOfTurnMs: number) => LocalAnswer | null;
  /** Says a short line on the assistant's own account, after what is queued. */
  say: (text: string) => void;
  /** The question about a tool that changes something, answered by the next turn. */
  confirmations: ToolConfirmations;
}

/**
 * The answers under way, from a draft prepared during a pause to the last clause played: which are
 * pending, the turn an unheard answer's words carry into, the holding phrase for a late one, and the
 * one-at-a-time order on the language model. Responding decides; this keeps them and acts.
 */
export class Answers {
  private readonly pending: PendingTurn[] = [];
  private carried: Carried | null = null;
  /** The answer being prepared while the user pauses, if any. */
  private draft: Draft | null = null;
  /** When the turn in progress last had an answer prepared (kept after a drop, for its report). */
  private draftedAtMs: number | null = null;
  /** Replies run one at a time on the LLM: a new one waits for the previous to settle. */
  private llmChain: Promise<void> = Promise.resolve();
  private readonly holding: HoldingPhrases;
  /** The user's words fed to the model as they are heard. */
  private readonly ahead: ListenAhead;

  constructor(
    private readonly ctx: PipelineContext,
    private readonly deps: AnswersDeps,
  ) {
    const box = deps.tools;
    this.ahead = new ListenAhead({ llm: deps.llm, conversation: deps.conversation, tools: () => (box && !box.empty ? box.specs : undefined) });
    this.holding = new HoldingPhrases(deps.tts);
    this.holding.prepare(ctx.settings().tts);
  }

  /** Some turn is being answered (made, queued or playing). */
  get any(): boolean {
    return this.pending.length > 0;
  }

  /** The turn in progress continues one whose answer was dropped unheard. */
  get continuing(): boolean {
    return this.carried !== null;
  }

  /** Some answer has not been stopped. */
  get anyUnstopped(): boolean {
    return this.pending.some((p) => !p.reply.aborted);
  }

  /** Engine work is in flight. */
  /** The system prompt changed: the model evaluates it now, ahead of the next turn (ListenAhead.warm). */
  warmPrompt(): Promise<void> {
    return this.ahead.warm();
  }

  get busy(): boolean {
    return this.pending.some((p) => p.reply.busy) || !!this.draft?.busy || this.ahead.busy;
  }

  /** The answers' part of the assistant's phase at stream position `position`. */
  phase(position: number): AssistantPhase {
    // A stopped answer says nothing more: the speech that stopped it is a new turn, not its continuation.
    const live = this.pending.filter(({ reply }) => !reply.aborted);
    if (live.length === 0) return 'idle';
    return live.some(({ reply }) => reply.soundingAt(position)) ? 'speaking' : 'pending';
  }

  /**
   * The user paused and the turn may be over: prepare the answer now, held back until the turn ends.
   * The caller checks that nothing else is being answered, so a draft never races a reply on the LLM.
   */
  prepare(tentative: () => Promise<string>): void {
    this.dropDraft(false);
    const own = tentative();
    const carried = this.carried?.transcript;
    const words = carried ? Promise.all([carried, own]).then((parts) => parts.filter(Boolean).join(' ')) : own;
    const draft = new Draft({ ...this.deps, output: this.ctx.output, before: this.llmChain, isCommand: (text) => matchCommand(text) !== null }, words);
    this.draft = draft;
    this.draftedAtMs = draft.startedMs;
    this.llmChain = draft.done;
  }

  /**
   * Words of the speech in progress, heard while nothing is being answered: fed to the model ahead of
   * the turn's end, after the words of a turn it continues (once that transcript has come).
   */
  heard(words: string): void {
    // Once a draft has asked the model, it holds the prompt: a prefill queued behind it would evaluate over its answer.
    if (this.any || this.draft?.asked) return;
    if (!this.carried) this.ahead.heard(words);
    else if (this.carried.text !== undefined) this.ahead.heard([this.carried.text, words].filter(Boolean).join(' '));
  }

  /** The draft will not be used: the user went on (or a new turn began: `newTurn` forgets it was ever made). */
  dropDraft(newTurn: boolean): void {
    this.draft?.drop();
    this.draft = null;
    if (newTurn) this.draftedAtMs = null;
  }

  /** Starts the answer to a turn that has ended, taking the draft prepared for it if its words fit. */
  start(turn: EndedTurn): void {
    this.ahead.stop();
    const carried = this.carried;
    this.carried = null;
    const record = newTurnRecord({
      index: turn.index,
      speechStartMs: carried?.speechStartMs ?? turn.speechStartMs,
      speechEndMs: turn.speechEndMs,
      endOfTurnMs: turn.endOfTurnMs,
      startedBy: carried?.startedBy ?? turn.startedBy,
      endReason: turn.reason,
      mergedContinuation: carried !== null,
      inputGainDb: turn.inputGainDb,
      turnChecks: turn.turnChecks,
    });
    const draft = this.draft;
    record.preparedAtMs = this.draftedAtMs;
    if (this.draftedAtMs !== null && !draft) record.prepared = 'dropped';
    this.draft = null;
    this.draftedAtMs = null;
    const { events } = this.ctx;
    const reply = new Reply(
      record,
      {
        ...this.deps,
        sink: new PlayingSink(this.ctx.output),
        events,
        before: this.llmChain,
        ...(carried ? { carried: carried.transcript } : {}),
        ...(draft ? { draft } : {}),
      },
      turn.transcript,
    );
    const pending: PendingTurn = { reply, holding: null, settled: false };
    this.llmChain = reply.done.then(() => {
      pending.settled = true;
      this.updateHistory(reply);
      // Not over a draft for the next turn: a prefill queued behind it would evaluate over its answer.
      if (!this.draft) this.ahead.tidy();
    });
    this.pending.push(pending);
    this.announceStart(reply);
    events.emit({ type: 'end-of-turn', t: record.endOfTurnMs, turn: record.index, speechStartMs: record.speechStartMs, speechEndMs: record.speechEndMs, reason: record.endReason });
  }

  /**
   * Emits 'answer-start' once the reply's first audio is queued, so a listener can show the turn's
   * latencies then rather than when the whole answer has played.
   */
  private announceStart(reply: Reply): void {
    const { events, clock, output } = this.ctx;
    const off = events.on((e) => {
      if (e.type !== 'audio' || e.turn !== reply.turn) return;
      off();
      // After the event's emitter has returned: an adopted draft's held audio is queued before the reply holds its answer.
      queueMicrotask(() => events.emit({ type: 'answer-start', t: clock.now(), turn: reply.turn, report: turnReport(reply.record, output) }));
    });
    // No audio came (no words, an error, dropped): the listener goes with the reply.
    void reply.done.then(off, off);
  }

  /**
   * The user spoke over the answers (playback stopped at `stoppedMs`): each one heard by `playedTo`
   * is cancelled there, keeps its heard part in history and records `bargeIn`; the others are dropped.
   */
  interrupt(playedTo: number, stoppedMs: number, bargeIn: BargeInTimes): void {
    for (const p of this.pending) {
      p.holding?.discard();
      if (p.reply.aborted) continue;
      if (p.reply.heardBy(playedTo)) {
        p.reply.cancel(playedTo, stoppedMs);
        p.reply.record.bargeIn = { ...bargeIn };
      } else p.reply.discard();
      // A reply that had finished producing is not waited on by the LLM chain: fix history now.
      if (p.settled) this.updateHistory(p.reply);
    }
  }

  /**
   * The user acknowledged the answer heard at stream position `position` ("mm-hmm"): it goes in that
   * answer's report. Returns that answer's turn (-1 when none was being heard, a timer's notice).
   */
  noteBackchannel(b: Backchannel, position: number): number {
    const heard = this.pending.filter((p) => !p.reply.aborted && p.reply.heardBy(position)).at(-1);
    heard?.reply.record.backchannels.push(b);
    return heard?.reply.turn ?? -1;
  }

  /**
   * The user went on talking before hearing any answer: the pending answers are dropped (never
   * played, not in history) and the turn in progress continues the last of them.
   */
  continueTurn(atMs: number): void {
    for (const p of this.pending.splice(0)) {
      p.holding?.discard();
      p.reply.discard();
      if (p.settled) this.updateHistory(p.reply);
      const first = this.carried ?? p.reply.record;
      const carried: Carried = { speechStartMs: first.speechStartMs, startedBy: first.startedBy, transcript: p.reply.transcript };
      carried.transcript.then((text) => (carried.text = text)).catch(() => {});
      this.carried = carried;
      this.ctx.events.emit({ type: 'merged', t: atMs, turn: p.reply.turn });
    }
  }

  /** Words carried from an unheard answer are dropped (the user's side closed with no turn). */
  dropCarried(): void {
    this.carried = null;
  }

  /** Forgets the draft and carried words (the conversation is being reset). */
  forget(): void {
    this.dropDraft(true);
    this.carried = null;
  }

  /** History keeps only what the user heard: all of an answer, its heard part, or nothing. */
  private updateHistory(reply: Reply): void {
    if (reply.record.generated) this.deps.conversation.settle(reply.turn, reply.settlement);
  }

  /** Turns still waiting for their answer's first audio, and when a holding phrase is due for each. */
  private holdingDue(budgetMs: number): { turn: PendingTurn; atMs: number }[] {
    return this.pending
      .filter(({ reply: r, holding }) => !holding && !r.aborted && r.busy && r.audioSpan === null && r.record.userText)
      .map((turn) => ({ turn, atMs: turn.reply.record.endOfTurnMs + budgetMs }));
  }

  /** When the next holding phrase falls due, or null. */
  nextHoldingMs(budgetMs: number): number | null {
    const due = this.holdingDue(budgetMs).map((h) => h.atMs);
    return due.length > 0 ? Math.min(...due) : null;
  }

  /** No answer audio within the turn budget: say a holding phrase so the user knows they were heard. */
  hold(now: number, budgetMs: number): void {
    const { ctx } = this;
    for (const { turn: p, atMs } of this.holdingDue(budgetMs)) {
      if (now < atMs) continue;
      const phrase = this.holding.next();
      if (!phrase) continue;
      p.reply.record.holdingPhrase = true;
      p.holding = new Utterance({ kind: 'audio', ...phrase }, { tts: this.deps.tts, sink: new PlayingSink(ctx.output), clock: ctx.clock, voice: () => ctx.settings().tts });
      ctx.events.emit({ type: 'holding-phrase', t: now, turn: p.reply.turn, text: phrase.text });
    }
  }

  /** Readies the holding phrases for the current voice (while the assistant is idle). */
  prepareHolding(): void {
    this.holding.prepare(this.ctx.settings().tts);
  }

  /** Takes the answers complete and played out at stream position `position`, in order. */
  takeFinished(position: number): Reply[] {
    const done: Reply[] = [];
    while (this.pending.length > 0) {
      const p = this.pending[0]!;
      const span = p.reply.audioSpan;
      if (!p.settled || (span && !p.reply.aborted && position < span.to)) break;
      this.pending.shift();
      done.push(p.reply);
    }
    return done;
  }

  /** Resolves when every reply has been produced (audio may still be scheduled to play). */
  async drain(): Promise<void> {
    await Promise.all(this.pending.map((p) => p.reply.done));
    await this.llmChain;
  }
}
