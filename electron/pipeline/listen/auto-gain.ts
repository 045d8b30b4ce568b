/**
 * Input level normalization: raises a quiet microphone to a usable speech level before the VAD and
 * the recognizer hear it. Silero misses speech 30 dB down, and the recognizers garble it from about
 * 20 dB down (`weather` at -20 dB: "whatis weat ite").
 *
 * The gain follows the speaker, not the signal: it adapts only on stretches well above the tracked
 * noise floor, holds in silence, and never lifts that floor to within NOISE_BELOW_TARGET_DB of the
 * speech target, so steady noise is never pumped up to speech level. It only ever raises (0 dB at
 * least): speech already at the target (a close microphone, a device with its own gain) passes
 * unchanged. It comes down at once when a peak would clip.
 */
import { SUBFRAME } from './energy';
import { SpeechLevel } from './speech-level';

/** Level (8 ms RMS) the loud part of speech is brought up to; a close or normalized microphone is above it. */
export const TARGET_DB = -20;
/** Most gain applied: enough for a voice 30 dB down, not enough to make a hiss sound like a voice. */
export const MAX_GAIN_DB = 30;
/** Steady noise is kept at least this far below the speech target. */
export const NOISE_BELOW_TARGET_DB = 25;
/** A sub-frame this far above the noise floor is the speaker (or some other real sound). */
const ACTIVE_ABOVE_FLOOR_DB = 15;
/** Nothing quieter than this is anyone's voice (16-bit dither is about -100 dBFS). */
const ACTIVE_MIN_DB = -80;
/**
 * The gain rises only within a stretch of activity this long (48 ms): by then the level estimate has
 * seen the voice and not just its weak onset, so a normal voice is not boosted at its first syllable.
 */
const RISE_AFTER_SUBFRAMES = 6;
/**
 * A voice rises and falls by syllables; a fan or hiss that starts after silence stays within a few
 * dB (white noise: within 4 dB over seconds). A stretch counts as a voice once its sub-frames span
 * this range.
 */
const MODULATION_DB = 6;
/** The noise floor is the quietest sub-frame of the last NOISE_BLOCKS * NOISE_BLOCK sub-frames (~1.5 s). */
const NOISE_BLOCK = 16;
const NOISE_BLOCKS = 12;
/** Largest gain rise per 32 ms window: 30 dB in about 100 ms, so a first word is heard at its level. */
const RISE_DB_PER_WINDOW = 10;
/** Peaks are held under this (about -1 dBFS). */
export const PEAK_LIMIT = 0.89;
const FLOOR_DB = -120;

export class AutoGain {
  private gain = 0; // dB
  private readonly speech = new SpeechLevel();
  /** The gain the voice is being brought to (the applied gain moves towards it). */
  private want = 0;
  private readonly blockMin = new Float64Array(NOISE_BLOCKS).fill(Infinity);
  private subframes = 0;
  /** The stretch of consecutive active sub-frames up to now: its length and level range (dB). */
  private stretch: { length: number; min: number; max: number } | null = null;

  /** The gain now applied, in dB (0 when nothing is raised). */
  get gainDb(): number {
    return this.gain;
  }

  /** The noise floor (dBFS, before the gain): the quietest recent sub-frame. */
  private get noiseFloorDb(): number {
    return Math.min(...this.blockMin);
  }

  /**
   * Returns the window with the gain applied (a new array; the input is left as it was). The whole
   * window is measured first, so the gain for it already knows its loudest peak: a rise is ramped
   * across the window, a fall applies at once so no peak clips. `hold`: the window may carry the
   * assistant's own voice (it was playing), which says nothing about the speaker's level, so the
   * gain does not adapt to it; the noise floor and the limiter still act.
   */
  process(x: Float32Array, hold = false): Float32Array {
    let peak = 0;
    let rising = false;
    for (let o = 0; o < x.length; o += SUBFRAME) {
      const end = Math.min(o + SUBFRAME, x.length);
      let sum = 0;
      for (let i = o; i < end; i++) {
        sum += x[i]! * x[i]!;
        peak = Math.max(peak, Math.abs(x[i]!));
      }
      this.measure(Math.max(FLOOR_DB, 10 * Math.log10(sum / (end - o) + 1e-12)), !hold);
      rising ||= this.voiced && this.stretch!.length >= RISE_AFTER_SUBFRAMES;
    }
    const before = this.gain;
    const noiseCap = TARGET_DB - NOISE_BELOW_TARGET_DB - this.noiseFloorDb;
    const level = this.speech.value;
    this.want = Math.max(0, Math.min(MAX_GAIN_DB, noiseCap, level === null ? 0 : TARGET_DB - level));
    // Down at once (louder speech, rising noise); up only while someone is heard, never in silence.
    if (this.want < this.gain) this.gain = this.want;
    else if (rising) this.gain = Math.min(this.want, this.gain + RISE_DB_PER_WINDOW);
    // The limiter: no peak is pushed past full scale (an input that clips already is left alone).
    if (peak > 0) this.gain = Math.min(this.gain, Math.max(0, 20 * Math.log10(PEAK_LIMIT / peak)));

    const a = 10 ** (Math.min(before, this.gain) / 20);
    const b = 10 ** (this.gain / 20);
    const out = new Float32Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = x[i]! * (a + ((b - a) * (i + 1)) / x.length);
    return out;
  }

  /**
   * Audio from before now at the gain the voice is being brought to (a new array). The recognizer's
   * lead-in is taken from before the speech onset, while the gain may still have been rising: this
   * way it gets the first syllable at the level of the words that follow.
   */
  atSpeechGain(x: Float32Array): Float32Array {
    const peak = x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const limit = peak > 0 ? 20 * Math.log10(PEAK_LIMIT / peak) : Infinity;
    const g = 10 ** (Math.max(this.gain, Math.min(this.want, limit)) / 20);
    return x.map((v) => v * g);
  }

  /** The stretch of activity now going on rises and falls like a voice. */
  private get voiced(): boolean {
    return this.stretch !== null && this.stretch.max - this.stretch.min >= MODULATION_DB;
  }

  /** Tracks the noise floor, and unless told not to learn, the stretch of activity and the speech level. */
  private measure(db: number, learn: boolean): void {
    // Minimum statistics: the floor is the quietest recent sub-frame, so it follows noise that
    // starts or stops within NOISE_BLOCKS blocks, and speech (which always has gaps) cannot lift it.
    const block = Math.floor(this.subframes / NOISE_BLOCK) % NOISE_BLOCKS;
    if (this.subframes % NOISE_BLOCK === 0) this.blockMin[block] = Infinity;
    this.blockMin[block] = Math.min(this.blockMin[block]!, db);
    this.subframes++;
    if (!learn || db <= this.noiseFloorDb + ACTIVE_ABOVE_FLOOR_DB || db <= ACTIVE_MIN_DB) {
      this.stretch = null;
      return;
    }
    const wasVoiced = this.voiced;
    const st = (this.stretch ??= { length: 0, min: db, max: db });
    st.length++;
    st.min = Math.min(st.min, db);
    st.max = Math.max(st.max, db);
    // Once a stretch turns out to be a voice, its loudest sub-frame so far is the first measure of it.
    if (this.voiced) this.speech.push(wasVoiced ? db : st.max);
  }
}
