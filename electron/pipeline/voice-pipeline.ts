import type { SpeechRecognizer, SttSession } from '../engines/stt';
import type { VoiceActivityDetector } from '../engines/vad';
import { VAD_SAMPLE_RATE, VAD_WINDOW } from '../engines/vad';
import type { LanguageModel } from '../engines/llm';
import type { SpeechSynthesizer } from '../engines/tts';
import type { Settings } from '../settings/schema';
import type { Clock } from './clock';
import { EnergyTracker } from './energy';
import { EventHub, type AssistantState } from './events';
import type { AudioOutput } from './output';
import { Reply } from './reply';
import { latencyOf, round, type TurnReport } from './report';
import { Segmenter, type EndReason, type SegmenterEvent } from './segmenter';

export interface PipelineEngines {
  vad: VoiceActivityDetector;
  stt: SpeechRecognizer;
  llm: LanguageModel;
  tts: SpeechSynthesizer;
}

interface PendingTurn {
  index: number;
  speechStartMs: number;
  speechEndMs: number;
  endOfTurnMs: number;
  endReason: EndReason;
  reply: Reply;
  settled: boolean;
}

/** Audio kept for prefix padding and boundary look-back. */
const RING_MS = 1500;

/** A ring of the most recent input samples, addressed by absolute sample index. */
class AudioRing {
  private readonly buf: Float32Array;
  private written = 0;
  constructor(size: number) {
    this.buf = new Float32Array(size);
  }
  push(x: Float32Array): void {
    for (let i = 0; i < x.length; i++) this.buf[(this.written + i) % this.buf.length] = x[i]!;
    this.written += x.length;
  }
  /** Samples [from, written), clamped to what is still held. */
  since(from: number): Float32Array {
    const start = Math.max(from, this.written - this.buf.length, 0);
    const out = new Float32Array(this.written - start);
    for (let i = 0; i < out.length; i++) out[i] = this.buf[(start + i) % this.buf.length]!;
    return out;
  }
}

/**
 * The voice pipeline the app runs: microphone audio in, spoken answers out. It imports nothing
 * from Electron; the app, `talk`, tests and benchmarks all drive this same class.
 */
export class VoicePipeline {
  readonly events = new EventHub();
  private readonly energy = new EnergyTracker(VAD_SAMPLE_RATE);
  private readonly segmenter: Segmenter;
  private readonly ring = new AudioRing(Math.round((RING_MS / 1000) * VAD_SAMPLE_RATE));
  private readonly pendingFrame = new Float32Array(VAD_WINDOW);
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
    this.segmenter = new Segmenter(() => this.settings().endpointing, this.energy);
  }

  /** Input time: milliseconds of audio received so far. */
  get audioMs(): number {
    return (this.samples / VAD_SAMPLE_RATE) * 1000;
  }

  /** Engine work is in flight: a fast clock must run at wall speed now. */
  get busy(): boolean {
    return this.pending.some((p) => p.reply.busy);
  }

  /** A reply is still being produced or played. */
  get active(): boolean {
    return this.pending.length > 0 || this.segmenter.hasCandidate || this.ptt !== null;
  }

  /**
   * Feeds 16 kHz mono audio of any length. Non-finite samples are zeroed and values clamped,
   * so a broken capture cannot poison the models.
   */
  pushAudio(input: Float32Array): void {
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
        this.processWindow(this.pendingFrame.slice());
        this.pendingLength = 0;
      }
    }
    this.settle();
  }

  private processWindow(window: Float32Array): void {
    const { vad } = this.engines;
    const cfg = this.settings();
    if (cfg.endpointing.vadThreshold !== vad.info.threshold) vad.setThreshold(cfg.endpointing.vadThreshold);
    const speech = vad.accept(window);
    this.energy.push(window, speech);
    this.ring.push(window);
    this.samples += window.length;
    const atMs = this.audioMs;
    if (cfg.mode === 'push-to-talk') {
      // The key decides the turn; the VAD only places the speech inside it.
      if (this.ptt) {
        if (speech && this.ptt.firstSpeechMs === null) this.ptt.firstSpeechMs = this.energy.onsetBefore(atMs, 400) ?? atMs;
        this.stt?.accept(window);
      }
      return;
    }
    const events = this.segmenter.push(atMs, speech);
    const isNewCandidate = events.some((e) => e.type === 'candidate');
    if (this.stt && !isNewCandidate) this.stt.accept(window);
    for (const e of events) this.handle(e);
  }

  private handle(e: SegmenterEvent): void {
    const t = e.atMs;
    switch (e.type) {
      case 'candidate': {
        this.stt?.abort();
        this.stt = this.createSttSession(e.startMs);
        break;
      }
      case 'speech-start':
        this.events.emit({ type: 'speech-start', t, startMs: e.startMs });
        this.bargeIn(t);
        this.setState('hearing', t);
        break;
      case 'discarded':
        this.stt?.abort();
        this.stt = null;
        break;
      case 'pause':
        this.events.emit({ type: 'speech-end', t, speechEndMs: e.speechEndMs });
        break;
      case 'resume':
        break;
      case 'end-of-turn':
        this.endTurn(e);
        break;
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
      this.bargeIn(t);
      this.ptt = { downMs: t, firstSpeechMs: null };
      this.stt?.abort();
      this.stt = this.createSttSession(t);
      this.events.emit({ type: 'speech-start', t, startMs: t });
      this.setState('hearing', t);
    } else if (!down && this.ptt) {
      const { downMs, firstSpeechMs } = this.ptt;
      this.ptt = null;
      const speechEndMs = this.energy.lastActiveEnd(t, t - downMs) ?? t;
      this.endTurn({ type: 'end-of-turn', speechStartMs: firstSpeechMs ?? downMs, speechEndMs, atMs: t, reason: 'push-to-talk' });
    }
  }

  /** A recognizer session fed with the audio from just before `onsetMs`. */
  private createSttSession(onsetMs: number): SttSession {
    const padding = Math.max(this.settings().endpointing.prefixPaddingMs, this.engines.stt.leadInMs);
    const session = this.engines.stt.createSession((text) =>
      this.events.emit({ type: 'partial', t: this.clock.now(), turn: this.turnIndex, text }),
    );
    // Audio from before the onset, so the first syllable reaches the recognizer.
    session.accept(this.ring.since(Math.round(((onsetMs - padding) / 1000) * VAD_SAMPLE_RATE)));
    return session;
  }

  /** The user spoke over an answer: stop it where it is. */
  private bargeIn(atMs: number): void {
    for (const p of this.pending) {
      if (!p.reply.aborted && (p.reply.busy || (p.reply.audioEndMs ?? 0) > atMs)) p.reply.cancel(atMs);
    }
  }

  private endTurn(e: Extract<SegmenterEvent, { type: 'end-of-turn' }>): void {
    const stt = this.stt;
    this.stt = null;
    if (!stt) return;
    const s = this.settings();
    const previous = this.llmChain;
    const reply = new Reply(
      this.turnIndex,
      {
        ...this.engines,
        output: this.output,
        clock: this.clock,
        events: this.events,
        options: () => ({
          maxTokens: s.llm.maxTokens,
          temperature: s.llm.temperature,
          speakerId: s.tts.speakerId,
          speed: s.tts.speed,
        }),
        before: previous,
      },
      stt,
    );
    const turn: PendingTurn = {
      index: this.turnIndex++,
      speechStartMs: e.speechStartMs,
      speechEndMs: e.speechEndMs,
      endOfTurnMs: e.atMs,
      endReason: e.reason,
      reply,
      settled: false,
    };
    this.llmChain = reply.done.then(() => {
      turn.settled = true;
      // History keeps only what the user heard of an interrupted answer.
      if (reply.outcome.interrupted) this.engines.llm.replaceLastReply(reply.outcome.heardText, true);
    });
    this.pending.push(turn);
    this.setState('thinking', e.atMs);
  }

  /** Reports turns whose reply is complete and whose audio has finished playing. */
  settle(): void {
    const now = this.clock.now();
    while (this.pending.length > 0) {
      const p = this.pending[0]!;
      if (!p.settled || (p.reply.audioEndMs ?? 0) > Math.max(now, this.audioMs)) break;
      this.pending.shift();
      if (p.reply.outcome.userText) this.report(p);
      if (this.pending.length === 0 && !this.segmenter.hasCandidate) this.setState('listening', now);
    }
  }

  private report(p: PendingTurn): void {
    const o = p.reply.outcome;
    const timings = {
      speechStartMs: round(p.speechStartMs),
      speechEndMs: round(p.speechEndMs),
      endOfTurnMs: round(p.endOfTurnMs),
      sttFinalMs: round(o.sttFinalMs),
      llmFirstTokenMs: o.llmFirstTokenMs === null ? null : round(o.llmFirstTokenMs),
      firstClauseMs: o.firstClauseMs === null ? null : round(o.firstClauseMs),
      firstAudioMs: o.firstAudioMs === null ? null : round(o.firstAudioMs),
      lastAudioMs: o.lastAudioMs === null ? null : round(o.lastAudioMs),
    };
    const report: TurnReport = {
      index: this.reports.length,
      userText: o.userText,
      assistantText: o.assistantText.trim(),
      heardText: o.heardText,
      interrupted: o.interrupted,
      endReason: p.endReason,
      timings,
      latency: latencyOf(timings),
      engine: {
        sttFinalDecodeMs: round(o.sttDecodeMs),
        llmUntilFirstClauseMs: o.llmUntilFirstClauseMs === null ? null : round(o.llmUntilFirstClauseMs),
        ttsFirstClauseMs: o.ttsFirstClauseMs === null ? null : round(o.ttsFirstClauseMs),
      },
      ...(o.error ? { error: o.error } : {}),
    };
    this.reports.push(report);
    this.events.emit({ type: 'turn', t: this.clock.now(), report });
  }

  /** Ends whatever turn is in progress (end of input, push-to-talk release). */
  endTurnNow(reason: EndReason): void {
    const e = this.segmenter.forceEnd(this.audioMs, reason);
    if (e) this.handle(e);
    else {
      this.stt?.abort();
      this.stt = null;
    }
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
