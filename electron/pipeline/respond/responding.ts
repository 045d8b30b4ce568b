import type { LanguageModel } from '../../engines/llm';
import type { SpeechSynthesizer } from '../../engines/tts';
import type { Settings } from '../../settings/schema';
import { PlayingSink } from '../speak/utterance-sink';
import { BargeInPolicy, type BargeInDecision } from './barge-in';
import type { Clock } from '../clock';
import { Conversation } from './conversation';
import { Draft } from './draft';
import { isShortCommand, matchCommand } from '../../commands/match';
import type { TimerBook } from '../../timers/timer-book';
import { answerLocally, type CommandHost } from '../skills/local-commands';
import { Notices } from '../skills/notices';
import type { EventHub } from '../events';
import { timerViews, type TimerView } from '../../timers/timer-view';
import { HoldingPhrases } from './holding-phrase';
import type { AudioOutput } from '../speak/output';
import { Reply } from './reply';
import { round, type TurnReport } from '../report';
import { serialSynthesizer } from '../speak/tts-queue';
import { newTurnRecord, turnReport } from './turn-record';
import type { EndedTurn, TurnEvent } from '../turns/turn-taking';
import { Utterance } from '../speak/utterance';
import type { AssistantPhase, StartedBy } from '../vocabulary';

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
}

/** The timers and alarms responding keeps, and where their times come from. */
export interface TimerOptions {
  book: TimerBook;
  /** Epoch ms at pipeline time 0: timers are stored in absolute time and run on the pipeline clock. */
  epochBase: number;
  /** The timers changed (the app stores them). */
  changed?: (book: TimerBook) => void;
}

/** What responding needs to know of the user's side. */
export interface UserTurnState {
  /** Speech that may become a turn is in progress. */
  readonly hasCandidate: boolean;
  /** The user may be talking. */
  readonly active: boolean;
}

/**
 * Responding: turn events in, spoken answers out. It owns the conversation, the answers being made
 * or played, the barge-in policy that decides what the user's speech does to them, and the holding
 * phrase; every decision that time alone makes runs from `tick`.
 */
export class Responding {
  private readonly bargeIn: BargeInPolicy;
  private readonly tts: SpeechSynthesizer;
  private readonly holding: HoldingPhrases;
  private readonly pending: PendingTurn[] = [];
  private carried: Carried | null = null;
  /** The answer being prepared while the user pauses, if any. */
  private draft: Draft | null = null;
  /** When the turn in progress last had an answer prepared (kept after a drop, for its report). */
  private draftedAtMs: number | null = null;
  /** Replies run one at a time on the LLM: a new one waits for the previous to settle. */
  private llmChain: Promise<void> = Promise.resolve();
  /** Finished turns' reports, the newest `keepReports` of them (every one is also a 'turn' event). */
  readonly reports: TurnReport[] = [];
  /** What the language model is given each turn: the system prompt and what the user heard. */
  readonly conversation: Conversation;

  constructor(
    private readonly engines: { llm: LanguageModel; tts: SpeechSynthesizer },
    private readonly output: AudioOutput,
    private readonly clock: Clock,
    private readonly settings: () => Settings,
    private readonly events: EventHub,
    private readonly user: UserTurnState,
    private readonly keepReports: number,
    private readonly timers: TimerOptions,
  ) {
    this.bargeIn = new BargeInPolicy(() => this.settings().bargeIn);
    this.tts = serialSynthesizer(engines.tts);
    this.holding = new HoldingPhrases(this.tts);
    this.holding.prepare(settings().tts);
    this.conversation = new Conversation(settings().llm.systemPrompt);
    this.notices = new Notices({
      book: timers.book,
      epochAt: (ms) => this.epochAt(ms),
      tts: this.tts,
      output,
      clock,
      events,
      voice: () => this.settings().tts,
      changed: () => this.timersChanged(),
    });
    this.commands = {
      timers: timers.book,
      conversation: this.conversation,
      epochAt: (ms) => this.epochAt(ms),
      lastAnswer: () => this.lastAnswer,
      timersChanged: () => this.timersChanged(),
      settlePause: (resume) => this.apply(this.bargeIn.onTurnAfterPause(resume, this.clock.now())),
    };
  }

  private readonly notices: Notices;
  private readonly commands: CommandHost;
  /** The last answer the assistant spoke, for "repeat that". */
  private lastAnswer: string | null = null;

  /** Epoch ms at pipeline time `ms`. */
  epochAt(ms: number): number {
    return this.timers.epochBase + ms;
  }

  /** Timers and alarms still pending or ringing, for the window. */
  timerViews(): TimerView[] {
    return timerViews(this.timers.book, this.epochAt(this.clock.now()));
  }

  private timersChanged(): void {
    this.timers.changed?.(this.timers.book);
    this.events.emit({ type: 'timers', t: this.clock.now(), timers: this.timerViews() });
  }

  /** The window's cancel button: a pending timer or alarm by id. */
  cancelTimer(id: string): void {
    if (this.timers.book.cancel(this.epochAt(this.clock.now()), { id }).length > 0) this.timersChanged();
  }

  /** The window's Stop button, or "stop" said: what rings stops. */
  stopRinging(): void {
    if (this.timers.book.stop(this.epochAt(this.clock.now())).length > 0) this.timersChanged();
  }

  /** The line about the present the language model is given with its system prompt. */
  private refreshNow(): void {
    const d = new Date(this.epochAt(this.clock.now()));
    const date = d.toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
    const time = d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
    this.conversation.setNow(`It is now ${date}, ${time} (the user's local time).`);
  }

  /** The gate turn taking asks: whether speech counts in a phase, and how much of it. */
  get gate(): Pick<BargeInPolicy, 'listens' | 'minSpeechMs'> {
    return { listens: (p) => this.bargeIn.listens(p), minSpeechMs: (p, ms) => this.bargeIn.minSpeechMs(p, ms) };
  }

  /** Engine work is in flight. */
  get busy(): boolean {
    return this.pending.some((p) => p.reply.busy) || !!this.draft?.busy || this.notices.busy || this.deciding > 0;
  }

  /** What rang and what is next when last told (see tick). */
  private ringingKey = '';
  /** Discarded speech whose words are being recognized, to tell a short command from a cough. */
  private deciding = 0;

  /** An answer is being made or played, or playback is held for speech that may be a barge-in. */
  get active(): boolean {
    return this.pending.length > 0 || this.bargeIn.holding || this.notices.active;
  }

  get answering(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Where the assistant is: nothing to say, an answer on its way, or an answer being heard. A
   * holding phrase leaves it pending: speech over it goes on with the turn, as no answer was heard.
   */
  phase(now: number): AssistantPhase {
    const position = this.output.position(now);
    // A timer's notice is speech like an answer: "stop" over it stops it.
    if (this.notices.speaking(position)) return 'speaking';
    if (this.pending.length === 0) return 'idle';
    const speaking = this.pending.some(({ reply: r }) => {
      const span = r.audioSpan;
      return !r.aborted && r.heardBy(position) && (r.busy || (span !== null && position < span.to));
    });
    return speaking ? 'speaking' : 'pending';
  }

  onTurnEvent(e: TurnEvent): void {
    switch (e.type) {
      case 'candidate':
        this.apply(this.bargeIn.onCandidate(e.atMs, e.phase));
        break;
      case 'speech-start':
        this.dropDraft(true);
        this.apply(this.bargeIn.onSpeechStart(e.atMs, this.phase(e.atMs)), e.startMs);
        break;
      case 'key-down':
      case 'activation':
        // Both are explicit: the answer stops at once (or, unheard, the turn goes on), no confirmation needed.
        this.dropDraft(true);
        this.apply(this.bargeIn.onKeyPress(e.atMs, this.phase(e.atMs)), e.type === 'key-down' ? e.startMs : e.atMs);
        break;
      case 'discarded': {
        if (!this.bargeIn.holding) break;
        // "stop" is shorter than a barge-in needs: if that is what it was, it still stops the answer.
        // Playback stays held the few ms the recognizer takes to say.
        this.deciding++;
        void e.words
          .then((words) => {
            const word = isShortCommand(words);
            const now = this.clock.now();
            if (word) this.shortCommand(word, now);
            else this.apply(this.bargeIn.onDiscarded(now));
          })
          .finally(() => this.deciding--);
        break;
      }
      case 'words': {
        const word = isShortCommand(e.text);
        if (word && (this.bargeIn.holding || this.phase(e.atMs) === 'speaking')) this.shortCommand(word, e.atMs);
        break;
      }
      case 'pause':
        this.prepare(e.tentative);
        break;
      case 'resume':
        this.dropDraft(false);
        break;
      case 'end-of-turn':
        this.answer(e.turn);
        break;
    }
  }

  /**
   * The user paused and the turn may be over: prepare the answer now, held back until the turn ends.
   * Only when nothing else is being answered, so a draft never races another reply on the LLM.
   */
  private prepare(tentative: (() => Promise<string>) | null): void {
    if (!tentative || !this.settings().prepareAnswers || this.pending.length > 0 || this.bargeIn.holding) return;
    this.dropDraft(false);
    this.refreshNow();
    const own = tentative();
    const carried = this.carried?.transcript;
    const words = carried ? Promise.all([carried, own]).then((parts) => parts.filter(Boolean).join(' ')) : own;
    const draft = new Draft(
      {
        llm: this.engines.llm,
        conversation: this.conversation,
        tts: this.tts,
        output: this.output,
        clock: this.clock,
        options: () => this.replyOptions(),
        before: this.llmChain,
        isCommand: (text) => matchCommand(text) !== null,
      },
      words,
    );
    this.draft = draft;
    this.draftedAtMs = draft.startedMs;
    this.llmChain = draft.done;
  }

  /** The draft will not be used: the user went on (or a new turn began: `newTurn` forgets it was ever made). */
  private dropDraft(newTurn: boolean): void {
    this.draft?.drop();
    this.draft = null;
    if (newTurn) this.draftedAtMs = null;
  }

  private replyOptions() {
    const s = this.settings();
    return { maxTokens: s.llm.maxTokens, temperature: s.llm.temperature, speakerId: s.tts.speakerId, speed: s.tts.speed };
  }

  /** A short word over what the assistant says: "stop"/"cancel" stop it (and what rings), "pause" holds it. */
  private shortCommand(word: 'stop' | 'cancel' | 'pause', atMs: number): void {
    if (word !== 'pause') this.stopRinging();
    this.apply(this.bargeIn.onShortCommand(word, atMs, this.phase(atMs)));
  }

  /** `speechStartMs`: where the speech (or key press) that led to these decisions began. */
  private apply(decisions: BargeInDecision[], speechStartMs: number | null = null): void {
    for (const d of decisions) {
      switch (d.type) {
        case 'pause':
          this.output.pause(d.atMs);
          this.events.emit({ type: 'playback', t: d.atMs, action: 'paused' });
          break;
        case 'resume':
          this.output.resume(d.atMs);
          this.events.emit({ type: 'playback', t: d.atMs, action: 'resumed' });
          break;
        case 'interrupt':
          this.interrupt(d.atMs, d.pausedAtMs, speechStartMs);
          break;
        case 'continue-turn':
          this.continueTurn(d.atMs);
          break;
      }
    }
  }

  /**
   * The user spoke over an answer: playback stops (it already paused at `pausedAtMs` if the policy
   * held it), the answer is cancelled, and history keeps what was heard.
   */
  private interrupt(atMs: number, pausedAtMs: number, speechStartMs: number | null): void {
    this.dropDraft(false);
    const playedTo = this.output.position(atMs);
    const stoppedMs = this.output.paused ? pausedAtMs : atMs;
    this.output.stop(atMs);
    this.notices.cancel(playedTo);
    for (const p of this.pending) {
      p.holding?.discard();
      if (p.reply.aborted) continue;
      if (p.reply.heardBy(playedTo)) {
        p.reply.cancel(playedTo, stoppedMs);
        p.reply.record.bargeIn = { detectedMs: round(atMs), playbackStoppedMs: round(stoppedMs), speechStartMs: speechStartMs === null ? null : round(speechStartMs) };
      } else p.reply.discard();
      // A reply that had finished producing is not waited on by the LLM chain: fix history now.
      if (p.settled) this.updateHistory(p.reply);
    }
  }

  /**
   * The user went on talking before hearing any answer: the pending answers are dropped (never
   * played, not in history) and the turn in progress continues the last of them.
   */
  private continueTurn(atMs: number): void {
    this.dropDraft(false);
    this.output.stop(atMs);
    for (const p of this.pending.splice(0)) {
      p.holding?.discard();
      p.reply.discard();
      if (p.settled) this.updateHistory(p.reply);
      const first = this.carried ?? p.reply.record;
      this.carried = { speechStartMs: first.speechStartMs, startedBy: first.startedBy, transcript: p.reply.transcript };
      this.events.emit({ type: 'merged', t: atMs, turn: p.reply.turn });
    }
  }

  /**
   * The user's side closed with no turn (one-shot listening no one spoke into): words carried over
   * from an unheard answer it dropped go too, rather than join a turn that comes much later.
   */
  dropCarried(): void {
    this.carried = null;
  }

  /** History keeps only what the user heard: all of an answer, its heard part, or nothing. */
  private updateHistory(reply: Reply): void {
    if (reply.record.generated) this.conversation.settle(reply.turn, reply.settlement);
  }

  /** Starts the answer to a turn that has ended. */
  private answer(turn: EndedTurn): void {
    this.refreshNow();
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
    const reply = new Reply(
      record,
      {
        llm: this.engines.llm,
        conversation: this.conversation,
        tts: this.tts,
        sink: new PlayingSink(this.output),
        clock: this.clock,
        events: this.events,
        options: () => this.replyOptions(),
        before: this.llmChain,
        ...(carried ? { carried: carried.transcript } : {}),
        ...(draft ? { draft } : {}),
        command: (text, rec) => answerLocally(text, rec, this.commands),
        say: (text) => this.notices.say(text, this.clock.now()),
      },
      turn.transcript,
    );
    const pending: PendingTurn = { reply, holding: null, settled: false };
    this.llmChain = reply.done.then(() => {
      pending.settled = true;
      this.updateHistory(reply);
    });
    this.pending.push(pending);
    this.events.emit({ type: 'end-of-turn', t: record.endOfTurnMs, turn: record.index, speechStartMs: record.speechStartMs, speechEndMs: record.speechEndMs, reason: record.endReason });
  }

  /** Runs what time alone decides: a held answer resuming, a holding phrase falling due. */
  tick(now: number): void {
    this.apply(this.bargeIn.tick(now));
    this.maybeHold(now, this.settings().turnBudgetMs);
    // A timer that falls due while anyone is talking waits for the next gap.
    const gap = this.pending.length === 0 && !this.user.active && !this.bargeIn.holding && !this.notices.speaking(this.output.position(now));
    this.notices.tick(now, gap);
    // Fired, rung out or stopped: the app stores the change and the window shows it.
    const ringing = this.timers.book.ringing(this.epochAt(now)).map((t) => t.id).join(',') + '|' + String(this.timers.book.nextDueMs());
    if (ringing !== this.ringingKey) {
      this.ringingKey = ringing;
      this.timersChanged();
    }
  }

  /** The earliest pipeline time at which a timeout falls due, or null when none is pending. */
  nextWakeMs(): number | null {
    const due = this.holdingDue(this.settings().turnBudgetMs).map((h) => h.atMs);
    const resume = this.bargeIn.resumeAtMs;
    if (resume !== null) due.push(resume);
    const ring = this.notices.nextWakeMs(this.clock.now());
    if (ring !== null) due.push(ring);
    return due.length > 0 ? Math.min(...due) : null;
  }

  /** Turns still waiting for their answer's first audio, and when a holding phrase is due for each. */
  private holdingDue(budgetMs: number): { turn: PendingTurn; atMs: number }[] {
    return this.pending
      .filter(({ reply: r, holding }) => !holding && !r.aborted && r.busy && r.audioSpan === null && r.record.userText)
      .map((turn) => ({ turn, atMs: turn.reply.record.endOfTurnMs + budgetMs }));
  }

  /** No answer audio within the turn budget: say a holding phrase so the user knows they were heard. */
  private maybeHold(now: number, budgetMs: number): void {
    if (this.user.hasCandidate || this.bargeIn.holding) return;
    for (const { turn: p, atMs } of this.holdingDue(budgetMs)) {
      if (now < atMs) continue;
      const phrase = this.holding.next();
      if (!phrase) continue;
      p.reply.record.holdingPhrase = true;
      p.holding = new Utterance({ kind: 'audio', ...phrase }, { tts: this.tts, sink: new PlayingSink(this.output), clock: this.clock, voice: () => this.settings().tts });
      this.events.emit({ type: 'holding-phrase', t: now, turn: p.reply.turn, text: phrase.text });
    }
  }

  /** Reports turns whose reply is complete and whose audio has finished playing. */
  settle(now: number): void {
    const position = this.output.position(now);
    while (this.pending.length > 0) {
      const p = this.pending[0]!;
      const span = p.reply.audioSpan;
      if (!p.settled || (span && !p.reply.aborted && position < span.to)) break;
      this.pending.shift();
      if (p.reply.record.userText) this.report(p.reply);
    }
    if (this.pending.length === 0 && !this.bargeIn.holding && !this.user.active) this.holding.prepare(this.settings().tts);
  }

  private report(reply: Reply): void {
    const report = turnReport(reply.record, this.output);
    if (report.assistantText && report.command?.name !== 'repeat') this.lastAnswer = report.assistantText;
    this.reports.push(report);
    if (this.reports.length > this.keepReports) this.reports.shift();
    this.events.emit({ type: 'turn', t: this.clock.now(), turn: reply.turn, report });
  }

  /**
   * The user asked for silence (a stop button, Escape), in any mode: the answer being spoken stops
   * now and keeps its heard part in history; answers not yet heard are dropped.
   */
  stopSpeaking(now: number): void {
    this.bargeIn.reset();
    if (this.pending.some((p) => !p.reply.aborted)) this.interrupt(now, now, null);
  }

  /** Forgets the conversation once any answer has stopped: the history is cleared (system prompt kept). */
  async resetConversation(): Promise<void> {
    this.dropDraft(true);
    this.carried = null;
    await this.drain();
    this.conversation.reset();
  }

  /** Resolves when every reply has been produced (audio may still be scheduled to play). */
  async drain(): Promise<void> {
    await Promise.all(this.pending.map((p) => p.reply.done));
    await this.llmChain;
  }
}
