import type { SttSession } from '../../engines/stt';

/** Audio a recognizer hears past the placed end of speech, so a trailing consonant is not cut off. */
export const POST_ROLL_MS = 150;

interface Tail {
  session: SttSession;
  untilMs: number;
  heard: () => void;
}

/**
 * Keeps feeding the recognizer of an ended turn until it has heard POST_ROLL_MS past the end of the
 * speech. A turn ended by silence has heard that already (silenceMs is longer); one ended by the
 * push-to-talk key released mid-word, or by the length limit, has not: without this, the offline
 * recognizer hears "what is the weather like to day" when the key goes up 115 ms early.
 */
export class PostRoll {
  private tails: Tail[] = [];

  /**
   * The session to finish for a turn whose speech ended at `speechEndMs`, once its recognizer has
   * heard the input up to `heardToMs` (input time): the session itself when that is enough, else
   * one whose finish() first waits for the rest of the post-roll.
   */
  hold(session: SttSession, speechEndMs: number, heardToMs: number): SttSession {
    const untilMs = speechEndMs + POST_ROLL_MS;
    if (heardToMs >= untilMs) return session;
    let heard!: () => void;
    const ready = new Promise<void>((r) => (heard = r));
    const tail: Tail = { session, untilMs, heard };
    this.tails.push(tail);
    return {
      accept: (samples) => session.accept(samples),
      finish: async () => {
        await ready;
        return session.finish();
      },
      abort: () => {
        this.tails = this.tails.filter((t) => t !== tail);
        session.abort();
      },
    };
  }

  /** The next window of input, ending at `atMs` (input time), for every recognizer still listening. */
  feed(window: Float32Array, atMs: number): void {
    if (this.tails.length === 0) return;
    for (const t of this.tails) t.session.accept(window);
    const done = this.tails.filter((t) => atMs >= t.untilMs);
    this.tails = this.tails.filter((t) => atMs < t.untilMs);
    for (const t of done) t.heard();
  }

  /** No more input is coming (the microphone stopped): finish with what was heard. */
  release(): void {
    for (const t of this.tails) t.heard();
    this.tails = [];
  }
}
