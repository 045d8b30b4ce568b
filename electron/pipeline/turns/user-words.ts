import { PAUSE_PEEK_QUIET_MS, type SpeechRecognizer, type SttSession } from '../../engines/stt';

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
  /** The current pause's decode waits for PAUSE_PEEK_QUIET_MS of silence. */
  private quiet: { ready: () => void; cancel: (e: Error) => void } | null = null;
  /** The silence after the words, as of the last window fed. */
  private quietMs = 0;

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
    this.endPause();
  }

  /** The pause's decode is no longer wanted: anything waiting for the silence falls back to the latest words. */
  private endPause(): void {
    this.quiet?.cancel(new Error('the pause ended'));
    this.quiet = null;
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

  /**
   * The user paused: the words so far, decoded once when first asked (null when the recognizer cannot
   * peek). The decode waits until the pause has lasted PAUSE_PEEK_QUIET_MS (told by `quietFor`), so
   * the recognizer can cut the turn inside it: the next pause decodes only the speech after the cut.
   */
  pause(): (() => Promise<string>) | null {
    this.endPause();
    const session = this.session;
    if (!session?.peek) return null;
    const quiet = new Promise<void>((ready, cancel) => (this.quiet = { ready, cancel }));
    // A pause nobody asked the words of ends quietly.
    quiet.catch(() => {});
    let peeked: Promise<string> | null = null;
    // The silence as of when it is asked for: the recognizer cuts in its middle.
    this.atPause = () => (peeked ??= quiet.then(() => session.peek!({ quietMs: this.quietMs })));
    return this.atPause;
  }

  /** The current pause has lasted `ms` of silence since the words ended (told after each window fed). */
  quietFor(ms: number): void {
    this.quietMs = ms;
    if (ms < PAUSE_PEEK_QUIET_MS || !this.quiet) return;
    this.quiet.ready();
    this.quiet = null;
  }

  /** The user went on: the pause's words are stale. */
  resume(): void {
    this.endPause();
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
    this.endPause();
    this.latest = '';
    return session;
  }
}
