import type { SpeechRecognizer, SttSession } from '../../engines/stt';

/** Where the words go as they come. */
export interface UserWordsLinks {
  /** Interim words of turn `turn` (every session's, also a finished one's late words). */
  partial: (turn: number, text: string) => void;
  /** Interim words of the speech in progress (not of a session already handed on). */
  words: (text: string) => void;
}

/**
 * The recognizer's side of the speech in progress: one session per candidate, its latest interim
 * words, and the words at a pause, decoded once and shared (the prepared answer and the end-of-turn
 * check ask for them). Turn taking decides when a session starts and what becomes of it.
 */
export class UserWords {
  private session: SttSession | null = null;
  private latest = '';
  /** The words so far as the final decode would give them, for the current pause; null when none (or no peek). */
  private atPause: (() => Promise<string>) | null = null;

  constructor(
    private readonly stt: SpeechRecognizer,
    private readonly links: UserWordsLinks,
  ) {}

  /** Starts a session for speech whose words carry `turn`, fed `lead` first (the audio before the onset). */
  start(turn: number, lead: readonly Float32Array[]): void {
    this.drop();
    const session: SttSession = this.stt.createSession((text) => {
      this.links.partial(turn, text);
      // Only the speech in progress speaks to responding (a "stop" over the answer); an ended turn's late words do not.
      if (session !== this.session) return;
      this.latest = text;
      this.links.words(text);
    });
    for (const x of lead) session.accept(x);
    this.session = session;
  }

  accept(window: Float32Array): void {
    this.session?.accept(window);
  }

  /** The speech is not (or no longer) a turn: its session is dropped. */
  drop(): void {
    this.session?.abort();
    this.session = null;
    this.latest = '';
    this.atPause = null;
  }

  /** The speech was too short for a turn: its words all the same, finished (the interim words of a short word lag: "sto"). */
  finishShort(): Promise<string> {
    const session = this.session;
    const interim = this.latest;
    this.session = null;
    this.drop();
    return session ? session.finish().catch(() => interim) : Promise.resolve(interim);
  }

  /** The user paused: the words so far, decoded once when first asked (null when the recognizer cannot peek). */
  pause(): (() => Promise<string>) | null {
    const session = this.session;
    let peeked: Promise<string> | null = null;
    this.atPause = session?.peek ? () => (peeked ??= session.peek!()) : null;
    return this.atPause;
  }

  /** The user went on: the pause's words are stale. */
  resume(): void {
    this.atPause = null;
  }

  /** The words now: the pause's decode, else (no peek, or it failed) the latest interim words. */
  now(): Promise<string> {
    const latest = this.latest;
    return this.atPause ? this.atPause().catch(() => latest) : Promise.resolve(latest);
  }

  /** The words so far, decoded now as the final will be (null when the recognizer cannot, or nothing listens). */
  peek(): Promise<string> | null {
    return this.session?.peek ? this.session.peek() : null;
  }

  /** The turn ended: its session is handed on to be finished (null when none was listening). */
  take(): SttSession | null {
    const session = this.session;
    this.session = null;
    this.atPause = null;
    this.latest = '';
    return session;
  }
}
