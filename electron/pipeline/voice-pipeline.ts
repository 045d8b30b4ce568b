import type { Toolbox } from '../tools/toolbox';
import type { SpeechRecognizer } from '../engines/stt';
import type { VoiceActivityDetector } from '../engines/vad';
import type { LanguageModel } from '../engines/llm-types';
import type { SpeechSynthesizer } from '../engines/tts';
import type { TurnDetector } from '../engines/turn-detector';
import type { Settings } from '../settings/schema';
import type { Clock } from './clock';
import type { Conversation } from './respond/conversation';
import { EventHub, type AssistantState } from './events';
import { ListenCues } from './speak/listen-cue';
import { WindowFramer } from './listen/mic-input';
import type { OneShotChange } from './turns/one-shot';
import type { AudioOutput } from './speak/output';
import type { TurnReport } from './report';
import { BargeInPolicy } from './respond/barge-in';
import { Responding } from './respond/responding';
import type { PipelineContext } from './context';
import { TimerBook } from '../timers/timer-book';
import { MemoryBook } from '../memory/memory-book';
import { PipelineMemory, type MemoryOptions } from './skills/memory';
import type { MemoryToolHost } from '../tools/memory-tools';
import type { TimerView } from '../timers/timer-view';
import { TurnTaking } from './turns/turn-taking';
import type { EndReason, OneShotState } from './vocabulary';

export interface PipelineEngines {
  vad: VoiceActivityDetector;
  stt: SpeechRecognizer;
  llm: LanguageModel;
  tts: SpeechSynthesizer;
  /** The end-of-turn model, when one is installed: without it, silence alone ends a turn. */
  turn?: TurnDetector | null;
  /** The tools the language model may call (electron/tools/); none when absent. */
  tools?: Toolbox | null;
}

/**
 * The voice pipeline the app runs: microphone audio in, spoken answers out. It imports nothing
 * from Electron; the app, `talk`, tests and benchmarks all drive this same class. It is a thin
 * facade: turn taking (turn-taking.ts) listens and says when the user's turn ends; responding
 * (responding.ts) answers, and decides what the user's speech does to an answer under way.
 */
export class VoicePipeline {
  readonly events = new EventHub();
  private readonly turns: TurnTaking;
  private readonly responding: Responding;
  private readonly cues: ListenCues;
  private readonly framer = new WindowFramer();
  private readonly frames: Float32Array[] = [];
  private processing: Promise<void> = Promise.resolve();
  private state: AssistantState = 'listening';

  constructor(
    engines: PipelineEngines,
    private readonly output: AudioOutput,
    private readonly clock: Clock,
    private readonly settings: () => Settings,
    /**
     * keepReports: how many reports `reports` keeps (default: all); an app that runs for days keeps the newest.
     * timers: the timers and alarms (the app's, loaded from disk; default: none yet), `epochBase` the epoch
     * time at pipeline time 0 (default: now; `talk --now` sets the time of day), `onTimersChanged` to store them.
     * onCleaned: each window as the echo canceller left it (`talk --cleaned`).
     * memory: the facts the user asked to be kept, as loaded, and where they and the history are stored
     * (default: an empty memory kept only while the pipeline runs, and no history to search).
     */
    options: { keepReports?: number; timers?: TimerBook; epochBase?: number; onTimersChanged?: (book: TimerBook) => void; onCleaned?: (window: Float32Array) => void; memory?: MemoryOptions } = {},
  ) {
    const ctx: PipelineContext = { clock, settings, events: this.events, output };
    // One policy decides what speech does to an answer; turn taking asks it whether speech counts.
    const bargeIn = new BargeInPolicy(() => settings().bargeIn);
    this.turns = new TurnTaking(ctx, engines, {
      gate: bargeIn,
      onTurn: (e) => this.responding.onTurnEvent(e),
      onOneShot: (c) => this.oneShotChanged(c),
      ...(options.onCleaned ? { onCleaned: options.onCleaned } : {}),
    });
    this.memory = new PipelineMemory(options.memory ?? { book: new MemoryBook() }, settings, clock, this.events);
    this.responding = new Responding(ctx, engines, {
      memory: this.memory,
      user: this.turns,
      bargeIn,
      keepReports: options.keepReports ?? Infinity,
      echoOver: (fromMs, toMs) => this.turns.echoOver(fromMs, toMs),
      timers: {
        book: options.timers ?? new TimerBook(),
        epochBase: options.epochBase ?? Date.now() - clock.now(),
        ...(options.onTimersChanged ? { changed: options.onTimersChanged } : {}),
      },
    });
    this.cues = new ListenCues({ output, events: this.events, sampleRate: () => engines.tts.sampleRate, enabled: () => settings().desktop.listenChime });
    // The wake phrase said alone: the same cue as one-shot listening says "go on".
    this.events.on((e) => {
      if (e.type === 'wake-phrase' && e.state === 'listening') this.cues.play('start', e.t);
    });
  }

  /** The facts the user asked to be kept (the window lists, deletes and clears them here). */
  readonly memory: PipelineMemory;

  /**
   * Resolves once the model has evaluated the system prompt with the remembered facts (it loaded
   * without them): a run that starts talking at once (talk, bench) waits for it as for the models.
   */
  ready(): Promise<void> {
    return this.responding.warmed;
  }

  /** What the memory tools (remember, forget, search_history) do in this pipeline. */
  get memoryTools(): MemoryToolHost {
    return this.responding.memoryTools;
  }

  /** The facts in the system prompt must change (the Memory panel deleted or cleared them, a setting changed). */
  refreshSystemPrompt(): void {
    this.responding.refreshSystemPrompt();
  }

  /** Finished turns' reports, the newest `keepReports` of them (every one is also a 'turn' event). */
  get reports(): TurnReport[] {
    return this.responding.reports;
  }

  /** What the language model is given each turn: the system prompt and what the user heard. */
  get conversation(): Conversation {
    return this.responding.conversation;
  }

  /** Timers and alarms still pending or ringing. */
  timers(): TimerView[] {
    return this.responding.timerViews();
  }

  /** Epoch ms at pipeline time `ms` (what the timers run on). */
  epochAt(ms: number): number {
    return this.responding.epochAt(ms);
  }

  /** Cancels a pending timer or alarm (the window's cancel button). */
  cancelTimer(id: string): void {
    this.responding.cancelTimer(id);
  }

  /** The window's Run or Cancel for the open question about a tool that changes something. */
  decideConfirmation(id: string, run: boolean): void {
    this.responding.decideConfirmation(id, run);
  }

  /** Stops what rings (the window's Stop button). */
  stopRinging(): void {
    this.responding.stopRinging();
  }

  /** The echo canceller's time per 32 ms window lately (ms), for the benchmark. */
  get echoCostMs(): readonly number[] {
    return this.turns.echoCostMs;
  }

  /** Input time: milliseconds of audio received so far. */
  get audioMs(): number {
    return this.turns.audioMs;
  }

  /** Engine work is in flight: a fast clock must run at wall speed now. */
  get busy(): boolean {
    return this.turns.busy || this.responding.busy;
  }

  /** A reply is still being produced or played, or the user may be talking. */
  get active(): boolean {
    return this.responding.active || this.turns.active;
  }

  /**
   * Feeds 16 kHz mono audio of any length. Non-finite samples are zeroed and values clamped,
   * so a broken capture cannot poison the models. Windows are processed in order; the promise
   * resolves once this audio has been.
   */
  pushAudio(input: Float32Array): Promise<void> {
    this.frames.push(...this.framer.push(input));
    this.processing = this.processing.then(() => this.drainFrames());
    return this.processing;
  }

  private async drainFrames(): Promise<void> {
    for (let w = this.frames.shift(); w; w = this.frames.shift()) {
      try {
        const heard = await this.turns.hear(w, this.frames.length > 0);
        // The phase as the window was heard decides what its speech means; timeouts due by then run first.
        const phase = this.responding.phase(heard.now);
        this.responding.tick(heard.now);
        this.turns.tick(heard.now);
        this.turns.decide(heard, phase);
      } catch (e) {
        // One bad window (a VAD failure) must not stop the assistant from listening.
        this.events.emit({ type: 'error', t: this.clock.now(), message: `Audio processing failed: ${(e as Error).message}` });
      }
    }
    this.settle();
  }

  /**
   * Push-to-talk key. Pressing starts a turn (and stops any answer at once); releasing ends it
   * right away, with no silence wait. Only acts in push-to-talk mode.
   */
  pushToTalk(down: boolean): void {
    if (this.settings().mode !== 'push-to-talk') return;
    if (this.turns.pushToTalk(down)) this.setState('hearing', this.turns.timeline.toClock(this.turns.audioMs));
  }

  /**
   * One-shot activation (the shortcut, the tray, the window's button); only acts in one-shot mode.
   * Idle, it opens the microphone for one turn, which ends by the usual rules; during that turn it
   * ends it at once (`endReason: "activation"`); opened with no speech yet, it closes it. Whatever it
   * does, an answer being spoken stops at once, as for a push-to-talk press (one not yet heard is
   * dropped, and the turn it opens continues the unanswered one).
   */
  activate(): void {
    if (this.settings().mode !== 'one-shot') return;
    const now = this.clock.now();
    this.turns.activate(now, this.responding.phase(now));
    this.updateState(now);
  }

  /** Where one-shot listening stands (`turn`: the user is taking the turn it opened); null outside one-shot mode. */
  get oneShot(): OneShotState | null {
    return this.turns.oneShotState;
  }

  private oneShotChanged(c: OneShotChange): void {
    this.events.emit({ type: 'one-shot', t: c.atMs, state: c.state, reason: c.reason });
    if (c.state === 'armed') this.cues.play('start', c.atMs);
    else if (c.state === 'idle') this.cues.play('stop', c.atMs);
    if (c.state === 'idle' && c.from === 'armed') this.responding.dropCarried();
    this.updateState(c.atMs);
  }

  /**
   * Runs what time alone decides (a held answer resuming, a holding phrase), then reports finished
   * turns. The audio loop runs the same timeouts each window; the app's timer calls this, so they
   * also fire while no microphone audio arrives (muted, capture stopped).
   */
  tick(): void {
    const now = this.clock.now();
    this.responding.tick(now);
    this.turns.tick(now);
    this.settle();
  }

  /**
   * The earliest pipeline time at which a timeout falls due, or null when none is pending: a feeder
   * that stops when the pipeline goes quiet must go on until then. It may lie in the past while
   * the user is talking (a holding phrase waits for them).
   */
  nextWakeMs(): number | null {
    const due = [this.responding.nextWakeMs(), this.turns.oneShotDueMs].filter((t): t is number => t !== null);
    return due.length > 0 ? Math.min(...due) : null;
  }

  /** Reports turns whose reply is complete and whose audio has finished playing. */
  settle(): void {
    const now = this.clock.now();
    this.responding.settle(now);
    this.updateState(now);
  }

  private updateState(now: number): void {
    const phase = this.responding.phase(now);
    const state: AssistantState = this.turns.hearing
      ? 'hearing'
      : phase === 'speaking' && !this.output.paused
        ? 'speaking'
        : this.responding.answering
          ? 'thinking'
          : this.turns.oneShotState === 'idle'
            ? 'idle'
            : 'listening';
    this.setState(state, now);
  }

  /** Ends whatever turn is in progress (end of input, microphone stopped); one-shot listening stops too. */
  endTurnNow(reason: EndReason): void {
    this.turns.endTurnNow(reason);
  }

  /**
   * The user asked for silence (a stop button, Escape), in any mode: the answer being spoken stops
   * now and keeps its heard part in history; answers not yet heard are dropped.
   */
  stopSpeaking(): void {
    const now = this.clock.now();
    this.responding.stopSpeaking(now);
    this.updateState(now);
  }

  /** Forgets the conversation: stops any answer, then clears the history (system prompt kept). */
  async resetConversation(): Promise<void> {
    this.stopSpeaking();
    await this.responding.resetConversation();
  }

  /** Resolves when every reply has been produced (audio may still be scheduled to play). */
  async drain(): Promise<void> {
    await this.responding.drain();
  }

  private setState(state: AssistantState, t: number): void {
    if (state === this.state) return;
    this.state = state;
    this.events.emit({ type: 'state', t, state });
  }
}
