import type { SpeechSynthesizer } from '../../engines/tts';
import { ClauseSplitter, type Clause } from '../../text/clauses';
import { heardPrefix } from '../../text/heard';
import type { UtteranceSink } from './utterance-sink';
import type { Clock } from '../clock';
import type { EventHub } from '../events';
import type { ScheduledAudio } from './output';

/** What an utterance says. */
export type UtteranceSource =
  /** Text written as it is spoken (the language model): `write` hands each new piece to `onText`. */
  | { kind: 'stream'; write: (onText: (delta: string) => void, signal: AbortSignal) => Promise<void> }
  /** A fixed text, synthesized when spoken. */
  | { kind: 'text'; text: string }
  /** A fixed text whose audio is already made: it plays the instant it is due (a holding phrase). */
  | { kind: 'audio'; text: string; samples: Float32Array; sampleRate: number };

export interface UtteranceDeps {
  /** The serialized synthesizer every utterance shares (see tts-queue.ts). */
  tts: SpeechSynthesizer;
  sink: UtteranceSink;
  clock: Clock;
  voice: () => { speakerId: number; speed: number };
  /** A streamed source's first clause ends after this many words (see ClauseSplitter's firstClauseWords). */
  firstClauseWords?: number;
  /** Announces clauses and their audio as events of this turn (an answer does; a holding phrase does not). */
  announce?: { events: EventHub; turn: number };
  /** The source failed: what was already written is still spoken. */
  onSourceError?: (e: Error) => void;
}

/** When each step first happened, on the pipeline clock. */
export interface UtteranceTimes {
  firstClauseMs: number | null;
  /** Synthesis time of the first clause. */
  ttsFirstClauseMs: number | null;
  /** When the first and last audio were expected to play when queued (pauses unknown then). */
  firstAudioMs: number | null;
  lastAudioMs: number | null;
}

/** Clauses waiting for TTS, in order; closed when the source is done. */
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
 * One spoken output: text from its source, cut into clauses, synthesized one after the other while
 * the source keeps writing, and handed to its sink. Everything obeys one AbortController, so after
 * cancel() or discard() nothing more of it is synthesized or played.
 */
export class Utterance {
  private readonly controller = new AbortController();
  private readonly scheduled: { clause: Clause; audio: ScheduledAudio }[] = [];
  private readonly splitter: ClauseSplitter;
  private producing = true;
  /** A prepared audio's text; other sources' text is the splitter's. */
  private fixedText: string | null = null;
  /** What the listener heard: all of it when it finished, the heard part after cancel(), '' after discard(). */
  heardText = '';
  interrupted = false;
  discarded = false;
  readonly times: UtteranceTimes = { firstClauseMs: null, ttsFirstClauseMs: null, firstAudioMs: null, lastAudioMs: null };
  /** Where clauses and audio are announced; a prepared answer gets one when a turn adopts it (see `announceTo`). */
  announce: { events: EventHub; turn: number } | null;
  /** Every clause cut so far, in order. */
  private readonly clauses: Clause[] = [];
  /** Resolves when nothing more will be produced (audio may still be playing). */
  readonly done: Promise<void>;

  constructor(
    source: UtteranceSource,
    private readonly deps: UtteranceDeps,
  ) {
    this.announce = deps.announce ?? null;
    this.splitter = new ClauseSplitter({ firstClauseWords: deps.firstClauseWords ?? 0 });
    this.done = this.run(source).finally(() => (this.producing = false));
  }

  /** Everything the source wrote (raw, untrimmed). */
  get text(): string {
    return this.fixedText ?? this.splitter.rawText;
  }

  /** Engine work is in flight. */
  get busy(): boolean {
    return this.producing;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stream positions of this utterance's audio: where its first clause starts, where its last ends. */
  get audioSpan(): { from: number; to: number } | null {
    const first = this.scheduled[0];
    const last = this.scheduled[this.scheduled.length - 1];
    return first && last ? { from: first.audio.from, to: last.audio.to } : null;
  }

  /** Whether any of it had played once the output reached stream position `position`. */
  heardBy(position: number): boolean {
    const span = this.audioSpan;
    return span !== null && position > span.from;
  }

  /** Being made, or heard, at stream position `position`: some of it has played and it has not finished playing. */
  soundingAt(position: number): boolean {
    const span = this.audioSpan;
    return !this.aborted && span !== null && position > span.from && (this.busy || position < span.to);
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async run(source: UtteranceSource): Promise<void> {
    if (source.kind === 'audio') {
      this.fixedText = source.text;
      const clause: Clause = { index: 0, text: source.text, sourceStart: 0, sourceEnd: source.text.length };
      this.times.firstClauseMs = this.now();
      this.schedule(clause, source.samples, source.sampleRate);
    } else {
      const queue = new ClauseQueue();
      const speaking = this.speak(queue);
      try {
        if (source.kind === 'text') this.write(queue, source.text);
        else await source.write((delta) => this.write(queue, delta), this.controller.signal);
        if (!this.aborted) for (const c of this.splitter.flush()) this.enqueue(queue, c);
      } catch (e) {
        this.deps.onSourceError?.(e as Error);
      } finally {
        queue.close();
      }
      await speaking;
    }
    if (!this.aborted) this.heardText = this.text.trim();
  }

  private write(queue: ClauseQueue, delta: string): void {
    for (const c of this.splitter.push(delta)) this.enqueue(queue, c);
  }

  /** From now on clauses and audio are announced for `turn`; the clauses cut before are announced at once. */
  announceTo(events: EventHub, turn: number): void {
    this.announce = { events, turn };
    for (const c of this.clauses) events.emit({ type: 'clause', t: this.now(), turn, clause: c });
  }

  private enqueue(queue: ClauseQueue, c: Clause): void {
    this.times.firstClauseMs ??= this.now();
    this.clauses.push(c);
    const a = this.announce;
    a?.events.emit({ type: 'clause', t: this.now(), turn: a.turn, clause: c });
    queue.push(c);
  }

  /** Synthesizes clauses one after the other while the source keeps writing. */
  private async speak(queue: ClauseQueue): Promise<void> {
    const { tts } = this.deps;
    for (let c = await queue.next(); c && !this.aborted; c = await queue.next()) {
      const t0 = this.now();
      let samples: Float32Array | null;
      try {
        samples = await tts.synthesize(c.text, { ...this.deps.voice(), signal: this.controller.signal });
      } catch (e) {
        // One bad clause must not silence the rest.
        this.announce?.events.emit({ type: 'notice', t: this.now(), message: `Could not speak "${c.text}": ${(e as Error).message}` });
        continue;
      }
      // Checked synchronously right before queueing: after cancel() no sample of this plays.
      if (!samples || this.aborted) return;
      this.times.ttsFirstClauseMs ??= this.now() - t0;
      this.schedule(c, samples, tts.sampleRate);
    }
  }

  private schedule(clause: Clause, samples: Float32Array, sampleRate: number): void {
    this.deps.sink.play(samples, sampleRate, this.now(), (audio) => {
      this.scheduled.push({ clause, audio });
      this.times.firstAudioMs ??= audio.startMs;
      this.times.lastAudioMs = audio.endMs;
      const a = this.announce;
      a?.events.emit({ type: 'audio', t: this.now(), turn: a.turn, clause: clause.index, startMs: audio.startMs, endMs: audio.endMs });
    });
  }

  /**
   * The listener interrupted: production stops, and the heard part is cut from how far the output
   * had played (`playedTo`, a stream position).
   */
  cancel(playedTo: number): string {
    this.stop();
    let played = 0;
    let fraction = 0;
    for (const s of this.scheduled) {
      if (s.audio.to <= playedTo) played++;
      else {
        if (s.audio.from < playedTo) fraction = (playedTo - s.audio.from) / (s.audio.to - s.audio.from);
        break;
      }
    }
    this.interrupted = true;
    this.heardText = heardPrefix(this.text, this.scheduled.map((s) => s.clause), played, fraction);
    return this.heardText;
  }

  /** Dropped before any of it was heard: stop everything and forget it. */
  discard(): void {
    this.stop();
    this.discarded = true;
    this.heardText = '';
  }

  private stop(): void {
    this.controller.abort();
    this.deps.sink.drop();
  }
}
