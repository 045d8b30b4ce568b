/**
 * Generated sounds, rather than shipped assets: the timer/alarm chime and the one-shot listening
 * cues. Each is a few sine notes, each with a short raised-cosine attack and an exponential decay,
 * like a small bell, faded to zero at the end. Pure: the same rate always gives the same samples.
 */

/** A sound as notes: frequency (Hz), start (s) and relative level of each. */
interface NotesSpec {
  /** Total length (s). */
  durationS: number;
  /** Highest absolute sample value. */
  peak: number;
  /** Rise of each note; long enough to avoid a click, short enough to sound struck. */
  attackS: number;
  /** Decay time constant of each note (amplitude falls to 1/e in this time). */
  decayS: number;
  /** Raised-cosine fade over the end, so the last sample is exactly zero. */
  fadeOutS: number;
  notes: readonly { hz: number; at: number; gain: number }[];
}

/** The timer/alarm chime: an A-major triad (A5, C#6, E6) struck as a quick arpeggio. */
const CHIME: NotesSpec = {
  durationS: 0.8,
  peak: 0.5,
  attackS: 0.01,
  decayS: 0.22,
  fadeOutS: 0.08,
  notes: [
    { hz: 880, at: 0, gain: 1 },
    { hz: 1108.73, at: 0.07, gain: 0.75 },
    { hz: 1318.51, at: 0.14, gain: 0.6 },
  ],
};

/** Length of a listening cue: long enough to be heard as two notes, short enough not to delay an answer much. */
const CUE_S = 0.12;
/**
 * Peak of a listening cue: about 16 dB under the chime. It is a courtesy sound that plays at every
 * activation, beside the user's own voice; it must not startle or be taken for the assistant talking.
 */
const CUE_PEAK = 0.08;
/** E5 and A5 (a fourth): rising says "listening", falling says "done". */
const CUE_LOW_HZ = 659.26;
const CUE_HIGH_HZ = 880;

const cue = (first: number, second: number): NotesSpec => ({
  durationS: CUE_S,
  peak: CUE_PEAK,
  attackS: 0.008,
  // Each note mostly gone before the next: two distinct steps, not a chord.
  decayS: 0.03,
  fadeOutS: 0.02,
  notes: [
    { hz: first, at: 0, gain: 1 },
    { hz: second, at: 0.055, gain: 1 },
  ],
});

const CUES = { start: cue(CUE_LOW_HZ, CUE_HIGH_HZ), stop: cue(CUE_HIGH_HZ, CUE_LOW_HZ) } as const;

export type ListenCue = keyof typeof CUES;

/** The chime at `sampleRate` (Hz): mono, about 0.8 s, peak 0.5, first and last samples 0. */
export function chime(sampleRate: number): Float32Array {
  return renderNotes(CHIME, sampleRate);
}

/** A one-shot listening cue at `sampleRate`: about 120 ms, peak 0.08; `start` rises, `stop` falls. */
export function listenCue(kind: ListenCue, sampleRate: number): Float32Array {
  return renderNotes(CUES[kind], sampleRate);
}

/** Renders `spec` at `sampleRate` (Hz): mono, peak `spec.peak`, first and last samples 0. */
function renderNotes(spec: NotesSpec, sampleRate: number): Float32Array {
  // The top note must stay below Nyquist, or it would alias into a harsh tone.
  if (!Number.isFinite(sampleRate) || sampleRate < 4000) throw new RangeError(`chime: sampleRate must be at least 4000 Hz, got ${sampleRate}`);
  const n = Math.round(spec.durationS * sampleRate);
  const out = new Float32Array(n);
  const fadeStart = n - 1 - Math.round(spec.fadeOutS * sampleRate);
  let peak = 0;
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    let v = 0;
    for (const note of spec.notes) {
      const local = t - note.at;
      if (local < 0) continue;
      // Starting each sine at phase 0 under a zero envelope keeps every onset click-free.
      const attack = local < spec.attackS ? 0.5 - 0.5 * Math.cos((Math.PI * local) / spec.attackS) : 1;
      v += note.gain * attack * Math.exp(-local / spec.decayS) * Math.sin(2 * Math.PI * note.hz * local);
    }
    if (i > fadeStart) v *= 0.5 + 0.5 * Math.cos((Math.PI * (i - fadeStart)) / (n - 1 - fadeStart));
    raw[i] = v;
    peak = Math.max(peak, Math.abs(v));
  }
  const scale = peak > 0 ? spec.peak / peak : 0;
  for (let i = 0; i < n; i++) out[i] = raw[i]! * scale;
  return out;
}
