import type { PipelineContext } from '../context';
import type { EndedTurn } from '../turns/turn-events';
import { matchWakePhrase, WakeWindow } from '../turns/wake-phrase';

/**
 * Which ended turns are requests in wake-phrase mode (in the other modes, every one): those that
 * begin with the phrase or follow it said alone. Speech without it may still stop an answer (a real
 * interruption, see barge-in.ts) but is not answered: a television is not asking. It hands requests
 * on without the phrase and says what it decided in `wake-phrase` events.
 */
export class WakeGate {
  private readonly window = new WakeWindow();

  constructor(
    private readonly ctx: PipelineContext,
    /** Starts the answer to a request. */
    private readonly start: (turn: EndedTurn) => void,
  ) {}

  /**
   * A turn has ended: started now, or once its words are known in wake-phrase mode (the promise
   * settles when that is decided; null when it was started at once).
   */
  route(turn: EndedTurn): Promise<void> | null {
    const { mode, wakePhrase } = this.ctx.settings();
    if (mode !== 'wake-phrase') {
      this.start(turn);
      return null;
    }
    return turn.transcript
      .then((t) => {
        const now = this.ctx.clock.now();
        const d = this.window.decide(t.text, wakePhrase, turn.speechStartMs, now);
        const heard = matchWakePhrase(t.text, wakePhrase).heard;
        const emit = (state: 'heard' | 'listening' | 'ignored', text: string) => this.ctx.events.emit({ type: 'wake-phrase', t: now, turn: turn.index, state, text, heard });
        if (d.action === 'ignore') emit('ignored', t.text);
        else if (d.action === 'listen') emit('listening', '');
        else {
          emit('heard', d.text);
          this.start({ ...turn, startedBy: 'wake-phrase', transcript: Promise.resolve({ ...t, text: d.text }) });
        }
      })
      // No words could be made of it: nothing shows it was meant for the assistant.
      .catch(() => {});
  }

  /** The words an answer may be prepared from during a pause: in wake-phrase mode, the request after the phrase (all of them in an open window, else none). */
  requestWords(tentative: () => Promise<string>): () => Promise<string> {
    if (this.ctx.settings().mode !== 'wake-phrase') return tentative;
    return () =>
      tentative().then((words) => {
        const m = matchWakePhrase(words, this.ctx.settings().wakePhrase);
        if (m.matched) return m.rest;
        return this.window.untilMs !== null ? words : '';
      });
  }

  /** When the window the phrase opened closes; null when none is open. */
  get untilMs(): number | null {
    return this.window.untilMs;
  }

  /** Time passes: a window no speech began in closes (`speaking`: speech begun by now still counts). */
  tick(now: number, speaking: boolean): void {
    if (!speaking && this.window.expire(now)) this.ctx.events.emit({ type: 'wake-phrase', t: now, turn: -1, state: 'closed', text: '', heard: '' });
  }
}
