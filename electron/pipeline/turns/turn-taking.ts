import type { SpeechRecognizer } from '../../engines/stt';
import type { TurnDetector } from '../../engines/turn-detector';
import type { VoiceActivityDetector } from '../../engines/vad';
import { VAD_SAMPLE_RATE } from '../../engines/vad-window';
import { AudioRing } from '../listen/audio-ring';
import { AutoGain } from '../listen/auto-gain';
import type { PipelineContext } from '../context';
import { EchoCanceller } from '../listen/echo-canceller';
import { EchoMeter } from '../listen/echo-meter';
import { EnergyTracker } from '../listen/energy';
import { SpeechTraits, type SpeechTraitsEvidence } from '../listen/speech-traits';
import { InputTimeline } from '../listen/mic-input';
import { OneShotPolicy, type OneShotChange } from './one-shot';
import { PostRoll } from '../listen/post-roll';
import { round, type EchoReport } from '../report';
import { Segmenter, type SegmenterEvent } from './segmenter';
import { holdFor, TurnEndPolicy } from './turn-end';
import type { AssistantPhase, EndReason, OneShotState, StartedBy, TurnCheck } from '../vocabulary';
import type { HeardWindow, TurnEvent, TurnGate } from './turn-events';
import { UserWords } from './user-words';

/** Audio kept for prefix padding, boundary look-back and the end-of-turn model (it hears the last 8 s). */
const RING_MS = 8000;
/** Audio before the speech onset the end-of-turn model hears with the turn. */
const TURN_LEAD_MS = 200;

/** The engines that listen: the end-of-turn model is optional (without it, silence alone ends a turn). */
export interface TurnEngines {
  vad: VoiceActivityDetector;
  stt: SpeechRecognizer;
  turn?: TurnDetector | null;
}

/** Where turn taking's decisions go, and what it asks of the answering side. */
export interface TurnLinks {
  /** Whether speech counts in the assistant's phase, and how much of it (the barge-in policy). */
  gate: TurnGate;
  onTurn: (e: TurnEvent) => void;
  /** One-shot listening started, became a turn, or stopped. */
  onOneShot?: (change: OneShotChange) => void;
  /** Each window as the echo canceller left it (before the input gain), in order. */
  onCleaned?: (window: Float32Array) => void;
}

/**
 * Turn taking: microphone windows in, turn events out. It owns everything that listens (echo
 * canceller, input gain, VAD, energy envelope, segmenter, push-to-talk key, recognizer session)
 * and numbers the turns; it never speaks and knows nothing of answers beyond the phase it is told.
 */
export class TurnTaking {
  private readonly energy = new EnergyTracker(VAD_SAMPLE_RATE);
  private readonly traits = new SpeechTraits(VAD_SAMPLE_RATE);
  private readonly segmenter: Segmenter;
  private readonly echo = new EchoCanceller({ sampleRate: VAD_SAMPLE_RATE, maxDelayMs: 250, analysisMs: 512 });
  private readonly echoMeter = new EchoMeter();
  private readonly inputGain = new AutoGain();
  private readonly postRoll = new PostRoll();
  private readonly ring = new AudioRing(Math.round((RING_MS / 1000) * VAD_SAMPLE_RATE));
  readonly timeline: InputTimeline;
  /** The assistant's phase when the current speech candidate began: it sets how much speech counts. */
  private candidatePhase: AssistantPhase = 'idle';
  /** Where the user's last words ended (input time). */
  private lastSpeechEndMs = -Infinity;
  /** The recognizer's side of the speech in progress. */
  private readonly words: UserWords;
  /** Push-to-talk key held since downMs. */
  private ptt: { downMs: number; firstSpeechMs: number | null } | null = null;
  /** One-shot mode: whether an activation has opened the microphone for a turn (times on the pipeline clock). */
  private readonly oneShot = new OneShotPolicy();
  /** What started the candidate or turn in progress. */
  private startedBy: StartedBy = 'speech';
  private nextIndex = 0;
  /** Counts ended turns (also those with nothing to recognize): a late verdict belongs to its own. */
  private ended = 0;
  private readonly turnEnd: TurnEndPolicy;
  /** The model's checks so far in the turn in progress. */
  private checks: TurnCheck[] = [];
  /** End-of-turn checks in flight (a fast clock must run at wall speed meanwhile). */
  private scoring = 0;
  private detectorFailed = false;

  constructor(
    /** The output is the speaker: what it played is the echo reference. */
    private readonly ctx: PipelineContext,
    private readonly engines: TurnEngines,
    private readonly links: TurnLinks,
  ) {
    this.timeline = new InputTimeline(ctx.clock);
    this.words = new UserWords(engines.stt, {
      partial: (turn, text) => this.ctx.events.emit({ type: 'partial', t: this.ctx.clock.now(), turn, text }),
      words: (text) => this.links.onTurn({ type: 'words', atMs: this.ctx.clock.now(), text }),
    });
    this.turnEnd = new TurnEndPolicy(() => !!this.engines.turn);
    this.segmenter = new Segmenter(() => {
      const e = this.ctx.settings().endpointing;
      return { ...e, minSpeechMs: this.links.gate.minSpeechMs(this.candidatePhase, e.minSpeechMs), silenceMs: this.turnEnd.silenceMs(e) };
    }, this.energy);
  }

  /** Input time: milliseconds of audio received so far. */
  get audioMs(): number {
    return this.timeline.ms;
  }

  /** How well the echo was cancelled over a span (pipeline clock), and the tail the canceller covers. */
  echoOver(fromMs: number, toMs: number): EchoReport {
    return { ...this.echoMeter.over(fromMs, toMs), tailMs: this.echo.tailMs(VAD_SAMPLE_RATE) };
  }

  /** The echo canceller's time per window lately (ms), for the benchmark. */
  get echoCostMs(): readonly number[] {
    return this.echoMeter.costMs;
  }

  /** The recognizer has audio it has not decoded yet. */
  get busy(): boolean {
    return this.engines.stt.busy || this.scoring > 0;
  }

  /** Speech that may become a turn is in progress. */
  get hasCandidate(): boolean {
    return this.segmenter.hasCandidate;
  }

  /** The words of the speech in progress, decoded now (null when they cannot be). */
  peekWords(): Promise<string> | null {
    return this.words.peek();
  }

  /** How the speech in progress sounds so far (null when none is). */
  speechTraits(): SpeechTraitsEvidence | null {
    const startMs = this.segmenter.startMs;
    return startMs === undefined ? null : this.traits.since(startMs);
  }

  /** The user is taking a turn (talking, pausing within it, or holding the key). */
  get hearing(): boolean {
    return this.segmenter.inTurn || this.ptt !== null;
  }

  /** The user may be talking (or, activated, is about to). */
  get active(): boolean {
    return this.segmenter.hasCandidate || this.ptt !== null || this.oneShotState === 'armed';
  }

  /** Where one-shot listening stands; null outside one-shot mode. */
  get oneShotState(): OneShotState | null {
    return this.ctx.settings().mode === 'one-shot' ? this.oneShot.state : null;
  }

  /** When an activation's wait for speech runs out (pipeline clock); null when none is waiting. */
  get oneShotDueMs(): number | null {
    return this.oneShotState === null ? null : this.oneShot.dueMs;
  }

  /**
   * Hears one window: the assistant's own voice, as the speaker played it over this window, is taken
   * out first (the canceller fits the echo path on the raw input). Then a quiet microphone is raised
   * to speech level for everything that listens (VAD, energy envelope, recognizer); it does not learn
   * the level of the assistant's own voice. The ring keeps the input before the gain, so a
   * recognizer's lead-in can be given at the gain the voice is being brought to once speech is found.
   * `backlog`: more windows are queued behind this one.
   */
  async hear(input: Float32Array, backlog: boolean): Promise<HeardWindow> {
    const { vad } = this.engines;
    const cfg = this.ctx.settings();
    const heardFrom = this.timeline.windowStart(backlog);
    const reference = this.ctx.output.audible(heardFrom, input.length);
    const started = performance.now();
    const echoFree = this.echo.process(input, reference, this.segmenter.hasCandidate);
    const echoCostMs = performance.now() - started;
    this.links.onCleaned?.(echoFree);
    const window = this.inputGain.process(echoFree, reference !== null);
    if (cfg.endpointing.vadThreshold !== vad.info.threshold) vad.setThreshold(cfg.endpointing.vadThreshold);
    const { speech, probability } = await vad.accept(window);
    const now = this.ctx.clock.now();
    this.energy.push(window, speech);
    this.ring.push(echoFree);
    this.timeline.advance(window.length);
    const atMs = this.audioMs;
    this.traits.push(window, atMs, this.energy.threshold(), speech && this.candidatePhase !== 'speaking');
    this.postRoll.feed(window, atMs);
    this.echoMeter.add(this.timeline.toClock(atMs), this.echo.last, !speech, echoCostMs);
    this.ctx.events.emit({ type: 'vad', t: this.timeline.toClock(atMs), probability, speech, threshold: cfg.endpointing.vadThreshold, gainDb: round(this.inputGain.gainDb) });
    return { window, speech, now, atMs };
  }

  /** Decides what a heard window means for the turn, given the assistant's phase as it was heard. */
  decide({ window, speech, atMs }: HeardWindow, phase: AssistantPhase): void {
    const mode = this.ctx.settings().mode;
    // Another mode took over: an activation from before must not linger until one-shot comes back.
    if (mode !== 'one-shot') this.oneShot.reset();
    if (mode === 'push-to-talk') {
      // The key decides the turn; the VAD only places the speech inside it.
      if (this.ptt) {
        if (speech && this.ptt.firstSpeechMs === null) this.ptt.firstSpeechMs = this.energy.onsetBefore(atMs, 400) ?? atMs;
        this.words.accept(window);
      }
      return;
    }
    if (!this.segmenter.hasCandidate) this.candidatePhase = phase;
    // With barge-in off, speech over the assistant's voice is not a turn; in one-shot mode, nor is
    // speech no activation asked for (it is still heard: the VAD, the echo reference, the meter).
    const opens = this.links.gate.listens(phase) && (mode !== 'one-shot' || this.oneShot.listening);
    // Over the assistant's voice, speech must also come near the user's own level to begin: a person
    // talking to it does, the canceller's leftovers of the answer do not. Once begun, it goes on as usual.
    const overEcho = this.echo.last.active && !this.segmenter.hasCandidate;
    const heard = speech && (this.segmenter.hasCandidate || (opens && (!overEcho || this.energy.reachesVoice(window))));
    const events = this.segmenter.push(atMs, heard);
    const isNewCandidate = events.some((e) => e.type === 'candidate');
    if (!isNewCandidate) this.words.accept(window);
    for (const e of events) this.handle(e);
    // While the user pauses: the pause's words are decoded once its silence is long enough to close them.
    this.words.quietFor(atMs - this.lastSpeechEndMs);
    const check = this.turnEnd.due(atMs, this.ctx.settings().endpointing);
    if (check !== null) this.checkTurnEnd(check, atMs);
  }

  /**
   * Asks the end-of-turn model whether the turn so far sounds finished, and takes the words at that
   * moment (the pause's final decode, else the latest interim words): words that end in one no
   * sentence ends with hold the pause whatever the model says (TurnEndPolicy). The audio path does
   * not wait: the verdict arrives between windows and ends the turn then, if the user is still pausing.
   */
  private checkTurnEnd(id: number, atMs: number): void {
    const detector = this.engines.turn;
    const startMs = this.segmenter.startMs;
    if (!detector || startMs === undefined) return;
    const audio = this.ring.since(Math.round(((startMs - TURN_LEAD_MS) / 1000) * VAD_SAMPLE_RATE));
    const turn = this.nextIndex;
    const ended = this.ended;
    const askedMs = this.timeline.toClock(atMs);
    const words = this.words.now();
    this.scoring++;
    Promise.all([detector.score(audio), words])
      .then(([{ probability }, text]) => {
        if (this.ended !== ended) return;
        const heldBy = holdFor(text);
        const check: TurnCheck = { atMs: round(askedMs), probability: Math.round(probability * 10000) / 10000, text, heldBy };
        this.checks.push(check);
        this.ctx.events.emit({ type: 'turn-check', t: this.ctx.clock.now(), turn, ...check });
        if (this.turnEnd.verdict(id, probability, this.ctx.settings().endpointing, heldBy) !== 'end') return;
        const e = this.segmenter.forceEnd(this.audioMs, 'turn-model');
        if (e) this.handle(e);
      })
      .catch((e: Error) => {
        this.turnEnd.failed(id);
        // Once is enough: every pause would say the same. Silence decides meanwhile.
        if (!this.detectorFailed) this.ctx.events.emit({ type: 'notice', t: this.ctx.clock.now(), message: `The end-of-turn model failed (${e.message}); pauses are judged by silence alone.` });
        this.detectorFailed = true;
      })
      .finally(() => this.scoring--);
  }

  private handle(e: SegmenterEvent): void {
    const t = this.timeline.toClock(e.atMs);
    const atMs = this.ctx.clock.now();
    switch (e.type) {
      case 'candidate':
        this.startedBy = this.ctx.settings().mode === 'one-shot' ? 'activation' : 'speech';
        this.resetStt(e.startMs);
        this.links.onTurn({ type: 'candidate', atMs, phase: this.candidatePhase, startMs: this.timeline.toClock(e.startMs), turn: this.nextIndex });
        break;
      case 'speech-start': {
        const startMs = this.timeline.toClock(e.startMs);
        this.ctx.events.emit({ type: 'speech-start', t, startMs });
        this.links.onTurn({ type: 'speech-start', atMs, startMs });
        this.tellOneShot(this.oneShot.speechStarted(atMs));
        break;
      }
      case 'discarded':
        this.links.onTurn({ type: 'discarded', atMs, words: this.words.finishShort(), traits: this.traits.since(e.startMs) });
        break;
      case 'pause': {
        this.lastSpeechEndMs = e.speechEndMs;
        this.turnEnd.onPause(e.speechEndMs);
        const speechEndMs = this.timeline.toClock(e.speechEndMs);
        this.ctx.events.emit({ type: 'speech-end', t, speechEndMs });
        this.links.onTurn({ type: 'pause', atMs, speechEndMs, turn: this.nextIndex, tentative: this.words.pause() });
        break;
      }
      case 'resume':
        this.turnEnd.onResume();
        this.words.resume();
        this.links.onTurn({ type: 'resume', atMs });
        break;
      case 'end-of-turn':
        this.endTurn(e);
        break;
    }
  }

  /**
   * The push-to-talk key. Pressing starts a turn at once; releasing ends it right away, with no
   * silence wait. Returns whether a turn began.
   */
  pushToTalk(down: boolean): boolean {
    const t = this.audioMs;
    if (down && !this.ptt) {
      const startMs = this.timeline.toClock(t);
      this.links.onTurn({ type: 'key-down', atMs: this.ctx.clock.now(), startMs });
      this.ptt = { downMs: t, firstSpeechMs: null };
      this.startedBy = 'push-to-talk';
      this.resetStt(t);
      this.ctx.events.emit({ type: 'speech-start', t: startMs, startMs });
      return true;
    }
    if (!down && this.ptt) {
      const { downMs, firstSpeechMs } = this.ptt;
      this.ptt = null;
      const speechEndMs = this.energy.lastActiveEnd(t, t - downMs) ?? t;
      this.endTurn({ type: 'end-of-turn', speechStartMs: firstSpeechMs ?? downMs, speechEndMs, atMs: t, reason: 'push-to-talk' });
    }
    return false;
  }

  /**
   * A one-shot activation at `now`, the assistant in `phase` (see OneShotPolicy): it stops what the
   * assistant says first, then opens the microphone, or ends the turn in progress at once, or closes
   * a microphone no one spoke into.
   */
  activate(now: number, phase: AssistantPhase): void {
    const d = this.oneShot.activate(now, phase);
    if (d.interrupt) this.links.onTurn({ type: 'activation', atMs: now });
    if (d.action !== 'arm') {
      // A turn ends with the activation as its reason; a mere candidate is dropped (no turn). It ends
      // where the activation falls on the input: audio heard since came after the press.
      const e = this.segmenter.forceEnd(Math.min(this.audioMs, this.timeline.toInput(now)), 'activation');
      if (e) this.handle(e);
    }
    this.tellOneShot(d);
  }

  /** Time passes (each window, the app's timer): an activation no speech followed stops listening. */
  tick(now: number): void {
    if (this.oneShotState !== null) this.tellOneShot(this.oneShot.tick(now, this.segmenter.hasCandidate));
  }

  private tellOneShot(change: OneShotChange | null): void {
    // Outside one-shot mode nothing listens for it (no cue, no state): the policy is reset at the next window.
    if (change && this.oneShotState !== null) this.links.onOneShot?.(change);
  }

  /** Ends whatever turn is in progress (end of input, microphone stopped); one-shot listening stops too. */
  endTurnNow(reason: EndReason): void {
    const e = this.segmenter.forceEnd(this.audioMs, reason);
    if (e) this.handle(e);
    else this.resetStt();
    // Now means now: recognizers still waiting for their post-roll finish with what they heard.
    this.postRoll.release();
    this.tellOneShot(this.oneShot.stop(this.ctx.clock.now(), oneShotStop(reason)));
  }

  /**
   * The one place a recognizer session starts or is dropped (its audio is not, or no longer, a
   * turn). A new one starts at `onsetMs` if given, fed the audio from just before it so the first
   * syllable reaches it, never reaching back into the previous turn's words (silence stands in).
   */
  private resetStt(onsetMs?: number): void {
    if (onsetMs === undefined) return this.words.drop();
    const padding = Math.max(this.ctx.settings().endpointing.prefixPaddingMs, this.engines.stt.leadInMs);
    const toSample = (ms: number) => Math.round((ms / 1000) * VAD_SAMPLE_RATE);
    const from = onsetMs - padding;
    const clean = Math.max(from, Math.min(onsetMs, this.lastSpeechEndMs + 50));
    const lead = [this.inputGain.atSpeechGain(this.ring.since(toSample(clean)))];
    if (clean > from) lead.unshift(new Float32Array(toSample(clean - from)));
    this.words.start(this.nextIndex, lead);
  }

  private endTurn(e: Extract<SegmenterEvent, { type: 'end-of-turn' }>): void {
    // Stamped before the recognizer finishes: a streaming recognizer's finish() does part of its work at once.
    const endOfTurnMs = this.ctx.clock.now();
    this.turnEnd.onResume();
    this.ended++;
    const checks = this.checks;
    this.checks = [];
    const session = this.words.take();
    const stt = session && this.postRoll.hold(session, e.speechEndMs, this.audioMs);
    if (stt) {
      const t0 = this.ctx.clock.now();
      const transcript = stt.finish().then((text) => {
        const finalMs = this.ctx.clock.now();
        return { text, finalMs, decodeMs: finalMs - t0 };
      });
      this.links.onTurn({
        type: 'end-of-turn',
        turn: {
          index: this.nextIndex++,
          speechStartMs: this.timeline.toClock(e.speechStartMs),
          speechEndMs: this.timeline.toClock(e.speechEndMs),
          endOfTurnMs,
          startedBy: this.startedBy,
          reason: e.reason,
          inputGainDb: round(this.inputGain.gainDb),
          turnChecks: checks.length > 0 ? checks : null,
          transcript,
          traits: this.traits.since(e.speechStartMs),
        },
      });
    }
    // Whatever ended it, a one-shot turn closes the microphone (after responding has the turn to answer).
    this.tellOneShot(this.oneShot.stop(endOfTurnMs, oneShotStop(e.reason)));
  }
}

/** Why one-shot listening stops when a turn is ended for `reason`. */
function oneShotStop(reason: EndReason): 'end-of-turn' | 'input-ended' {
  return reason === 'input-ended' ? 'input-ended' : 'end-of-turn';
}
