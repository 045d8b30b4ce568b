/**
 * What a listener hears of speech besides its words: how long it lasts, how loud it is against the
 * user's requests, and where its pitch goes. An "mm-hmm" is short, quieter than a request and flat
 * or falling; someone taking the floor is longer, louder, or says something. Kept for the last two
 * seconds of input, so the speech the VAD confirms late is measured from its first sound.
 */
import type { AcknowledgementEvidence } from '../report';
import { SpeechLevel } from './speech-level';

const SUBFRAME = 128;
const HISTORY_MS = 2500;
/** Pitch is looked for between these (Hz): below a man's lowest speaking voice to above a child's. */
const F0_MIN = 70;
const F0_MAX = 400;
/** A frame is voiced when its normalized autocorrelation at the pitch lag reaches this. */
const VOICED = 0.5;
/** Fewer voiced frames than this say nothing of a pitch's direction. */
const MIN_VOICED = 3;

interface Frame {
  /** Input time at the sub-frame's end (ms). */
  endMs: number;
  db: number;
  active: boolean;
}

export type SpeechTraitsEvidence = Omit<AcknowledgementEvidence, 'words'>;

export class SpeechTraits {
  /** The loud part of the user's requests (speech not said over an answer). */
  private readonly requests = new SpeechLevel();
  private frames: Frame[] = [];
  /** Pitch (Hz) of voiced windows, with the window's end time. */
  private pitch: { endMs: number; f0: number }[] = [];

  constructor(private readonly sampleRate = 16000) {}

  /**
   * One window of input (after the input gain, as the VAD hears it), ending at input time `endMs`.
   * `thresholdDb`: the level a sub-frame needs to be speech; `request`: the speech in it is the
   * user addressing the assistant (not over an answer), which sets the level others are judged by.
   */
  push(window: Float32Array, endMs: number, thresholdDb: number, request: boolean): void {
    const subMs = (SUBFRAME / this.sampleRate) * 1000;
    const startMs = endMs - (window.length / this.sampleRate) * 1000;
    let anyActive = false;
    for (let o = 0, k = 1; o + SUBFRAME <= window.length; o += SUBFRAME, k++) {
      let sum = 0;
      for (let i = o; i < o + SUBFRAME; i++) sum += window[i]! * window[i]!;
      const db = 10 * Math.log10(sum / SUBFRAME + 1e-12);
      const active = db > thresholdDb;
      anyActive ||= active;
      if (active && request) this.requests.push(db);
      this.frames.push({ endMs: startMs + k * subMs, db, active });
    }
    if (anyActive) {
      const f0 = pitchOf(window, this.sampleRate);
      if (f0 !== null) this.pitch.push({ endMs, f0 });
    }
    const keepFrom = endMs - HISTORY_MS;
    if (this.frames.length > 0 && this.frames[0]!.endMs < keepFrom) this.frames = this.frames.filter((f) => f.endMs >= keepFrom);
    if (this.pitch.length > 0 && this.pitch[0]!.endMs < keepFrom) this.pitch = this.pitch.filter((p) => p.endMs >= keepFrom);
  }

  /** The speech from `startMs` (input time) so far: its length, level against the requests, pitch movement. */
  since(startMs: number): SpeechTraitsEvidence {
    const frames = this.frames.filter((f) => f.endMs > startMs && f.active);
    if (frames.length === 0) return { durationMs: 0, levelDb: null, pitchSemitones: null };
    const subMs = (SUBFRAME / this.sampleRate) * 1000;
    const durationMs = frames.at(-1)!.endMs - frames[0]!.endMs + subMs;
    const loud = loudPart(frames.map((f) => f.db));
    const ref = this.requests.value;
    const voiced = this.pitch.filter((p) => p.endMs > startMs && p.endMs <= frames.at(-1)!.endMs + subMs).map((p) => p.f0);
    return { durationMs: Math.round(durationMs), levelDb: ref === null ? null : round1(loud - ref), pitchSemitones: voiced.length < MIN_VOICED ? null : round1(semitones(voiced)) };
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The 90th percentile, as SpeechLevel settles at for a voice. */
function loudPart(db: number[]): number {
  const s = [...db].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))]!;
}

/** From the first third of the voiced frames to the last: the medians' distance in semitones. */
function semitones(f0: number[]): number {
  const third = Math.max(1, Math.floor(f0.length / 3));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return 12 * Math.log2(median(f0.slice(-third)) / median(f0.slice(0, third)));
}

/** The window's pitch by normalized autocorrelation (null when unvoiced). */
export function pitchOf(x: Float32Array, rate: number): number | null {
  const minLag = Math.floor(rate / F0_MAX);
  const maxLag = Math.min(Math.ceil(rate / F0_MIN), x.length >> 1);
  const corr = new Float64Array(maxLag + 1);
  let best = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (let i = 0; i + lag < x.length; i++) {
      const a = x[i]!;
      const b = x[i + lag]!;
      xy += a * b;
      xx += a * a;
      yy += b * b;
    }
    const r = xy / Math.sqrt(xx * yy + 1e-20);
    corr[lag] = r;
    if (r > best) best = r;
  }
  if (best < VOICED) return null;
  // The shortest lag nearly as good as the best: a period's multiples correlate as well (octave errors).
  for (let lag = minLag; lag <= maxLag; lag++) if (corr[lag]! >= 0.9 * best && (lag === maxLag || corr[lag]! >= corr[lag + 1]!)) return rate / lag;
  return null;
}
