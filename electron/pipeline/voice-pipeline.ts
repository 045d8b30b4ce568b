import type { SpeechRecognizer, SttSession } from '../engines/stt';
import type { VoiceActivityDetector } from '../engines/vad';
import { VAD_SAMPLE_RATE } from '../engines/vad';
import type { LanguageModel } from '../engines/llm';
import type { SpeechSynthesizer } from '../engines/tts';
import type { Settings } from '../settings/schema';
import { AudioRing } from './audio-ring';
import type { ReportedTurn } from './report';
import { AutoGain } from './auto-gain';
import { BargeInPolicy, type AssistantPhase, type BargeInDecision } from './barge-in';
import type { Clock } from './clock';
import { Conversation } from './conversation';
import { EchoCanceller } from './echo-canceller';
import { EnergyTracker } from './energy';
import { HoldingPhrases } from './holding-phrase';
import { EventHub, type AssistantState } from './events';
import { InputTimeline, WindowFramer } from './mic-input';
import type { AudioOutput } from './output';
import { PostRoll } from './post-roll';
import { Reply } from './reply';
import { round, turnReport, type TurnReport } from './report';
import { Segmenter, type EndReason, type SegmenterEvent } from './segmenter';

export interface PipelineEngines {
  vad: VoiceActivityDetector;
  stt: SpeechRecognizer;
  llm: LanguageModel;
  tts: SpeechSynthesizer;
}

interface PendingTurn extends ReportedTurn {
  index: number;
  /** Nothing more will be produced; history has been updated. */
  settled: boolean;
}

/** A turn whose answer was dropped because the user went on talking: the next turn continues it. */
interface Carried {
  speechStartMs: number;
  transcript: Promise<string>;
}

/** Audio kept for prefix padding and boundary look-back. */
const RING_MS = 1500;

/**
 * The voice pipeline the app runs: microphone audio in, spoken answers out. It imports nothing
 * from Electron; the app, `talk`, tests and benchmarks all drive this same class.
 */
export class VoicePipeline {
  readonly events = new EventHub();
  private readonly energy = new EnergyTracker(VAD_SAMPLE_RATE);
  private readonly segmenter: Segmenter;
  private readonly bargeIn: BargeInPolicy;
  private readonly echo = new EchoCanceller({ sampleRate: VAD_SAMPLE_RATE, maxDelayMs: 250, analysisMs: 512 });
  private readonly inputGain = new AutoGain();
  private readonly postRoll = new PostRoll();
  private readonly holding: HoldingPhrases;
  /** The assistant's phase when the current speech candidate began: it sets how much speech counts. */
  private candidatePhase: AssistantPhase = 'idle';
  private carried: Carried | null = null;
  private readonly timeline: InputTimeline;
  /** Where the user's last words ended (input time). */
  private lastSpeechEndMs = -Infinity;
  private readonly ring = new AudioRing(Math.round((RING_MS / 1000) * VAD_SAMPLE_RATE));
  private readonly framer = new WindowFramer();
  private readonly frames: Float32Array[] = [];
  private processing: Promise<void> = Promise.resolve();
  private stt: SttSession | null = null;
  /** Push-to-talk key held since downMs. */
  private ptt: { downMs: number; firstSpeechMs: number | null } | null = null;
  private turnIndex = 0;
  private readonly pending: PendingTurn[] = [];
  /** Replies run one at a time on the LLM: a new one waits for the previous to settle. */
  private llmChain: Promise<void> = Promise.resolve();
  private state: AssistantState = 'listening';
  /** Finished turns' reports, the newest `keepReports` of them (every one is also a 'turn' event). */
  readonly reports: TurnReport[] = [];
  private readonly keepReports: number;
  /** What the language model is given each turn: the system prompt and what the user heard. */
  readonly conversation: Conversation;

  constructor(
    private readonly engines: PipelineEngines,
    private readonly output: AudioOutput,
    private readonly clock: Clock,
    private readonly settings: () => Settings,
    /** keepReports: how many reports `reports` keeps (default: all); an app that runs for days keeps the newest. */
    options: { keepReports?: number } = {},
  ) {
    this.keepReports = options.keepReports ?? Infinity;
    this.timeline = new InputTimeline(clock);
    this.bargeIn = new BargeInPolicy(() => this.settings().bargeIn);
    this.segmenter = new Segmenter(() => {
      const e = this.settings().endpointing;
      return { ...e, minSpeechMs: this.bargeIn.minSpeechMs(this.candidatePhase, e.minSpeechMs) };
    }, this.energy);
    this.holding = new HoldingPhrases(engines.tts);
    this.holding.prepare(settings().tts);
    this.conversation = new Conversation(settings().llm.systemPrompt);
  }

  /** Input time: milliseconds of audio received so far. */
  get audioMs(): number {
    return this.timeline.ms;
  }

  /** Engine work is in flight: a fast clock must run at wall speed now. */
  get busy(): boolean {
    return this.engines.stt.busy || this.pending.some((p) => p.reply.busy);
  }

  /** A reply is still being produced or played, or the user may be talking. */
  get active(): boolean {
    return this.pending.length > 0 || this.segmenter.hasCandidate || this.ptt !== null || this.bargeIn.holding;
  }

  /** Where the assistant is: nothing to say, an answer on its way, or an answer being heard. */
  private phase(now: number): AssistantPhase {
    if (this.pending.length === 0) return 'idle';
    const position = this.output.position(now);
    const speaking = this.pending.some((p) => {
      const span = p.reply.audioSpan;
      return !p.reply.aborted && p.reply.heardBy(position) && (p.reply.busy || (span !== null && position < span.to));
    });
    return speaking ? 'speaking' : 'pending';
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
        await this.processWindow(w);
      } catch (e) {
        // One bad window (a VAD failure) must not stop the assistant from listening.
        this.events.emit({ type: 'error', t: this.clock.now(), message: `Audio processing failed: ${(e as Error).message}` });
      }
    }
    this.settle();
  }

  private async processWindow(input: Float32Array): Promise<void> {
    const { vad } = this.engines;
    const cfg = this.settings();
    const heardFrom = this.timeline.windowStart(this.frames.length > 0);
    // The assistant's own voice, as the speaker played it over this window, is taken out first: the
    // canceller fits the echo path on the raw input. Then a quiet microphone is raised to speech level
    // for everything that listens (VAD, energy envelope, recognizer); it does not learn the level of
    // the assistant's own voice. The ring keeps the input before the gain, so a recognizer's lead-in
    // can be given at the gain the voice is being brought to once speech is found.
    const reference = this.output.audible(heardFrom, input.length);
    const echoFree = this.echo.process(input, reference);
    const window = this.inputGain.process(echoFree, reference !== null);
    if (cfg.endpointing.vadThreshold !== vad.info.threshold) vad.setThreshold(cfg.endpointing.vadThreshold);
    const { speech, probability } = await vad.accept(window);
    const now = this.clock.now();
    this.energy.push(window, speech);
    this.ring.push(echoFree);
    this.timeline.advance(window.length);
    const atMs = this.audioMs;
    this.postRoll.feed(window, atMs);
    this.events.emit({ type: 'vad', t: this.timeline.toClock(atMs), probability, speech, threshold: cfg.endpointing.vadThreshold, gainDb: round(this.inputGain.gainDb) });
    const phase = this.phase(now);
    this.runTimeouts(now);
    if (cfg.mode === 'push-to-talk') {
      // The key decides the turn; the VAD only places the speech inside it.
      if (this.ptt) {
        if (speech && this.ptt.firstSpeechMs === null) this.ptt.firstSpeechMs = this.energy.onsetBefore(atMs, 400) ?? atMs;
        this.stt?.accept(window);
      }
      return;
    }
    if (!this.segmenter.hasCandidate) this.candidatePhase = phase;
    // With barge-in off, speech over the assistant's voice is not a turn.
    const heard = speech && (this.segmenter.hasCandidate || this.bargeIn.listens(phase));
    const events = this.segmenter.push(atMs, heard);
    const isNewCandidate = events.some((e) => e.type === 'candidate');
    if (this.stt && !isNewCandidate) this.stt.accept(window);
    for (const e of events) this.handle(e);
  }

  private handle(e: SegmenterEvent): void {
    const t = this.timeline.toClock(e.atMs);
    const now = this.clock.now();
    switch (e.type) {
      case 'candidate': {
        this.resetStt(e.startMs);
        this.apply(this.bargeIn.onCandidate(now, this.candidatePhase));
        break;
      }
      case 'speech-start':
        this.events.emit({ type: 'speech-start', t, startMs: this.timeline.toClock(e.startMs) });
        this.apply(this.bargeIn.onSpeechStart(now, this.phase(now)), this.timeline.toClock(e.startMs));
        break;
      case 'discarded':
        this.resetStt();
        this.apply(this.bargeIn.onDiscarded(now));
        break;
      case 'pause':
        this.lastSpeechEndMs = e.speechEndMs;
        this.events.emit({ type: 'speech-end', t, speechEndMs: this.timeline.toClock(e.speechEndMs) });
        break;
      case 'resume':
        break;
      case 'end-of-turn':
        this.endTurn(e);
        break;
    }
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
   * Push-to-talk key. Pressing starts a turn (and stops any answer at once); releasing ends it
   * right away, with no silence wait. Only acts in push-to-talk mode.
   */
  pushToTalk(down: boolean): void {
    if (this.settings().mode !== 'push-to-talk') return;
    const t = this.audioMs;
    if (down && !this.ptt) {
      const now = this.clock.now();
      this.apply(this.bargeIn.onKeyPress(now, this.phase(now)), this.timeline.toClock(t));
      this.ptt = { downMs: t, firstSpeechMs: null };
      this.resetStt(t);
      this.events.emit({ type: 'speech-start', t: this.timeline.toClock(t), startMs: this.timeline.toClock(t) });
      this.setState('hearing', this.timeline.toClock(t));
    } else if (!down && this.ptt) {
      const { downMs, firstSpeechMs } = this.ptt;
      this.ptt = null;
      const speechEndMs = this.energy.lastActiveEnd(t, t - downMs) ?? t;
      this.endTurn({ type: 'end-of-turn', speechStartMs: firstSpeechMs ?? downMs, speechEndMs, atMs: t, reason: 'push-to-talk' });
    }
  }

  /** The one place a recognizer session is dropped: its audio is not (or no longer) a turn. A new one starts at `onsetMs` if given. */
  private resetStt(onsetMs?: number): void {
    this.stt?.abort();
    this.stt = onsetMs === undefined ? null : this.createSttSession(onsetMs);
  }

  /**
   * A recognizer session fed with the audio from just before `onsetMs`, so the first syllable
   * reaches it; never reaching back into the previous turn's words (silence stands in for them).
   */
  private createSttSession(onsetMs: number): SttSession {
    const padding = Math.max(this.settings().endpointing.prefixPaddingMs, this.engines.stt.leadInMs);
    const session = this.engines.stt.createSession((text) =>
      this.events.emit({ type: 'partial', t: this.clock.now(), turn: this.turnIndex, text }),
    );
    const toSample = (ms: number) => Math.round((ms / 1000) * VAD_SAMPLE_RATE);
    const from = onsetMs - padding;
    const clean = Math.max(from, Math.min(onsetMs, this.lastSpeechEndMs + 50));
    if (clean > from) session.accept(new Float32Array(toSample(clean - from)));
    session.accept(this.inputGain.atSpeechGain(this.ring.since(toSample(clean))));
    return session;
  }

  /**
   * The user spoke over an answer: playback stops (it already paused at `pausedAtMs` if the policy
   * held it), the answer is cancelled, and history keeps what was heard.
   */
  private interrupt(atMs: number, pausedAtMs: number, speechStartMs: number | null): void {
    const playedTo = this.output.position(atMs);
    const stoppedMs = this.output.paused ? pausedAtMs : atMs;
    this.output.stop(atMs);
    for (const p of this.pending) {
      if (p.reply.aborted) continue;
      if (p.reply.heardBy(playedTo)) {
        p.reply.cancel(playedTo, stoppedMs);
        p.bargeIn = { detectedMs: round(atMs), playbackStoppedMs: round(stoppedMs), speechStartMs: speechStartMs === null ? null : round(speechStartMs) };
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
    this.output.stop(atMs);
    for (const p of this.pending.splice(0)) {
      p.reply.discard();
      if (p.settled) this.updateHistory(p.reply);
      this.carried = { speechStartMs: this.carried?.speechStartMs ?? p.speechStartMs, transcript: p.reply.transcript };
      this.events.emit({ type: 'merged', t: atMs, turn: p.index });
    }
  }

  /** History keeps only what the user heard: all of an answer, its heard part, or nothing. */
  private updateHistory(reply: Reply): void {
    if (reply.outcome.generated) this.conversation.settle(reply.turn, reply.settlement);
  }

  /**
   * Runs what time alone decides (a held answer resuming, a holding phrase), then reports finished
   * turns. The audio loop runs the same timeouts each window; the app's timer calls this, so they
   * also fire while no microphone audio arrives (muted, capture stopped).
   */
  tick(): void {
    this.runTimeouts(this.clock.now());
    this.settle();
  }

  /**
   * The earliest pipeline time at which a timeout falls due, or null when none is pending: a feeder
   * that stops when the pipeline goes quiet must go on until then. It may lie in the past while
   * the user is talking (a holding phrase waits for them).
   */
  nextWakeMs(): number | null {
    const due = this.holdingDue(this.settings().turnBudgetMs).map((h) => h.atMs);
    const resume = this.bargeIn.resumeAtMs;
    if (resume !== null) due.push(resume);
    return due.length > 0 ? Math.min(...due) : null;
  }

  private runTimeouts(now: number): void {
    this.apply(this.bargeIn.tick(now));
    this.maybeHold(now, this.settings().turnBudgetMs);
  }

  /** Turns still waiting for their answer's first audio, and when a holding phrase is due for each. */
  private holdingDue(budgetMs: number): { turn: PendingTurn; atMs: number }[] {
    return this.pending
      .filter(({ reply: r, holdingPhrase }) => !holdingPhrase && !r.aborted && r.busy && r.audioSpan === null && r.outcome.userText)
      .map((turn) => ({ turn, atMs: turn.endOfTurnMs + budgetMs }));
  }

  /** No answer audio within the turn budget: say a holding phrase so the user knows they were heard. */
  private maybeHold(now: number, budgetMs: number): void {
    if (this.segmenter.hasCandidate || this.bargeIn.holding) return;
    for (const { turn: p, atMs } of this.holdingDue(budgetMs)) {
      if (now < atMs) continue;
      const phrase = this.holding.next();
      if (!phrase) continue;
      p.holdingPhrase = true;
      this.output.enqueue(phrase.samples, phrase.sampleRate, now);
      this.events.emit({ type: 'holding-phrase', t: now, turn: p.index, text: phrase.text });
    }
  }

  private endTurn(e: Extract<SegmenterEvent, { type: 'end-of-turn' }>): void {
    // Stamped before the reply starts: a streaming recognizer's finish() does part of its work at once.
    const endOfTurnMs = this.clock.now();
    const stt = this.stt && this.postRoll.hold(this.stt, e.speechEndMs, this.audioMs);
    this.stt = null;
    if (!stt) return;
    const carried = this.carried;
    this.carried = null;
    const reply = new Reply(
      this.turnIndex,
      {
        llm: this.engines.llm,
        conversation: this.conversation,
        tts: this.holding.tts,
        output: this.output,
        clock: this.clock,
        events: this.events,
        options: () => {
          const s = this.settings();
          return { maxTokens: s.llm.maxTokens, temperature: s.llm.temperature, speakerId: s.tts.speakerId, speed: s.tts.speed };
        },
        before: this.llmChain,
        ...(carried ? { carried: carried.transcript } : {}),
      },
      stt,
    );
    const turn: PendingTurn = {
      index: this.turnIndex++,
      speechStartMs: carried?.speechStartMs ?? this.timeline.toClock(e.speechStartMs),
      speechEndMs: this.timeline.toClock(e.speechEndMs),
      // The decision is made now: input time converted would drift by the processing lag.
      endOfTurnMs,
      endReason: e.reason,
      reply,
      settled: false,
      bargeIn: null,
      holdingPhrase: false,
      mergedContinuation: carried !== null,
      inputGainDb: round(this.inputGain.gainDb),
    };
    this.llmChain = reply.done.then(() => {
      turn.settled = true;
      this.updateHistory(reply);
    });
    this.pending.push(turn);
    this.events.emit({ type: 'end-of-turn', t: endOfTurnMs, turn: turn.index, speechStartMs: turn.speechStartMs, speechEndMs: turn.speechEndMs, reason: e.reason });
  }

  /** Reports turns whose reply is complete and whose audio has finished playing. */
  settle(): void {
    const now = this.clock.now();
    const position = this.output.position(now);
    while (this.pending.length > 0) {
      const p = this.pending[0]!;
      const span = p.reply.audioSpan;
      if (!p.settled || (span && !p.reply.aborted && position < span.to)) break;
      this.pending.shift();
      if (p.reply.outcome.userText) this.report(p);
    }
    if (this.pending.length === 0 && !this.active) this.holding.prepare(this.settings().tts);
    this.updateState(now);
  }

  private updateState(now: number): void {
    const phase = this.phase(now);
    const state: AssistantState =
      this.segmenter.inTurn || this.ptt
        ? 'hearing'
        : phase === 'speaking' && !this.output.paused
          ? 'speaking'
          : this.pending.length > 0
            ? 'thinking'
            : 'listening';
    this.setState(state, now);
  }

  private report(p: PendingTurn): void {
    const report = turnReport(p.index, p, this.output);
    this.reports.push(report);
    if (this.reports.length > this.keepReports) this.reports.shift();
    this.events.emit({ type: 'turn', t: this.clock.now(), turn: p.index, report });
  }

  /** Ends whatever turn is in progress (end of input, push-to-talk release). */
  endTurnNow(reason: EndReason): void {
    const e = this.segmenter.forceEnd(this.audioMs, reason);
    if (e) this.handle(e);
    else this.resetStt();
    // Now means now: recognizers still waiting for their post-roll finish with what they heard.
    this.postRoll.release();
  }

  /**
   * The user asked for silence (a stop button, Escape), in any mode: the answer being spoken stops
   * now and keeps its heard part in history; answers not yet heard are dropped.
   */
  stopSpeaking(): void {
    const now = this.clock.now();
    this.bargeIn.reset();
    if (this.pending.some((p) => !p.reply.aborted)) this.interrupt(now, now, null);
    this.updateState(now);
  }

  /** Forgets the conversation: stops any answer, then clears the history (system prompt kept). */
  async resetConversation(): Promise<void> {
    this.stopSpeaking();
    this.carried = null;
    await this.drain();
    this.conversation.reset();
  }

  /** Resolves when every reply has been produced (audio may still be scheduled to play). */
  async drain(): Promise<void> {
    await Promise.all(this.pending.map((p) => p.reply.done));
    await this.llmChain;
  }

  private setState(state: AssistantState, t: number): void {
    if (state === this.state) return;
    this.state = state;
    this.events.emit({ type: 'state', t, state });
  }
}
