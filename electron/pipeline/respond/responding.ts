import type { Toolbox } from '../../tools/toolbox';
import type { LanguageModel } from '../../engines/llm-types';
import type { SpeechSynthesizer } from '../../engines/tts';
import { isShortCommand } from '../../commands/match';
import type { TimerView } from '../../timers/timer-view';
import type { PipelineContext } from '../context';
import { type EchoReport, type TurnReport } from '../report';
import { answerLocally, type CommandHost } from '../skills/local-commands';
import { Notices } from '../skills/notices';
import { PipelineTimers, type TimerOptions } from '../skills/timers';
import { serialSynthesizer } from '../speak/tts-queue';
import type { EndedTurn, TurnEvent } from '../turns/turn-events';
import type { AssistantPhase } from '../vocabulary';
import { Answers } from './answers';
import { AcknowledgementJudge, type Traits } from './acknowledgement-policy';
import { ACK_GAP_MAX_MS, BargeInPolicy, type BargeInDecision } from './barge-in';
import { applyDecisions, interruptAnswers, type PlaybackParts } from './playback-decisions';
import { Conversation } from './conversation';
import { ToolConfirmations } from './confirmation';
import type { Reply } from './reply';
import { turnReport } from './turn-record';
import { WakeGate } from './wake-gate';
import { SystemPrompt } from './system-prompt';
import { PresentLine } from './present-line';
import type { PipelineMemory } from '../skills/memory';
import { searchHistory } from '../../memory/history-search';
import { memoryToolHost } from '../skills/memory-commands';
import type { MemoryToolHost } from '../../tools/memory-tools';

/** The user's side of an exchange in which they pressed Run in the window, as the model reads it. */
export const WINDOW_RUN_WORDS = '(I pressed Run in the window: go ahead.)';

/** What responding needs to know of the user's side. */
export interface UserTurnState {
  /** Speech that may become a turn is in progress. */
  readonly hasCandidate: boolean;
  /** The user may be talking. */
  readonly active: boolean;
  /** The words of the speech in progress, decoded now (null when they cannot be). */
  peekWords?(): Promise<string> | null;
  /** How the speech in progress sounds so far (null when none is). */
  speechTraits?(): Traits | null;
}

export interface RespondingOptions {
  /** The user's side (turn taking), asked as time passes. */
  user: UserTurnState;
  /** Decides what the user's speech does to an answer; turn taking asks it as its gate too. */
  bargeIn: BargeInPolicy;
  /** How many reports `reports` keeps. */
  keepReports: number;
  timers: TimerOptions;
  /** How well the echo was cancelled over a span an answer played (turn taking's meter). */
  echoOver?: (fromMs: number, toMs: number) => EchoReport;
  /** The facts the user asked to be kept, and the history search (skills/memory.ts); null: none. */
  memory: PipelineMemory | null;
}

/**
 * Responding: turn events in, spoken answers out. It owns the conversation and decides, through
 * the barge-in policy, what the user's speech does to the answers under way (answers.ts keeps and
 * acts on them); timers' notices and local commands answer beside them. Every decision that time
 * alone makes runs from `tick`.
 */
export class Responding {
  /** What the language model is given each turn: the system prompt and what the user heard. */
  readonly conversation: Conversation;
  /** Finished turns' reports, the newest `keepReports` of them (every one is also a 'turn' event). */
  readonly reports: TurnReport[] = [];
  private readonly bargeIn: BargeInPolicy;
  private readonly answers: Answers;
  private readonly timers: PipelineTimers;
  private readonly notices: Notices;
  private readonly commands: CommandHost;
  /** The last answer the assistant spoke, for "repeat that". */
  private lastAnswer: string | null = null;
  /** Speech over the answer whose words are being recognized, to tell a short command or an acknowledgement from a cough. */
  private deciding = 0;
  /** Judges speech over the answer (words and how it sounded) against `bargeIn.acknowledgements`. */
  private readonly acks: AcknowledgementJudge;
  /** Which ended turns are requests (wake-phrase mode). */
  private readonly wake: WakeGate;
  /** The question about a tool that changes something, open until the next turn or silence. */
  private readonly confirmations = new ToolConfirmations();
  private readonly tools: Toolbox | null;
  /** The line about the present the model is given with the user's words. */
  private readonly present: PresentLine;
  /** The system prompt with the remembered facts. */
  private readonly prompt: SystemPrompt;
  /** The system prompt with the remembered facts evaluated (a model that runs here; at once for a server). */
  warmed: Promise<void> = Promise.resolve();
  /** The memory's tools at work in this pipeline (tools/memory-tools.ts). */
  readonly memoryTools: MemoryToolHost;

  constructor(
    private readonly ctx: PipelineContext,
    engines: { llm: LanguageModel; tts: SpeechSynthesizer; tools?: Toolbox | null },
    private readonly options: RespondingOptions,
  ) {
    const { clock, events, output, settings } = ctx;
    const tts = serialSynthesizer(engines.tts);
    this.bargeIn = options.bargeIn;
    this.acks = new AcknowledgementJudge(() => settings().bargeIn.acknowledgements);
    this.tools = engines.tools ?? null;
    this.prompt = new SystemPrompt(settings, options.memory, (text) => engines.llm.countTokens(text));
    this.conversation = new Conversation(this.prompt.build());
    const memory = options.memory;
    const historyDir = memory?.historyDir ?? null;
    this.timers = new PipelineTimers(options.timers, clock, events);
    const timers = this.timers;
    this.notices = new Notices({ book: timers.book, epochAt: (ms) => timers.epochAt(ms), tts, output, clock, events, voice: () => settings().tts, changed: () => timers.changed() });
    this.commands = {
      timers: timers.book,
      conversation: this.conversation,
      memory,
      refreshPrompt: () => this.refreshSystemPrompt(),
      searchHistory: historyDir === null ? null : (q) => searchHistory(historyDir, q),
      historyKeepsText: () => settings().history.logText,
      epochAt: (ms) => timers.epochAt(ms),
      lastAnswer: () => this.lastAnswer,
      timersChanged: () => timers.changed(),
      settlePause: (resume) => this.apply(this.bargeIn.onTurnAfterPause(resume, clock.now())),
    };
    this.memoryTools = memoryToolHost(this.commands, () => this.epochAt(clock.now()));
    this.answers = new Answers(ctx, {
      llm: engines.llm,
      tools: engines.tools ?? null,
      conversation: this.conversation,
      tts,
      clock,
      options: () => {
        const s = settings();
        return { maxTokens: s.llm.maxTokens, temperature: s.llm.temperature, speakerId: s.tts.speakerId, speed: s.tts.speed, firstChunkWords: s.tts.firstChunkWords };
      },
      command: (text, endOfTurnMs) => answerLocally(text, endOfTurnMs, this.commands),
      say: (text) => this.notices.say(text, clock.now()),
      confirmations: this.confirmations,
    });
    // The model evaluated the prompt without the remembered facts when it loaded: with them, now, before anyone talks.
    if (this.prompt.inPrompt.facts > 0) this.warmed = this.answers.warmPrompt();
    this.present = new PresentLine(this.conversation, () => this.epochAt(clock.now()));
    this.wake = new WakeGate(ctx, (turn) => {
      this.present.answering();
      this.answers.start(turn);
    });
  }

  /** The system prompt built again: its text or the facts in it changed (settings, the Memory panel). */
  refreshSystemPrompt(): void {
    const before = this.conversation.systemPrompt;
    this.conversation.setSystemPrompt(this.prompt.build());
    if (this.conversation.systemPrompt !== before) this.warmed = this.answers.warmPrompt();
  }

  /** Epoch ms at pipeline time `ms`. */
  epochAt(ms: number): number {
    return this.timers.epochAt(ms);
  }

  /** Timers and alarms still pending or ringing, for the window. */
  timerViews(): TimerView[] {
    return this.timers.views();
  }

  /** The window's cancel button: a pending timer or alarm by id. */
  cancelTimer(id: string): void {
    this.timers.cancel(id);
  }

  /** The window's Stop button, or "stop" said: what rings stops. */
  stopRinging(): void {
    this.timers.stopRinging();
  }

  /** A turn began: the present as of now, unless it may continue an answer not yet heard (PresentLine). */
  private turnBegins(): void {
    this.present.turnBegins(!this.answers.any && !this.answers.continuing);
  }

  /** Engine work is in flight. */
  get busy(): boolean {
    return this.answers.busy || this.notices.busy || this.deciding > 0;
  }

  /** An answer is being made or played, or playback is held for speech that may be a barge-in. */
  get active(): boolean {
    return this.answers.any || this.bargeIn.holding || this.notices.active;
  }

  get answering(): boolean {
    return this.answers.any;
  }

  /**
   * Where the assistant is: nothing to say, an answer on its way, or an answer being heard. A
   * holding phrase leaves it pending: speech over it goes on with the turn, as no answer was heard.
   */
  phase(now: number): AssistantPhase {
    const position = this.ctx.output.position(now);
    // A timer's notice is speech like an answer: "stop" over it stops it.
    if (this.notices.speaking(position)) return 'speaking';
    return this.answers.phase(position);
  }

  onTurnEvent(e: TurnEvent): void {
    switch (e.type) {
      case 'candidate': {
        // Only speech over an answer being heard can be held: the scan is not made for every turn's start.
        const quiet = e.phase === 'speaking' ? this.ctx.output.quietAround(this.ctx.output.position(e.atMs), ACK_GAP_MAX_MS) : null;
        const level = e.phase === 'speaking' ? (this.options.user.speechTraits?.()?.levelDb ?? null) : null;
        this.apply(this.bargeIn.onCandidate(e.atMs, e.phase, e.startMs, e.turn, quiet ? quiet.beforeMs + quiet.afterMs : 0, level));
        break;
      }
      case 'speech-start':
        this.turnBegins();
        this.answers.dropDraft(true);
        this.apply(this.bargeIn.onSpeechStart(e.atMs, this.phase(e.atMs)), e.startMs);
        break;
      case 'key-down':
      case 'activation':
        this.turnBegins();
        // Both are explicit: the answer stops at once (or, unheard, the turn goes on), no confirmation needed.
        this.answers.dropDraft(true);
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
            const now = this.ctx.clock.now();
            if (word) this.shortCommand(word, now);
            else this.apply(this.bargeIn.onDiscarded(now, { ...this.acks.judge(words, e.traits ?? null, true, true), text: words }));
          })
          .finally(() => this.deciding--);
        break;
      }
      case 'words':
        this.heardWords(e.text, e.atMs);
        if (this.ctx.settings().prepareAnswers && !this.bargeIn.holding) {
          if (!this.present.set) this.turnBegins();
          void this.wake
            .requestWords(() => Promise.resolve(e.text))()
            .then((words) => this.answers.heard(words));
        }
        break;
      case 'pause':
        // Acknowledgement-like words and a pause: full volume while the end of the turn is awaited. The
        // pause ends the speech so far, so it is judged as ended (if it goes on, it is judged again).
        if (this.bargeIn.decidingTurn && e.tentative) {
          this.deciding++;
          void e
            .tentative()
            .then((words) => this.apply(this.bargeIn.onWords(this.ctx.clock.now(), this.acks.judge(words, this.options.user.speechTraits?.() ?? null, true).verdict, true)))
            .catch(() => {})
            .finally(() => this.deciding--);
        }
        // Only when nothing else is being answered, so a draft never races another reply on the LLM.
        if (!e.tentative || !this.ctx.settings().prepareAnswers || this.answers.any || this.bargeIn.holding) break;
        this.answers.dropDraft(false);
        if (!this.present.set) this.turnBegins();
        this.answers.prepare(this.wake.requestWords(e.tentative));
        break;
      case 'resume':
        this.answers.dropDraft(false);
        this.apply(this.bargeIn.onSpeechResumed(e.atMs));
        break;
      case 'end-of-turn':
        if (this.bargeIn.decidingTurn) this.judgeTurn(e.turn);
        else this.answer(e.turn);
        break;
    }
  }

  /** Words of the speech in progress (interim, or decoded on demand): a short command over the answer, or what they say of speech being judged. */
  private heardWords(text: string, atMs: number): void {
    const word = isShortCommand(text);
    if (word && (this.bargeIn.holding || this.phase(atMs) === 'speaking')) this.shortCommand(word, atMs);
    else if (this.bargeIn.deciding) this.apply(this.bargeIn.onWords(atMs, this.acks.judge(text, this.options.user.speechTraits?.() ?? null, false).verdict));
  }

  /** Asks for the words of the speech being judged, decoded now, and lets them decide. */
  private peekWords(user: UserTurnState): void {
    const words = user.peekWords?.();
    if (!words) return;
    this.deciding++;
    void words
      .then((text) => this.heardWords(text, this.ctx.clock.now()))
      .catch(() => {})
      .finally(() => this.deciding--);
  }

  /**
   * A turn made of speech over the answer that no word had yet shown to be an interruption: its
   * final words decide. An acknowledgement is no turn (not answered, not in history); anything
   * else stops the answer and is answered as usual.
   */
  private judgeTurn(turn: EndedTurn): void {
    this.deciding++;
    void turn.transcript
      .then(
        ({ text }) => text,
        () => '',
      )
      .then((text) => {
        const { verdict, evidence } = this.acks.judge(text, turn.traits ?? null, true);
        const decisions = this.bargeIn.onTurnEnded(this.ctx.clock.now(), verdict, text, evidence);
        this.apply(decisions);
        if (!decisions.some((d) => d.type === 'backchannel')) this.answer(turn);
      })
      .finally(() => this.deciding--);
  }

  /** A short word over what the assistant says: "stop"/"cancel" stop it (and what rings), "pause" holds it. */
  private shortCommand(word: 'stop' | 'cancel' | 'pause', atMs: number): void {
    if (word !== 'pause') this.stopRinging();
    this.apply(this.bargeIn.onShortCommand(word, atMs, this.phase(atMs)));
  }

  /** `speechStartMs`: where the speech (or key press) that led to these decisions began. */
  private apply(decisions: BargeInDecision[], speechStartMs: number | null = null): void {
    applyDecisions(decisions, speechStartMs, this.playback());
  }

  private playback(): PlaybackParts {
    return { output: this.ctx.output, events: this.ctx.events, answers: this.answers, notices: this.notices };
  }

  /**
   * The user's side closed with no turn (one-shot listening no one spoke into): words carried over
   * from an unheard answer it dropped go too, rather than join a turn that comes much later.
   */
  dropCarried(): void {
    this.answers.dropCarried();
  }

  /** Starts the answer to a turn that has ended (in wake-phrase mode, once its words show it is a request). */
  private answer(turn: EndedTurn): void {
    const deciding = this.wake.route(turn);
    if (!deciding) return;
    this.deciding++;
    void deciding.finally(() => this.deciding--);
  }

  /** Runs what time alone decides: a held answer resuming, a holding phrase falling due, a timer ringing. */
  tick(now: number): void {
    const { user } = this.options;
    // Speech over the answer that has grown loud keeps it silent a little longer while it is judged.
    if (this.bargeIn.deciding) this.bargeIn.onLevel(now, user.speechTraits?.()?.levelDb ?? null);
    this.apply(this.bargeIn.tick(now));
    // Speech over the answer being judged: its words now, not at the recognizer's next interim result.
    if (this.bargeIn.peekDue(now)) this.peekWords(user);
    // The phrase alone was not followed by a request in time (speech begun by then still counts).
    this.wake.tick(now, user.hasCandidate);
    if (!user.hasCandidate && !this.bargeIn.holding) this.answers.hold(now, this.ctx.settings().turnBudgetMs);
    // A timer that falls due while anyone is talking waits for the next gap.
    const gap = !this.answers.any && !user.active && !this.bargeIn.holding && !this.notices.speaking(this.ctx.output.position(now));
    this.notices.tick(now, gap);
    // Fired, rung out or stopped: the app stores the change and the window shows it.
    this.timers.watch(now);
    if (this.confirmations.expire(now, user.hasCandidate || this.answers.any)) this.ctx.events.emit({ type: 'confirmation', t: now, pending: null });
  }

  /** The window's Run or Cancel for the open question `id`: a run is said like a yes would be. */
  decideConfirmation(id: string, run: boolean): void {
    const request = this.confirmations.decide(id, run);
    const { clock, events } = this.ctx;
    if (!this.confirmations.pending) events.emit({ type: 'confirmation', t: clock.now(), pending: null });
    if (!request || !this.tools) return;
    void this.tools.runAgreed(request, undefined, () => undefined).then(({ round, said }) => {
      // The model asked, and its question is in the history: it learns the answer came from the window.
      this.conversation.appendDone(WINDOW_RUN_WORDS, said, [round]);
      this.notices.say(said, clock.now());
    });
  }

  /** The earliest pipeline time at which a timeout falls due, or null when none is pending. */
  nextWakeMs(): number | null {
    const due = [this.answers.nextHoldingMs(this.ctx.settings().turnBudgetMs), this.bargeIn.resumeAtMs, this.notices.nextWakeMs(this.ctx.clock.now()), this.wake.untilMs, this.confirmations.expiresAtMs].filter((t): t is number => t !== null);
    return due.length > 0 ? Math.min(...due) : null;
  }

  /** Reports turns whose reply is complete and whose audio has finished playing. */
  settle(now: number): void {
    // Speech over the answer still being judged may yet be one of its acknowledgements.
    if (this.bargeIn.deciding) return;
    for (const reply of this.answers.takeFinished(this.ctx.output.position(now))) if (reply.record.userText) this.report(reply);
    if (!this.answers.any && !this.bargeIn.holding && !this.options.user.active) this.answers.prepareHolding();
  }

  private report(reply: Reply): void {
    const report = { ...turnReport(reply.record, this.ctx.output, this.options.echoOver), memory: this.prompt.inPrompt };
    if (report.assistantText && report.command?.name !== 'repeat') this.lastAnswer = report.assistantText;
    this.reports.push(report);
    if (this.reports.length > this.options.keepReports) this.reports.shift();
    this.ctx.events.emit({ type: 'turn', t: this.ctx.clock.now(), turn: reply.turn, report });
  }

  /**
   * The user asked for silence (a stop button, Escape), in any mode: the answer being spoken stops
   * now and keeps its heard part in history; answers not yet heard are dropped.
   */
  stopSpeaking(now: number): void {
    this.bargeIn.reset();
    if (this.answers.anyUnstopped) interruptAnswers(now, now, null, this.playback());
  }

  /** Forgets the conversation once any answer has stopped: the history is cleared (system prompt kept). */
  async resetConversation(): Promise<void> {
    this.answers.forget();
    await this.drain();
    this.conversation.reset();
    if (this.confirmations.clear()) this.ctx.events.emit({ type: 'confirmation', t: this.ctx.clock.now(), pending: null });
  }

  /** Resolves when every reply has been produced (audio may still be scheduled to play). */
  async drain(): Promise<void> {
    await this.answers.drain();
  }
}
