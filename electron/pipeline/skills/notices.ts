import { chime } from '../../audio/chime';
import { alarmNotice, timerDoneNotice } from '../../commands/respond';
import type { SpeechSynthesizer } from '../../engines/tts';
import type { Timer, TimerBook } from '../../timers/timer-book';
import type { Clock } from '../clock';
import type { EventHub } from '../events';
import type { AudioOutput } from '../speak/output';
import { Ringer } from './ringer';
import { Utterance } from '../speak/utterance';
import { PlayingSink } from '../speak/utterance-sink';

export interface NoticeDeps {
  book: TimerBook;
  /** Epoch ms at pipeline time `ms`. */
  epochAt: (ms: number) => number;
  tts: SpeechSynthesizer;
  output: AudioOutput;
  clock: Clock;
  events: EventHub;
  voice: () => { speakerId: number; speed: number };
  /** The timers changed (a ring ended): the app stores them. */
  changed: () => void;
}

/**
 * What the assistant says on its own: a timer or alarm that rang, as a chime and a spoken notice
 * ("Your pasta timer is done."). Each is an utterance, so the assistant's phase and barge-in cover
 * it like an answer ("stop" over it stops it). They sound only in a gap (see Ringer).
 */
export class Notices {
  private readonly ringer: Ringer;
  private playing: Utterance[] = [];
  /** Timers whose notice is being said: they stop ringing once it has been heard to the end. */
  private saying: { id: string; notice: Utterance }[] = [];
  private chimeAudio: { rate: number; samples: Float32Array } | null = null;

  constructor(private readonly deps: NoticeDeps) {
    this.ringer = new Ringer(deps.book);
  }

  /** Fires what is due; in a gap, starts what should sound now. */
  tick(now: number, gap: boolean): void {
    const at = this.deps.epochAt(now);
    for (const t of this.ringer.tick(at, gap)) this.sound(t, now);
    const position = this.deps.output.position(now);
    const played = (u: Utterance) => !u.busy && (u.audioSpan === null || position >= u.audioSpan.to);
    for (const s of this.saying.filter((x) => played(x.notice))) {
      if (this.deps.book.stop(at, s.id).length > 0) this.deps.changed();
    }
    this.saying = this.saying.filter((x) => !played(x.notice) && !x.notice.aborted);
    this.playing = this.playing.filter((u) => !u.aborted && !played(u));
  }

  private sound(t: Timer, now: number): void {
    const { output, clock, tts, events } = this.deps;
    const rate = tts.sampleRate;
    if (this.chimeAudio?.rate !== rate) this.chimeAudio = { rate, samples: chime(rate) };
    const due = new Date(t.dueAtMs);
    const text = t.kind === 'alarm' ? alarmNotice(due.getHours(), due.getMinutes()) : timerDoneNotice(t.name);
    const sink = () => new PlayingSink(output);
    const base = { tts, clock, voice: this.deps.voice };
    this.playing.push(new Utterance({ kind: 'audio', text: '', samples: this.chimeAudio.samples, sampleRate: rate }, { ...base, sink: sink() }));
    const notice = new Utterance({ kind: 'text', text }, { ...base, sink: sink() });
    this.playing.push(notice);
    events.emit({ type: 'timer', t: now, action: 'ringing', id: t.id, kind: t.kind, name: t.name, text });
    // A timer has rung once its notice has been heard; an alarm rings on (again every few seconds) until stopped.
    if (t.kind === 'timer') this.saying.push({ id: t.id, notice });
  }

  /** Says a line on the assistant's own account (why an answer failed), after what is already queued. */
  say(text: string, now: number): void {
    const { output, clock, tts, events } = this.deps;
    this.playing.push(new Utterance({ kind: 'text', text }, { tts, clock, voice: this.deps.voice, sink: new PlayingSink(output) }));
    events.emit({ type: 'notice', t: now, message: `Said: "${text}"` });
  }

  /** A notice is being made or heard at stream position `position`. */
  speaking(position: number): boolean {
    return this.playing.some((u) => u.soundingAt(position));
  }

  /** Something is queued, being made or playing. */
  get active(): boolean {
    return this.ringer.waiting || this.playing.length > 0;
  }

  get busy(): boolean {
    return this.playing.some((u) => u.busy);
  }

  /** The user spoke over it: nothing more of it plays. */
  cancel(playedTo: number): void {
    for (const u of this.playing) u.cancel(playedTo);
    this.playing = [];
  }

  /** Pipeline time of the next timer due or alarm repeat, or null. */
  nextWakeMs(now: number): number | null {
    const at = this.deps.epochAt(now);
    const next = this.ringer.nextWakeMs(at);
    return next === null ? null : now + (next - at);
  }
}
