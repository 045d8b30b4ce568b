import { resample } from '../../audio/resample';

/**
 * Where a piece of queued audio lies. `from`/`to` are positions in the output stream (milliseconds
 * of audio, pauses not counted); `startMs`/`endMs` are when it is expected to play on the pipeline
 * clock if nothing pauses or stops playback.
 */
export interface ScheduledAudio {
  from: number;
  to: number;
  startMs: number;
  endMs: number;
}

/** Where the assistant's voice goes: the speaker in the app, a timeline in `talk` and tests. */
export interface AudioOutput {
  /** Queues audio after whatever is queued. */
  enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio;
  /** Holds playback at `atMs`; what is queued stays queued. */
  pause(atMs: number): void;
  /** Continues a paused playback from where it paused. */
  resume(atMs: number): void;
  /** Stops at `atMs` and flushes the queue: nothing queued plays after it. Returns the time playback stopped. */
  stop(atMs: number): number;
  /**
   * Sets the playback volume from `atMs` on (1: full; less while deciding whether the user's speech
   * over it is an interruption). It ramps over DUCK_RAMP_MS; a stop brings it back to full.
   */
  duck(atMs: number, gain: number): void;
  /** Stream position reached at `atMs`: how much of the queued audio has played by then. */
  position(atMs: number): number;
  /**
   * When stream position `p` played: the start of what follows it, or with `end` the end of what
   * precedes it. Null when it has not played (or is no longer remembered).
   */
  timeOf(p: number, end?: boolean): number | null;
  /** Stream position up to which audio is queued. */
  readonly queuedTo: number;
  readonly paused: boolean;
  /** When the queue runs dry if nothing pauses it (Infinity while paused with audio left). */
  readonly endMs: number;
  /**
   * What the speaker played during [fromMs, fromMs + length / 16 kHz), at 16 kHz: the reference an
   * echo canceller subtracts. Null when nothing played in that span.
   */
  audible(fromMs: number, length: number): Float32Array | null;
  /**
   * How much silence (ms, at most `limitMs` each way) the queued audio has just before and just
   * after stream position `p`: a hold there adds to a gap the listener already hears.
   */
  quietAround(p: number, limitMs: number): { beforeMs: number; afterMs: number };
}

/** Silence, for quietAround: 5 ms blocks under -60 dBFS. */
const QUIET_BLOCK_MS = 5;
const QUIET_POWER = 1e-6;

interface Chunk {
  from: number;
  to: number;
  samples: Float32Array;
  /** The same at 16 kHz (the echo reference), made when first asked for: not on the way to the speaker. */
  at16k: Float32Array | null;
  sampleRate: number;
}

/** A stretch of uninterrupted playback: stream [from, to) played from wall time startMs. */
interface Played {
  startMs: number;
  from: number;
  to: number;
}

const REF_RATE = 16000;
/** How long a change of volume takes: short enough to act at once, long enough not to click. */
export const DUCK_RAMP_MS = 20;

/** A change of playback volume at wall time `atMs`, from `from` to `gain` over DUCK_RAMP_MS. */
interface GainChange {
  atMs: number;
  from: number;
  gain: number;
}

/** The volume at wall time `t` (changes oldest first). */
function gainAt(changes: readonly GainChange[], t: number): number {
  let g = 1;
  for (const c of changes) {
    if (c.atMs > t) break;
    const k = (t - c.atMs) / DUCK_RAMP_MS;
    g = k >= 1 ? c.gain : c.from + (c.gain - c.from) * k;
  }
  return g;
}

/**
 * The bookkeeping every output shares: a stream of queued audio played back to back, with pauses
 * and flushes, mapped onto the pipeline clock. Subclasses decide where the samples go.
 */
export class PlaybackSchedule implements AudioOutput {
  private readonly chunks: Chunk[] = [];
  /** Closed stretches of playback, oldest first (the open one is `anchor`). */
  protected readonly played: Played[] = [];
  /** Playback is running from stream position `from` since wall time `startMs` (null while paused). */
  private anchor: { startMs: number; from: number } | null = { startMs: 0, from: 0 };
  private pausedAt = 0;
  private queued = 0;
  /** Volume changes, oldest first (none: full volume throughout). */
  private readonly gains: GainChange[] = [];

  /** How much already-played audio (ms) is kept for the echo reference and rendering; Infinity keeps all. */
  constructor(private readonly keepMs = 10_000) {}

  get queuedTo(): number {
    return this.queued;
  }

  get paused(): boolean {
    return this.anchor === null;
  }

  get endMs(): number {
    if (!this.anchor) return this.queued > this.pausedAt ? Infinity : -Infinity;
    return this.anchor.startMs + (this.queued - this.anchor.from);
  }

  position(atMs: number): number {
    if (!this.anchor) return this.pausedAt;
    return Math.min(this.queued, this.anchor.from + Math.max(0, atMs - this.anchor.startMs));
  }

  enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio {
    // A dry queue starts playing again from now, not from when it ran dry.
    if (this.anchor && this.position(atMs) >= this.queued) this.restart(atMs, this.queued);
    const durationMs = (samples.length / sampleRate) * 1000;
    const from = this.queued;
    const to = from + durationMs;
    this.chunks.push({ from, to, samples, sampleRate, at16k: sampleRate === REF_RATE ? samples : null });
    this.queued = to;
    this.prune(atMs);
    const startMs = this.wallOf(from, atMs);
    return { from, to, startMs, endMs: startMs + durationMs };
  }

  /** When stream position `p` is expected to play (assuming no pause from `atMs` on). */
  private wallOf(p: number, atMs: number): number {
    if (!this.anchor) return atMs + (p - this.pausedAt);
    return this.anchor.startMs + (p - this.anchor.from);
  }

  pause(atMs: number): void {
    if (!this.anchor) return;
    this.pausedAt = this.position(atMs);
    this.close(atMs);
    this.anchor = null;
  }

  resume(atMs: number): void {
    if (this.anchor) return;
    this.anchor = { startMs: atMs, from: this.pausedAt };
  }

  duck(atMs: number, gain: number): void {
    const from = gainAt(this.gains, atMs);
    if (from === gain && this.gainTarget === gain) return;
    this.gains.push({ atMs, from, gain });
  }

  /** The volume the latest change goes to. */
  private get gainTarget(): number {
    return this.gains[this.gains.length - 1]?.gain ?? 1;
  }

  stop(atMs: number): number {
    // What plays next is a new answer: at full volume.
    if (this.gainTarget !== 1) this.gains.push({ atMs, from: 1, gain: 1 });
    const p = this.position(atMs);
    this.close(atMs);
    this.queued = p;
    // Flushed audio is dropped; a chunk that was playing is cut where it stopped.
    for (let i = this.chunks.length - 1; i >= 0 && this.chunks[i]!.to > p; i--) {
      const c = this.chunks[i]!;
      if (c.from >= p) this.chunks.splice(i, 1);
      else c.to = p;
    }
    this.anchor = { startMs: atMs, from: p };
    return atMs;
  }

  /** Ends the open stretch of playback at `atMs` (pause or stop). */
  private close(atMs: number): void {
    if (!this.anchor) return;
    const to = this.position(atMs);
    if (to > this.anchor.from) this.played.push({ startMs: this.anchor.startMs, from: this.anchor.from, to });
  }

  private restart(atMs: number, from: number): void {
    this.close(atMs);
    this.anchor = { startMs: atMs, from };
  }

  /** Stretches of playback overlapping [fromMs, toMs), the open one included. */
  private stretches(fromMs: number, toMs: number): Played[] {
    const all = [...this.played];
    if (this.anchor) {
      const to = this.position(toMs);
      if (to > this.anchor.from) all.push({ startMs: this.anchor.startMs, from: this.anchor.from, to });
    }
    return all.filter((s) => s.startMs < toMs && s.startMs + (s.to - s.from) > fromMs);
  }

  timeOf(p: number, end = false): number | null {
    for (const s of this.stretches(-Infinity, Infinity)) {
      if (end ? p > s.from && p <= s.to : p >= s.from && p < s.to) return s.startMs + (p - s.from);
    }
    return null;
  }

  audible(fromMs: number, length: number): Float32Array | null {
    const toMs = fromMs + (length / REF_RATE) * 1000;
    const spans = this.stretches(fromMs, toMs);
    if (spans.length === 0) return null;
    const out = new Float32Array(length);
    for (const s of spans) this.mix(out, REF_RATE, fromMs, s, true);
    this.applyGain(out, REF_RATE, fromMs);
    return out;
  }

  quietAround(p: number, limitMs: number): { beforeMs: number; afterMs: number } {
    return { beforeMs: this.quietRun(p, -1, limitMs), afterMs: this.quietRun(p, 1, limitMs) };
  }

  /** Silent milliseconds of queued audio from position `p` going back (`dir` -1) or on (1); unqueued audio ends the run. */
  private quietRun(p: number, dir: 1 | -1, limitMs: number): number {
    let quiet = 0;
    while (quiet < limitMs) {
      const a = dir > 0 ? p + quiet : p - quiet - QUIET_BLOCK_MS;
      // A block across two chunks (a clause's end) is judged by the part in the first.
      const c = this.chunks.find((k) => a >= k.from && a < k.to);
      if (!c || a < 0) break;
      const first = Math.round(((a - c.from) / 1000) * c.sampleRate);
      const end = Math.min(c.samples.length, first + Math.max(1, Math.round((QUIET_BLOCK_MS / 1000) * c.sampleRate)));
      let e = 0;
      for (let i = first; i < end; i++) e += c.samples[i]! * c.samples[i]!;
      if (end <= first || e / (end - first) >= QUIET_POWER) break;
      quiet += QUIET_BLOCK_MS;
    }
    return Math.min(quiet, limitMs);
  }

  /** Scales `out` (starting at wall time `fromMs`) by the volume at each of its samples. */
  private applyGain(out: Float32Array, rate: number, fromMs: number, first = 0): void {
    if (this.gains.length === 0) return;
    // `first`: out[0] is sample `first` after fromMs (render() in pieces computes each time as a whole render does).
    const startMs = fromMs + (first / rate) * 1000;
    const endMs = fromMs + ((first + out.length) / rate) * 1000;
    const moving = this.gains.some((c) => c.atMs < endMs && c.atMs + DUCK_RAMP_MS > startMs);
    if (!moving) {
      // One volume over the whole buffer (the usual case: full).
      const g = gainAt(this.gains, startMs);
      if (g !== 1) for (let i = 0; i < out.length; i++) out[i]! *= g;
      return;
    }
    for (let i = 0; i < out.length; i++) {
      const g = gainAt(this.gains, fromMs + ((first + i) / rate) * 1000);
      if (g !== 1) out[i]! *= g;
    }
  }

  /** Adds the part of stretch `s` that falls on `out` (which starts at wall time `fromMs`). */
  private mix(out: Float32Array, rate: number, fromMs: number, s: Played, ref: boolean, first = 0): void {
    for (const c of this.chunks) {
      const a = Math.max(c.from, s.from);
      const b = Math.min(c.to, s.to);
      if (b <= a) continue;
      const src = ref ? (c.at16k ??= resample(c.samples, c.sampleRate, REF_RATE)) : c.samples;
      const srcRate = ref ? REF_RATE : c.sampleRate;
      if (srcRate !== rate) throw new Error('PlaybackSchedule: mixed sample rates');
      const srcStart = Math.round(((a - c.from) / 1000) * rate);
      const srcEnd = Math.min(src.length, Math.round(((b - c.from) / 1000) * rate));
      const dst = Math.round(((s.startMs + (a - s.from) - fromMs) / 1000) * rate) - first;
      for (let i = Math.max(srcStart, srcStart - dst); i < srcEnd; i++) {
        const j = dst + (i - srcStart);
        if (j >= out.length) break;
        out[j]! += src[i]!;
      }
    }
  }

  /** Everything played, mixed onto one buffer starting at wall time 0 (needs keepMs = Infinity). */
  render(sampleRate: number, minDurationMs = 0): Float32Array {
    return this.renderRange(sampleRate, 0, this.renderLength(sampleRate, minDurationMs));
  }

  /** How many samples render() gives. */
  renderLength(sampleRate: number, minDurationMs = 0): number {
    const endMs = this.stretches(-Infinity, Infinity).reduce((end, s) => Math.max(end, s.startMs + (s.to - s.from)), minDurationMs);
    return Math.ceil((endMs / 1000) * sampleRate);
  }

  /** Samples [first, first + length) of render(), the same values: a long timeline can be written piece by piece. */
  renderRange(sampleRate: number, first: number, length: number): Float32Array {
    const out = new Float32Array(length);
    for (const s of this.stretches(-Infinity, Infinity)) this.mix(out, sampleRate, 0, s, false, first);
    this.applyGain(out, sampleRate, 0, first);
    return out;
  }

  /** Forgets audio that finished playing more than keepMs ago. */
  private prune(atMs: number): void {
    if (!Number.isFinite(this.keepMs)) return;
    const cutoff = atMs - this.keepMs;
    const endOf = (s: Played) => s.startMs + (s.to - s.from);
    while (this.played.length > 0 && endOf(this.played[0]!) < cutoff) this.played.shift();
    // The latest change before the cutoff still sets the volume after it: keep it, not those before.
    while (this.gains.length > 1 && this.gains[1]!.atMs + DUCK_RAMP_MS < cutoff) this.gains.shift();
    const oldest = this.played[0]?.from ?? (this.anchor ? this.position(cutoff) : this.pausedAt);
    while (this.chunks.length > 0 && this.chunks[0]!.to <= oldest) this.chunks.shift();
  }
}

/**
 * A speaker simulated on the pipeline clock for `talk` and tests: everything that played is kept so
 * it can be written to a file on the input's timeline.
 */
export class TimelineOutput extends PlaybackSchedule {
  constructor() {
    super(Infinity);
  }
}
