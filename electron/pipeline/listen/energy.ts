/**
 * Short-time energy of the recent input, used to place speech boundaries more precisely than the
 * VAD's decisions do: Silero's decision lags the audio by 100-200 ms (it needs context), so the VAD
 * says *that* speech ended, and the energy envelope says *when*.
 */
import { SpeechLevel } from './speech-level';

export const SUBFRAME = 128; // 8 ms at 16 kHz
const FLOOR_DB = -100;
/**
 * Speech continues while the envelope is within this much of the speaker's own level (the loud part
 * of their voice), so a quiet speaker's last syllable counts as much as a loud one's. Before any
 * speech is heard the level is taken as ASSUMED_SPEECH_DB, which puts the bar at -58 dBFS.
 */
const BELOW_SPEECH_DB = 36;
const ASSUMED_SPEECH_DB = -22;
/**
 * Over the assistant's own voice, speech must come this close to the speaker's level to start a turn:
 * a person talking to the assistant is, and what the echo canceller leaves of the answer (measured
 * in five rooms: 23-34 dB under the user's level where it set off the VAD) is not.
 */
const NEAR_VOICE_DB = 20;

export class EnergyTracker {
  private readonly db: Float32Array;
  private count = 0; // sub-frames seen in total
  private noiseFloor = -70;
  private readonly speech = new SpeechLevel();

  constructor(
    private readonly sampleRate = 16000,
    historyMs = 2000,
  ) {
    this.db = new Float32Array(Math.ceil((historyMs / 1000) * (sampleRate / SUBFRAME)));
  }

  get subframeMs(): number {
    return (SUBFRAME / this.sampleRate) * 1000;
  }

  /** Adds a window (a multiple of SUBFRAME samples). `speech` is the VAD's decision for it. */
  push(window: Float32Array, speech: boolean): void {
    for (let o = 0; o + SUBFRAME <= window.length; o += SUBFRAME) {
      let sum = 0;
      for (let i = o; i < o + SUBFRAME; i++) sum += window[i]! * window[i]!;
      const d = Math.max(FLOOR_DB, 10 * Math.log10(sum / SUBFRAME + 1e-12));
      this.db[this.count % this.db.length] = d;
      this.count++;
      // The floor follows non-speech quickly downwards and slowly upwards.
      if (!speech) this.noiseFloor += (d - this.noiseFloor) * (d < this.noiseFloor ? 0.3 : 0.02);
      else if (d > this.noiseFloor + 12) this.speech.push(d);
    }
  }

  /**
   * Whether a window comes near the speaker's own voice: its loudest sub-frame within
   * NEAR_VOICE_DB of the loud part of their voice (of ASSUMED_SPEECH_DB before any was heard).
   */
  reachesVoice(window: Float32Array): boolean {
    let peak = FLOOR_DB;
    for (let o = 0; o + SUBFRAME <= window.length; o += SUBFRAME) {
      let sum = 0;
      for (let i = o; i < o + SUBFRAME; i++) sum += window[i]! * window[i]!;
      peak = Math.max(peak, 10 * Math.log10(sum / SUBFRAME + 1e-12));
    }
    return peak >= (this.speech.value ?? ASSUMED_SPEECH_DB) - NEAR_VOICE_DB;
  }

  /** Level a sub-frame must exceed to count as part of speech: clear of the noise, near the voice. */
  threshold(): number {
    return Math.max(this.noiseFloor + 12, (this.speech.value ?? ASSUMED_SPEECH_DB) - BELOW_SPEECH_DB);
  }

  private dbAt(index: number): number | undefined {
    if (index < 0 || index >= this.count || index < this.count - this.db.length) return undefined;
    return this.db[index % this.db.length];
  }

  private timeOf(index: number): number {
    return (index * SUBFRAME * 1000) / this.sampleRate;
  }

  /**
   * End time of the last active sub-frame at or before `atMs`, looking back at most `lookbackMs`;
   * undefined when none is active there.
   */
  lastActiveEnd(atMs: number, lookbackMs: number): number | undefined {
    const thr = this.threshold();
    const last = Math.floor((atMs / 1000) * (this.sampleRate / SUBFRAME)) - 1;
    const first = last - Math.ceil(lookbackMs / this.subframeMs);
    for (let i = last; i >= first; i--) {
      const d = this.dbAt(i);
      if (d === undefined) break;
      if (d > thr) return this.timeOf(i + 1);
    }
    return undefined;
  }

  /**
   * Start time of the run of activity that contains `atMs`, walking back over gaps shorter than
   * `maxGapMs` (stop consonants), at most `lookbackMs`.
   */
  onsetBefore(atMs: number, lookbackMs: number, maxGapMs = 64): number | undefined {
    const thr = this.threshold();
    const last = Math.floor((atMs / 1000) * (this.sampleRate / SUBFRAME)) - 1;
    const first = last - Math.ceil(lookbackMs / this.subframeMs);
    const maxGap = Math.ceil(maxGapMs / this.subframeMs);
    let onset: number | undefined;
    let gap = 0;
    for (let i = last; i >= first; i--) {
      const d = this.dbAt(i);
      if (d === undefined) break;
      if (d > thr) {
        onset = i;
        gap = 0;
      } else if (onset !== undefined && ++gap > maxGap) break;
    }
    return onset === undefined ? undefined : this.timeOf(onset);
  }

  reset(): void {
    this.count = 0;
  }
}
