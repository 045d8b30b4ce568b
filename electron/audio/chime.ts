/**
 * The timer/alarm chime, generated rather than shipped as an asset: an
 * A-major triad (A5, C#6, E6) struck as a quick arpeggio, each note a sine
 * with a short raised-cosine attack and an exponential decay, like a small
 * bell. Pure: the same rate always gives the same samples.
 */

/** Total length. */
const DURATION_S = 0.8;
/** Highest absolute sample value. */
const PEAK = 0.5;
/** Rise of each note; long enough to avoid a click, short enough to sound struck. */
const ATTACK_S = 0.01;
/** Decay time constant of each note (amplitude falls to 1/e in this time). */
const DECAY_S = 0.22;
/** Raised-cosine fade over the end, so the last sample is exactly zero. */
const FADE_OUT_S = 0.08;

/** Frequency (Hz), start (s) and relative level of each note. */
const NOTES: readonly { hz: number; at: number; gain: number }[] = [
  { hz: 880, at: 0, gain: 1 },
  { hz: 1108.73, at: 0.07, gain: 0.75 },
  { hz: 1318.51, at: 0.14, gain: 0.6 },
];

/** The chime at `sampleRate` (Hz): mono, about 0.8 s, peak 0.5, first and last samples 0. */
export function chime(sampleRate: number): Float32Array {
  // The top note must stay below Nyquist, or it would alias into a harsh tone.
  if (!Number.isFinite(sampleRate) || sampleRate < 4000) throw new RangeError(`chime: sampleRate must be at least 4000 Hz, got ${sampleRate}`);
  const n = Math.round(DURATION_S * sampleRate);
  const out = new Float32Array(n);
  const fadeStart = n - 1 - Math.round(FADE_OUT_S * sampleRate);
  let peak = 0;
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    let v = 0;
    for (const note of NOTES) {
      const local = t - note.at;
      if (local < 0) continue;
      // Starting each sine at phase 0 under a zero envelope keeps every onset click-free.
      const attack = local < ATTACK_S ? 0.5 - 0.5 * Math.cos((Math.PI * local) / ATTACK_S) : 1;
      v += note.gain * attack * Math.exp(-local / DECAY_S) * Math.sin(2 * Math.PI * note.hz * local);
    }
    if (i > fadeStart) v *= 0.5 + 0.5 * Math.cos((Math.PI * (i - fadeStart)) / (n - 1 - fadeStart));
    raw[i] = v;
    peak = Math.max(peak, Math.abs(v));
  }
  const scale = peak > 0 ? PEAK / peak : 0;
  for (let i = 0; i < n; i++) out[i] = raw[i]! * scale;
  return out;
}
