import type { SpeechRecognizer, SttSession } from '../engines/stt';
import type { VoiceActivityDetector } from '../engines/vad';
import { VAD_SAMPLE_RATE, VAD_WINDOW, VAD_WINDOW_MS } from '../engines/vad';
import type { LanguageModel } from '../engines/llm';
import type { SpeechSynthesizer } from '../engines/tts';
import type { Settings } from '../settings/schema';
import { AudioRing } from './audio-ring';
import type { ReportedTurn } from './report';
import { AutoGain } from './auto-gain';
import { BargeInPolicy, type AssistantPhase, type BargeInDecision } from './barge-in';
import type { Clock } from './clock';
import { EchoCanceller } from './echo-canceller';
import { EnergyTracker } from './energy';
import { HoldingPhrases } from './holding-phrase';
import { EventHub, type AssistantState } from './events';
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


/** Input arriving this much later than its place on the clock means the input paused. */
const RETIE_AFTER_MS = 250;

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
  private inputToClockMs: number | null = null;
  /** Where the user's last words ended (input time). */
  private lastSpeechEndMs = -Infinity;
  private readonly ring = new AudioRing(Math.round((RING_MS / 1000) * VAD_SAMPLE_RATE));
  private readonly pendingFrame = new Float32Array(VAD_WINDOW);
  private readonly frames: Float32Array[] = [];
  private processing: Promise<void> = Promise.resolve();
  private pendingLength = 0;
  private samples = 0;
  private stt: SttSession | null = null;
  /** Push-to-talk key held since downMs. */
  private ptt: { downMs: number; firstSpeechMs: number | null } | null = null;
  private turnIndex = 0;
  private readonly pending: PendingTurn[] = [];
  /** Replies run one at a time on the LLM: a new one waits for the previous to settle. */
  private llmChain: Promise<void> = Promise.resolve();
  private state: AssistantState = 'listening';
  readonly reports: TurnReport[] = [];

  constructor(
    private readonly engines: PipelineEngines,
    private readonly output: AudioOutput,
    private readonly clock: Clock,
    private readonly settings: () => Settings,
  ) {
    this.bargeIn = new BargeInPolicy(() => this.settings().bargeIn);
    this.segmenter = new Segmenter(() => {
      const e = this.settings().endpointing;
      return { ...e, minSpeechMs: this.bargeIn.minSpeechMs(this.candidatePhase, e.minSpeechMs) };
    }, this.energy);
    this.holding = new HoldingPhrases(engines.tts);
    this.holding.prepare(settings().tts);
  }

  /** Input time: milliseconds of audio received so far. */
  get audioMs(): number {
    return (this.samples / VAD_SAMPLE_RATE) * 1000;
  }

  /**
   * Input time (ms of audio received) on the pipeline clock. Turn boundaries are found in input
   * time, engine stages are timed on the clock; reports and events use the clock throughout.
   */
  private clockOf(inputMs: number): number {
    return inputMs + (this.inputToClockMs ?? this.clock.now() - this.audioMs);
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
    let o = 0;
    while (o < input.length) {
      const n = Math.min(VAD_WINDOW - this.pendingLength, input.length - o);
      for (let i = 0; i < n; i++) {
        const v = input[o + i]!;
        this.pendingFrame[this.pendingLength + i] = Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0;
      }
      this.pendingLength += n;
      o += n;
      if (this.pendingLength === VAD_WINDOW) {
        this.frames.push(this.pendingFrame.slice());
        this.pendingLength = 0;
      }
    }
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
    // Input time and the clock are tied once, at the first window: input arrives in jittery bursts,
    // but its samples are evenly spaced, so the echo reference is cut on the input's own timeline.
    // (A whole number of samples, so every piece of the reference lands on the same sample grid.)
    // Audio that resumes after a pause in the input (microphone muted, window reloaded) is tied
    // again, or every later time would be off by the pause. A backlog of queued windows is not a
    // pause: that lag is real latency.
    if (this.inputToClockMs !== null && this.frames.length === 0 && this.clock.now() - (this.audioMs + VAD_WINDOW_MS + this.inputToClockMs) > RETIE_AFTER_MS) {
      this.inputToClockMs = null;
    }
    this.inputToClockMs ??= Math.round((this.clock.now() - (this.audioMs + VAD_WINDOW_MS)) * (VAD_SAMPLE_RATE / 1000)) / (VAD_SAMPLE_RATE / 1000);
    const heardFrom = this.audioMs + this.inputToClockMs;
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
    this.samples += window.length;
    const atMs = this.audioMs;
    this.postRoll.feed(window, atMs);
    this.events.emit({ type: 'vad', t: this.clockOf(atMs), probability, speech, threshold: cfg.endpointing.vadThreshold, gainDb: round(this.inputGain.gainDb) });
    const phase = this.phase(now);
    this.apply(this.bargeIn.tick(now));
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
    this.maybeHold(now, cfg.turnBudgetMs);
  }

  private handle(e: SegmenterEvent): void {
    const t = this.clockOf(e.atMs);
    const now = this.clock.now();
    switch (e.type) {
      case 'candidate': {
        this.stt?.abort();
        this.stt = this.createSttSession(e.startMs);
        this.apply(this.bargeIn.onCandidate(now, this.candidatePhase));
        break;
      }
      case 'speech-start':
        this.events.emit({ type: 'speech-start', t, startMs: this.clockOf(e.startMs) });
        this.apply(this.bargeIn.onSpeechStart(now, this.phase(now)));
        break;
      case 'discarded':
        this.stt?.abort();
        this.stt = null;
        this.apply(this.bargeIn.onDiscarded(now));
        break;
      case 'pause':
        this.lastSpeechEndMs = e.speechEndMs;
        this.events.emit({ type: 'speech-end', t, speechEndMs: this.clockOf(e.speechEndMs) });
        break;
      case 'resume':
        break;
      case 'end-of-turn':
        this.endTurn(e);
        break;
    }
  }

  private apply(decisions: BargeInDecision[]): void {
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
          this.interrupt(d.atMs, d.pausedAtMs);
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
      this.apply(this.bargeIn.onKeyPress(now, this.phase(now)));
      this.ptt = { downMs: t, firstSpeechMs: null };
      this.stt?.abort();
      this.stt = this.createSttSession(t);
      this.events.emit({ type: 'speech-start', t: this.clockOf(t), startMs: this.clockOf(t) });
      this.setState('hearing', this.clockOf(t));
    } else if (!down && this.ptt) {
      const { downMs, firstSpeechMs } = this.ptt;
      this.ptt = null;
      const speechEndMs = this.energy.lastActiveEnd(t, t - downMs) ?? t;
      this.endTurn({ type: 'end-of-turn', speechStartMs: firstSpeechMs ?? downMs, speechEndMs, atMs: t, reason: 'push-to-talk' });
    }
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
  private interrupt(atMs: number, pausedAtMs: number): void {
    const playedTo = this.output.position(atMs);
    const stoppedMs = this.output.paused ? pausedAtMs : atMs;
    this.output.stop(atMs);
    for (const p of this.pending) {
      if (p.reply.aborted) continue;
      if (p.reply.heardBy(playedTo)) {
        p.reply.cancel(playedTo, stoppedMs);
        p.bargeIn = { detectedMs: round(atMs), playbackStoppedMs: round(stoppedMs) };
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
    const o = reply.outcome;
    if (!o.generated) return;
    if (o.discarded) this.engines.llm.dropLastExchange();
    else if (o.interrupted) this.engines.llm.replaceLastReply(o.heardText, true);
  }

  /** No answer audio within the turn budget: say a holding phrase so the user knows they were heard. */
  private maybeHold(now: number, budgetMs: number): void {
    if (this.segmenter.hasCandidate || this.bargeIn.holding) return;
    for (const p of this.pending) {
      const r = p.reply;
      if (p.holdingPhrase || r.aborted || !r.busy || r.audioSpan !== null || !r.outcome.userText) continue;
      if (now - p.endOfTurnMs < budgetMs) continue;
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
      speechStartMs: carried?.speechStartMs ?? this.clockOf(e.speechStartMs),
      speechEndMs: this.clockOf(e.speechEndMs),
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
    const report = turnReport(this.reports.length, p, this.output);
    this.reports.push(report);
    this.events.emit({ type: 'turn', t: this.clock.now(), turn: p.index, report });
  }

  /** Ends whatever turn is in progress (end of input, push-to-talk release). */
  endTurnNow(reason: EndReason): void {
    const e = this.segmenter.forceEnd(this.audioMs, reason);
    if (e) this.handle(e);
    else {
      this.stt?.abort();
      this.stt = null;
    }
    // Now means now: recognizers still waiting for their post-roll finish with what they heard.
    this.postRoll.release();
  }

  /**
   * The user asked for silence (a stop button, Escape), in any mode: the answer being spoken stops
   * now and keeps its heard part in history; answers not yet heard are dropped.
   */
  stopSpeaking(): void {
    const now = this.clock.now();
    this.bargeIn.onKeyPress(now, 'idle'); // forgets any hold: nothing should resume
    if (this.pending.some((p) => !p.reply.aborted)) this.interrupt(now, now);
    this.updateState(now);
  }

  /** Forgets the conversation: stops any answer, then clears the LLM's history (system prompt kept). */
  async resetConversation(): Promise<void> {
    this.stopSpeaking();
    this.carried = null;
    await this.drain();
    await this.engines.llm.resetConversation();
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
