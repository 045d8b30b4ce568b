import type { LanguageModel } from '../engines/llm';
import type { SpeechSynthesizer } from '../engines/tts';
import type { SttSession } from '../engines/stt';
import { ClauseSplitter, heardPrefix, type Clause } from '../text/clauses';
import type { Clock } from './clock';
import type { Conversation, Settlement } from './conversation';
import type { EventHub } from './events';
import type { AudioOutput, ScheduledAudio } from './output';

export interface ReplyDeps {
  llm: LanguageModel;
  /** The history this turn's words join; the pipeline settles them with what was heard. */
  conversation: Conversation;
  tts: SpeechSynthesizer;
  output: AudioOutput;
  clock: Clock;
  events: EventHub;
  options: () => { maxTokens: number; temperature: number; speakerId: number; speed: number };
  /** The previous reply's settlement: the LLM takes one prompt at a time, and this one's history holds what was heard of that one. */
  before: Promise<void>;
  /** What the user said before a pause this turn continues (a merged continuation), if any. */
  carried?: Promise<string>;
}

/** What a reply produced, for the turn report. */
export interface ReplyOutcome {
  userText: string;
  assistantText: string;
  heardText: string;
  interrupted: boolean;
  /** Dropped before any of it was heard (the user went on talking): never played, not in history. */
  discarded: boolean;
  /** The prompt reached the LLM, so the conversation holds this exchange. */
  generated: boolean;
  sttFinalMs: number;
  sttDecodeMs: number;
  llmFirstTokenMs: number | null;
  firstClauseMs: number | null;
  llmUntilFirstClauseMs: number | null;
  ttsFirstClauseMs: number | null;
  firstAudioMs: number | null;
  lastAudioMs: number | null;
  error?: string;
}

/** Clauses waiting for TTS, in order; closed when the LLM is done. */
class ClauseQueue {
  private readonly items: Clause[] = [];
  private closed = false;
  private wake: (() => void) | null = null;

  push(c: Clause): void {
    this.items.push(c);
    this.wake?.();
  }
  close(): void {
    this.closed = true;
    this.wake?.();
  }
  async next(): Promise<Clause | null> {
    for (;;) {
      const c = this.items.shift();
      if (c) return c;
      if (this.closed) return null;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }
}

/**
 * One answer to one user turn, as a handle: STT final -> LLM stream -> clauses -> TTS -> output.
 * Every stage obeys one AbortController, so cancel() stops them all and nothing of this reply is
 * queued for playback afterwards.
 */
export class Reply {
  private readonly controller = new AbortController();
  private readonly scheduled: { clause: Clause; audio: ScheduledAudio }[] = [];
  private resolveTranscript!: (text: string) => void;
  /** The user's words for this turn, once the recognizer has finished. */
  readonly transcript = new Promise<string>((r) => (this.resolveTranscript = r));
  private readonly splitter = new ClauseSplitter();
  private generating = true;
  readonly outcome: ReplyOutcome;
  /** Resolves when nothing more will be produced (audio may still be playing). */
  readonly done: Promise<void>;

  constructor(
    readonly turn: number,
    private readonly deps: ReplyDeps,
    stt: SttSession,
  ) {
    this.outcome = {
      userText: '',
      assistantText: '',
      heardText: '',
      interrupted: false,
      discarded: false,
      generated: false,
      sttFinalMs: 0,
      sttDecodeMs: 0,
      llmFirstTokenMs: null,
      firstClauseMs: null,
      llmUntilFirstClauseMs: null,
      ttsFirstClauseMs: null,
      firstAudioMs: null,
      lastAudioMs: null,
    };
    this.done = this.run(stt).finally(() => {
      this.generating = false;
      this.resolveTranscript(this.outcome.userText);
    });
  }

  /** Engine work is in flight (the fast clock must not skip time). */
  get busy(): boolean {
    return this.generating;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stream positions of this reply's audio: where its first clause starts, where its last ends. */
  get audioSpan(): { from: number; to: number } | null {
    const first = this.scheduled[0];
    const last = this.scheduled[this.scheduled.length - 1];
    return first && last ? { from: first.audio.from, to: last.audio.to } : null;
  }

  /** What the user heard of this answer, for history: all of it, its heard part, or nothing. */
  get settlement(): Settlement {
    const o = this.outcome;
    // The whole answer as the model wrote it (not trimmed): the next prompt then starts with the tokens it already evaluated.
    return o.discarded ? { type: 'dropped' } : o.interrupted ? { type: 'interrupted', heard: o.heardText } : { type: 'whole', text: o.assistantText };
  }

  /** Whether any of the answer had played once the output reached stream position `position`. */
  heardBy(position: number): boolean {
    const span = this.audioSpan;
    return span !== null && position > span.from;
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async run(stt: SttSession): Promise<void> {
    const { events } = this.deps;
    const t0 = this.now();
    const own = await stt.finish();
    this.outcome.sttFinalMs = this.now();
    this.outcome.sttDecodeMs = this.outcome.sttFinalMs - t0;
    const before = this.deps.carried ? await this.deps.carried : '';
    const text = [before, own].filter(Boolean).join(' ');
    this.outcome.userText = text;
    this.resolveTranscript(text);
    events.emit({ type: 'final', t: this.outcome.sttFinalMs, turn: this.turn, text });
    if (!text || this.aborted) return;

    await this.deps.before;
    if (this.aborted) return;
    const queue = new ClauseQueue();
    const speaking = this.speak(queue);
    const opts = this.deps.options();
    const { llm, conversation } = this.deps;
    try {
      conversation.trim(llm.info.contextSize, (t) => llm.countTokens(t));
      conversation.append(this.turn, text);
      this.outcome.generated = true;
      await llm.generate(conversation.messages(), {
        signal: this.controller.signal,
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        onText: (delta) => {
          if (this.outcome.llmFirstTokenMs === null) this.outcome.llmFirstTokenMs = this.now();
          this.outcome.assistantText += delta;
          events.emit({ type: 'answer-delta', t: this.now(), turn: this.turn, text: delta });
          for (const c of this.splitter.push(delta)) this.enqueueClause(queue, c);
        },
      });
      if (!this.aborted) for (const c of this.splitter.flush()) this.enqueueClause(queue, c);
    } catch (e) {
      this.outcome.error = `The language model failed: ${(e as Error).message}`;
      events.emit({ type: 'error', t: this.now(), message: this.outcome.error });
    } finally {
      queue.close();
    }
    await speaking;
    if (!this.aborted) this.outcome.heardText = this.outcome.assistantText.trim();
  }

  private enqueueClause(queue: ClauseQueue, c: Clause): void {
    if (this.outcome.firstClauseMs === null) {
      this.outcome.firstClauseMs = this.now();
      this.outcome.llmUntilFirstClauseMs = this.outcome.firstClauseMs - this.outcome.sttFinalMs;
    }
    this.deps.events.emit({ type: 'clause', t: this.now(), turn: this.turn, clause: c });
    queue.push(c);
  }

  /** Synthesizes clauses one after the other while the LLM keeps writing. */
  private async speak(queue: ClauseQueue): Promise<void> {
    const { tts, output, events } = this.deps;
    for (let c = await queue.next(); c && !this.aborted; c = await queue.next()) {
      const opts = this.deps.options();
      const t0 = this.now();
      let samples: Float32Array | null;
      try {
        samples = await tts.synthesize(c.text, { speakerId: opts.speakerId, speed: opts.speed, signal: this.controller.signal });
      } catch (e) {
        // One bad clause must not silence the rest of the answer.
        events.emit({ type: 'notice', t: this.now(), message: `Could not speak "${c.text}": ${(e as Error).message}` });
        continue;
      }
      // Checked synchronously right before queueing: after cancel() no sample of this reply plays.
      if (!samples || this.aborted) return;
      if (this.outcome.ttsFirstClauseMs === null) this.outcome.ttsFirstClauseMs = this.now() - t0;
      const audio = output.enqueue(samples, tts.sampleRate, this.now());
      this.scheduled.push({ clause: c, audio });
      this.outcome.firstAudioMs ??= audio.startMs;
      this.outcome.lastAudioMs = audio.endMs;
      events.emit({ type: 'audio', t: this.now(), turn: this.turn, clause: c.index, startMs: audio.startMs, endMs: audio.endMs });
    }
  }

  /**
   * The user interrupted: generation and synthesis stop, and the heard part is cut from how far the
   * output had played (`playedTo`, a stream position) when playback stopped at `atMs`.
   */
  cancel(playedTo: number, atMs: number): string {
    this.controller.abort();
    let played = 0;
    let fraction = 0;
    for (const s of this.scheduled) {
      if (s.audio.to <= playedTo) played++;
      else {
        if (s.audio.from < playedTo) fraction = (playedTo - s.audio.from) / (s.audio.to - s.audio.from);
        break;
      }
    }
    const clauses = this.scheduled.map((s) => s.clause);
    this.outcome.interrupted = true;
    this.outcome.heardText = heardPrefix(this.outcome.assistantText, clauses, played, fraction);
    this.deps.events.emit({ type: 'interrupted', t: atMs, turn: this.turn, heardText: this.outcome.heardText });
    return this.outcome.heardText;
  }

  /** The user went on before hearing any of it: stop everything and forget the answer. */
  discard(): void {
    this.controller.abort();
    this.outcome.discarded = true;
    this.outcome.heardText = '';
  }
}
