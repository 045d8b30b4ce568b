import type { Clause } from '../text/clauses';
import type { ListenCue } from '../audio/chime';
import type { PendingConfirmation, TurnReport } from './report';
import type { TimerView } from '../timers/timer-view';
import type { MemoryView } from '../memory/memory-book';
import type { EndReason, OneShotReason, OneShotState, TurnCheck } from './vocabulary';

/** `idle`: one-shot mode with the microphone closed (speech is ignored until an activation). */
export type AssistantState = 'idle' | 'listening' | 'hearing' | 'thinking' | 'speaking';

/** Everything the pipeline tells the outside world, each stamped with pipeline time `t`. */
export type PipelineEvent =
  | { type: 'state'; t: number; state: AssistantState }
  /** Every 32 ms window: Silero's speech probability and the decision (t is input time), and the input gain applied (dB). */
  | { type: 'vad'; t: number; probability: number; speech: boolean; threshold: number; gainDb: number }
  | { type: 'speech-start'; t: number; startMs: number }
  | { type: 'speech-end'; t: number; speechEndMs: number }
  /** The end-of-turn model was asked at `atMs` (a pause of turn `turn`) and said `probability` (finished); the words then were `text`, and `heldBy` held the pause whatever it said. */
  | ({ type: 'turn-check'; t: number; turn: number } & TurnCheck)
  /** The user's turn `turn` was ended (t is when it was decided). */
  | { type: 'end-of-turn'; t: number; turn: number; speechStartMs: number; speechEndMs: number; reason: EndReason }
  | { type: 'partial'; t: number; turn: number; text: string }
  | { type: 'final'; t: number; turn: number; text: string }
  | { type: 'answer-delta'; t: number; turn: number; text: string }
  | { type: 'clause'; t: number; turn: number; clause: Clause }
  | { type: 'audio'; t: number; turn: number; clause: number; startMs: number; endMs: number }
  /**
   * The answer to `turn` is decided and its first audio queued: the turn's report as it stands then
   * (the answer's text so far, its latencies). The finished report follows as a 'turn' event.
   */
  | { type: 'answer-start'; t: number; turn: number; report: TurnReport }
  | { type: 'interrupted'; t: number; turn: number; heardText: string }
  /**
   * Playback held because the user may be talking, or resumed because they were not; lowered while
   * speech over it is judged (`bargeIn.backchannels`), and back to full volume.
   */
  | { type: 'playback'; t: number; action: 'paused' | 'resumed' | 'ducked' | 'restored' }
  /**
   * The user acknowledged answer `turn` ("mm-hmm", speech from `atMs`): it goes on, and the speech is
   * no turn (its words carried `speechTurn`; -1 for the answer when none was being heard).
   */
  | { type: 'backchannel'; t: number; turn: number; atMs: number; text: string; speechTurn: number }
  /** The user went on before hearing the answer to `turn`: it is dropped and merged into the next. */
  | { type: 'merged'; t: number; turn: number }
  | { type: 'holding-phrase'; t: number; turn: number; text: string }
  /** The question about a tool that changes something, now open (the window shows Run and Cancel), or none open. */
  | { type: 'confirmation'; t: number; pending: PendingConfirmation | null }
  /** A timer or alarm rang (its chime and notice are being said). */
  | { type: 'timer'; t: number; action: 'ringing'; id: string; kind: 'timer' | 'alarm'; name: string | null; text: string }
  /** The timers and alarms changed (set, cancelled, rang, stopped): `timers` is every one still pending or ringing. */
  | { type: 'timers'; t: number; timers: TimerView[] }
  /** The memory changed (a fact kept or forgotten, cleared, switched on or off): every fact, for the window. */
  | { type: 'memory'; t: number; memory: MemoryView }
  /** A finished turn; `turn` is the index the turn's other events carried. */
  | { type: 'turn'; t: number; turn: number; report: TurnReport }
  /** One-shot listening opened (`armed`), became a turn, or closed (`idle`), and why. */
  | { type: 'one-shot'; t: number; state: OneShotState; reason: OneShotReason }
  /**
   * Wake-phrase mode: an utterance began with the phrase (`heard`: `text` is the request), was the
   * phrase alone (`listening` for the request, the cue plays), had no phrase (`ignored`: `text` is
   * what was heard), or the window the phrase opened ran out (`closed`). `heard`: the words taken as
   * the phrase; `turn`: the number the utterance's words carried (-1 for `closed`).
   */
  | { type: 'wake-phrase'; t: number; turn: number; state: 'heard' | 'listening' | 'ignored' | 'closed'; text: string; heard: string }
  /** A one-shot listening cue was queued on the output (with `desktop.listenChime` on). */
  | { type: 'listen-cue'; t: number; cue: ListenCue }
  | { type: 'notice'; t: number; message: string }
  | { type: 'error'; t: number; message: string };

/** A minimal typed emitter (pipeline events by default); listeners are counted so leaks can be tested. */
export class EventHub<E = PipelineEvent> {
  private readonly listeners = new Set<(e: E) => void>();

  on(fn: (e: E) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(e: E): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        // A broken listener (UI, logger) must not break the audio path.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }

  get size(): number {
    return this.listeners.size;
  }
}
