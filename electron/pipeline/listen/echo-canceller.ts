import { BandSplit } from '../../audio/band-split';
import { DelaySearch } from './echo-delay-search';
import { EchoFilter } from './echo-filter';
import { EchoSuppressor, type FilterStage } from './echo-suppressor';

/**
 * Removes the assistant's own voice from the microphone signal. The pipeline knows exactly what the
 * speaker played (the reference), so the echo is that reference through the room:
 *
 * 1. The fast path finds the direct sound's delay by cross-correlation and its gain by least squares.
 *    It places the long filter on the reference (a long delay is skipped rather than spent taps on)
 *    and seeds it with that one tap, so the direct sound is cancelled from the first windows.
 * 2. A partitioned-block frequency-domain adaptive filter (echo-filter.ts) learns the whole path,
 *    reverberation tail included, and subtracts its echo estimate.
 * 3. A residual suppressor (echo-suppressor.ts) takes down what the filter leaves, band by band.
 *
 * The filter keeps what it learnt between answers: the room does not change when the assistant
 * stops talking. With no reference (nothing played lately) the input passes untouched.
 */
export interface EchoCancellerOptions {
  sampleRate: number;
  /** Longest speaker-to-microphone delay searched for. */
  maxDelayMs: number;
  /** Audio compared when estimating the echo path. */
  analysisMs: number;
  /** The reverberation tail the adaptive filter covers (default 600 ms). */
  tailMs?: number;
}

/** What the last window did, for the ERLE meter and the benchmark. */
export interface EchoWindowStats {
  /** Echo was expected in this window (something played within the echo's reach). */
  active: boolean;
  /** Energy of the microphone input and of what is left after cancellation. */
  micEnergy: number;
  outEnergy: number;
}

const DECIMATE = 4;
/** The least input compared when estimating the echo path (64 ms at 16 kHz). */
const MIN_ANALYSIS = 1024;
/** Correlation above which the input is taken to be mostly echo (the gain may be learnt from it). */
const LOCK_NCC = 0.6;
/** The same over less input than `analysisMs` (the first windows of an answer). */
const SHORT_LOCK_NCC = 0.8;
/** Re-check the echo path every this many windows once locked, */
const RECHECK_EVERY = 8;
/** and while none is found, at each of the first windows, then every few. */
const UNLOCKED_EAGER = 8;
const UNLOCKED_EVERY = 4;
const SILENT = 1e-7;
/** The adaptive filter's block (16 ms at 16 kHz): two per 32 ms window. */
const BLOCK = 256;
/**
 * Taps kept before the found delay when the filter is placed (32 ms): in a reverberant room the
 * strongest match can be a reflection that arrives after the direct sound, which must stay covered.
 */
const LEAD = 512;
/** The reference envelope's fall per block: 60 dB in 0.6 s, a reverberant room's decay. */
const REF_DECAY = 10 ** (-6 * (BLOCK / 16000 / 0.6));
/** How much of each block's power enters the smoothed powers (about 150 ms). */
const LOUDNESS_SMOOTHING = 0.1;
/** Blocks (1.5 s) of reference heard during which an unconverged filter's microphone stands for the echo. */
const EARLY_BLOCKS = 94;
/** Blocks of the answer (0.5 s) after which the measured loudness replaces the prior. */
const PRIOR_BLOCKS = 30;
/** A filter leaving less than this share (-10 dB) has learnt enough to keep when the direct path is found. */
const CONVERGED_SHARE = 0.1;
/** The least residual share the coarse estimate assumes (see coarseResidual). */
const MIN_SHARE = 0.003;
/** A reference this far (20 dB) under its envelope has gone quiet: the echo is mostly the room's tail, */
const TAIL_BELOW = 0.01;
/** once it has been for this many blocks (48 ms: a gap between words, not a stop consonant), */
const TAIL_AFTER_BLOCKS = 3;
/** of which the filter is assumed to leave this share. */
const TAIL_SHARE = 0.3;
/** No room makes the echo louder than this many times the reference's power. */
const MAX_LOUDNESS = 16;
/** Where the suppressor's bands meet (Hz): voiced sound low, fricatives such as "s" high. */
const BAND_EDGES = [400, 1000, 2000, 4000];

/** One signal's bands over a block, with their energies. */
class Bands {
  readonly split: BandSplit;
  readonly x: Float64Array[];
  readonly energy: Float64Array;
  constructor(sampleRate: number) {
    this.split = new BandSplit(sampleRate, BAND_EDGES);
    this.x = Array.from({ length: this.split.bands }, () => new Float64Array(BLOCK));
    this.energy = new Float64Array(this.split.bands);
  }
  take(block: ArrayLike<number>): this {
    this.split.split(block, this.x);
    for (let k = 0; k < this.x.length; k++) this.energy[k] = energy(this.x[k]!, 0, BLOCK);
    return this;
  }
}

export class EchoCanceller {
  private readonly mic: Float32Array;
  private readonly ref: Float32Array;
  private readonly maxDelay: number;
  private readonly analysis: number;
  private readonly filter: EchoFilter;
  private readonly search: DelaySearch;
  private readonly suppressor = new EchoSuppressor(BAND_EDGES.length + 1);
  private readonly residual = new Float64Array(BLOCK);
  /** The bands of the filter's output, its echo estimate, the microphone and the reference. */
  private readonly residualBands: Bands;
  private readonly echoBands: Bands;
  private readonly micBands: Bands;
  private readonly refBands: Bands;
  /** Per band: the coarse residual estimate of the current block, */
  private readonly coarse = new Float64Array(BAND_EDGES.length + 1);
  /** and the echo the reference alone could bring there, nothing cancelled (power per sample). */
  private readonly bound = new Float64Array(BAND_EDGES.length + 1);
  /** Blocks in a row the answer has been quiet. */
  private quietBlocks = 0;
  /** The speech being heard over the answer began while the answer was quiet: it may be the room's tail itself. */
  private heardInQuiet = false;
  /** Speech was being heard in the last block (to see where the hearing began). */
  private wasHearing = false;
  private delay: number | null = null;
  private gain = 0;
  /** Where the filter's first tap sits on the reference, in samples of delay. */
  private offset = 0;
  /** The filter was placed on a found direct path (before that it starts at delay 0). */
  private placed = false;
  private windows = 0;
  /** Samples since the reference last had signal (the echo can outlast it by the delay and the tail). */
  private refQuiet = Infinity;
  /** Samples since the reference began after a silence: only that much of the input can hold its echo. */
  private refHeard = 0;
  /** Per band: the reference's power envelope, held and let down at a reverberant room's pace. */
  private readonly refLevel = new Float64Array(BAND_EDGES.length + 1);
  /** Per band: smoothed echo and reference powers, whose ratio is the room's loudness (see coarseResidual). */
  private readonly micSmooth = new Float64Array(BAND_EDGES.length + 1);
  private readonly refSmooth = new Float64Array(BAND_EDGES.length + 1);
  /** Blocks heard with the reference playing: the loudness measured is trusted once there are enough. */
  private heardBlocks = 0;
  /** Blocks the reference had signal in, path found or not. */
  private playedBlocks = 0;
  /** The last window, for the meter. */
  readonly last: EchoWindowStats = { active: false, micEnergy: 0, outEnergy: 0 };

  constructor(opts: EchoCancellerOptions) {
    this.maxDelay = Math.round((opts.maxDelayMs / 1000) * opts.sampleRate);
    this.analysis = Math.round((opts.analysisMs / 1000) * opts.sampleRate);
    const tail = Math.round(((opts.tailMs ?? 600) / 1000) * opts.sampleRate);
    this.filter = new EchoFilter({ block: BLOCK, partitions: Math.ceil(tail / BLOCK) });
    this.search = new DelaySearch(Math.floor(Math.max(this.analysis, MIN_ANALYSIS) / DECIMATE), Math.floor(this.maxDelay / DECIMATE));
    this.residualBands = new Bands(opts.sampleRate);
    this.echoBands = new Bands(opts.sampleRate);
    this.micBands = new Bands(opts.sampleRate);
    this.refBands = new Bands(opts.sampleRate);
    const size = this.maxDelay + this.analysis;
    this.mic = new Float32Array(size);
    this.ref = new Float32Array(size);
  }

  /** The estimated direct path, or null before one was found. */
  get path(): { delaySamples: number; gain: number } | null {
    return this.delay === null ? null : { delaySamples: this.delay, gain: this.gain };
  }

  /** The echo tail the adaptive filter covers, in ms at `sampleRate`. */
  tailMs(sampleRate: number): number {
    return Math.round(((this.filter.partitions * this.filter.block) / sampleRate) * 1000);
  }

  /**
   * One window of microphone input and what the speaker played over the same span (null: nothing).
   * `hearing`: speech is being heard over the answer (a possible barge-in); its words matter more
   * than the room's tail then (see coarseResidual). Returns the input with the echo removed (the same
   * array when there was nothing to remove).
   */
  process(mic: Float32Array, ref: Float32Array | null, hearing = false): Float32Array {
    const n = mic.length;
    shiftIn(this.mic, mic);
    shiftIn(this.ref, ref ?? new Float32Array(n));
    this.refQuiet = ref && energy(ref, 0, n) > SILENT * n ? 0 : this.refQuiet + n;
    const reach = this.offset + this.filter.partitions * BLOCK;
    const micEnergy = energy(mic, 0, n);
    if (this.refQuiet > reach + n || n % BLOCK !== 0) {
      Object.assign(this.last, { active: false, micEnergy, outEnergy: micEnergy });
      this.refHeard = 0;
      return mic;
    }
    this.refHeard += n;
    this.windows++;
    // Searched for at every one of an answer's first windows, then (no echo found: headphones, a
    // room too reverberant to match) every few: each search costs several times the cancelling.
    const searchEvery = this.delay !== null ? RECHECK_EVERY : this.refHeard <= UNLOCKED_EAGER * n ? 1 : UNLOCKED_EVERY;
    // (Not in speech that can only be the user's: their voice matches the answer's by chance now and then.)
    if (this.windows % searchEvery === 0 && !this.onlyUser(hearing)) this.estimatePath();

    const out = new Float32Array(n);
    const len = this.ref.length;
    for (let b = 0; b < n; b += BLOCK) {
      const refBlock = this.ref.subarray(len - n + b - this.offset, len - n + b - this.offset + BLOCK);
      const micBlock = mic.subarray(b, b + BLOCK);
      // The most echo the answer could bring, as judged for the block before (0 until an echo is found).
      let bound = 0;
      for (let k = 0; k < this.bound.length; k++) bound += this.bound[k]!;
      this.filter.process(micBlock, refBlock, this.residual, hearing, bound * BLOCK);
      // Where the answer has gone quiet, a filter output louder than its input means the filter is
      // wrong for this block (it predicts echo that is not there: the room's tail, which it models
      // worst). The suppressor then works on the input itself; scaled down to the input's level
      // instead, the tail passed whole. (While the answer plays, such a block is more likely the
      // user's voice adding up with the echo, and the filter's output stays the better one.)
      const eMic = energy(micBlock, 0, BLOCK);
      const filterWrong = this.quietBlocks > 0 && energy(this.residual, 0, BLOCK) > eMic;
      const res = this.residualBands.take(filterWrong ? micBlock : this.residual);
      const echo = this.echoBands.take(this.filter.echo);
      // The microphone's bands stand for the echo only in an answer's first moments (see coarseResidual).
      const micBands = this.heardBlocks < EARLY_BLOCKS ? this.micBands.take(micBlock) : null;
      this.coarseResidual(micBands, this.refBands.take(refBlock), echo, hearing);
      // The filter's weights are then only what the background fitted of the user's speech by chance.
      if (this.onlyUser(hearing)) {
        out.set(micBlock, b);
        continue;
      }
      // (What the background learnt is a share of the filter's output, which a wrong filter does not pass on.)
      const stage: FilterStage = !this.filter.echoFound && !this.placed ? 'no-echo' : this.heardBlocks >= EARLY_BLOCKS && this.filter.residualShare < CONVERGED_SHARE ? 'settled' : 'settling';
      this.suppressor.process(res.x, res.energy, echo.energy, this.coarse, this.bound, filterWrong ? 0 : this.filter.learnt, stage, out, b);
      // Removing echo can only make the input quieter: louder means the filter is wrong for this
      // block (a pause in the answer, a path that went away). It is brought down to the input's level.
      const eOut = energy(out, b, BLOCK);
      if (eOut > eMic) {
        const scale = Math.sqrt(eMic / eOut);
        for (let i = b; i < b + BLOCK; i++) out[i]! *= scale;
      }
    }
    Object.assign(this.last, { active: true, micEnergy, outEnergy: energy(out, 0, n) });
    return out;
  }

  /**
   * Speech heard over the answer once 1.5 s of answer have brought no echo path (headphones) can only
   * be the user's, and passes whole. Subtracting what the background filter fitted of it by chance
   * (or holding down what it "learnt"), or a path matched to it by chance, garbled the user's next
   * word ("music" heard as "soursic" or "dic", on a busy machine that moved the answer's pauses).
   * (Sooner, speech may be the echo of an answer's first words, before its path is found.)
   */
  private onlyUser(hearing: boolean): boolean {
    return hearing && !this.filter.echoFound && !this.placed && this.playedBlocks >= EARLY_BLOCKS;
  }

  /**
   * The echo left per band, as a power, judged from the reference alone: the room's loudness
   * (microphone power per reference power, both smoothed) times the reference's envelope (which
   * decays no faster than a reverberant room), times the share the filter has not learnt yet. It
   * covers the first moments of an answer, before the filter has converged; a user talking then
   * raises it and is held down too, the price of never taking the answer's first words for theirs.
   * Writes `this.coarse`.
   */
  private coarseResidual(mic: Bands | null, ref: Bands, echo: Bands, hearing: boolean): void {
    // The echo's power: the filter's own estimate (the user's voice is not in it), or the
    // microphone's in the first moments, before the filter has converged. Past them the microphone
    // is not trusted for it (with no echo at all, as on headphones, the filter never converges, and
    // the microphone then holds only the user). Powers are smoothed over about 150 ms: the echo
    // lags the reference by the room's delay and build-up.
    const early = mic !== null && this.filter.residualShare >= CONVERGED_SHARE ? mic : null;
    let px = 0;
    for (let k = 0; k < this.coarse.length; k++) {
      const bandRef = ref.energy[k]! / BLOCK;
      px += bandRef;
      this.refLevel[k] = Math.max(bandRef, this.refLevel[k]! * REF_DECAY);
      // (The filter's estimate leaves out the share it has not learnt.)
      const heard = (early ? early.energy[k]! : echo.energy[k]! * (1 + this.filter.residualShare)) / BLOCK;
      this.micSmooth[k]! += LOUDNESS_SMOOTHING * (heard - this.micSmooth[k]!);
      this.refSmooth[k]! += LOUDNESS_SMOOTHING * (this.refLevel[k]! - this.refSmooth[k]!);
    }
    if (px > SILENT) this.playedBlocks++;
    this.coarse.fill(0);
    this.bound.fill(0);
    // No echo until the filter or the fast path has found some: with none at all (headphones) the
    // user's words during an answer must pass untouched, and the filter then never cancels anything.
    if (!this.filter.echoFound && !this.placed) return;
    if (px > SILENT) this.heardBlocks++;
    // Until it has heard enough of the room, it assumes the echo as loud as the answer itself.
    const prior = Math.max(0, 1 - this.heardBlocks / PRIOR_BLOCKS);
    // New sounds land in frequencies the filter has not learnt: never trust it below -25 dB here.
    const share = Math.max(MIN_SHARE, this.filter.residualShare);
    // The room's loudness over all bands: a band the filter has not learnt yet (a new sound in the
    // answer) reads quiet on its own, but the echo there is as loud as the room makes it overall.
    const micAll = this.micSmooth.reduce((a, v) => a + v, 0);
    const refAll = this.refSmooth.reduce((a, v) => a + v, 0);
    const loudnessAll = refAll > SILENT ? Math.min(MAX_LOUDNESS, Math.max(micAll / refAll, prior)) : prior;
    // Where the answer has gone quiet (between words, after its last), the echo is the room's tail of
    // what it said before, which the filter models worst (its late taps learn slowest): it is not
    // trusted there. Judged over all bands: within one, a quiet reference is only the sound changing
    // (a vowel after an "s"), and the user's own "s" must pass there. Nor while the user is being
    // heard: playback paused for their speech, and the rest of their words must come through.
    const quietBefore = this.quietBlocks;
    this.quietBlocks = px < TAIL_BELOW * this.refLevel.reduce((a, v) => a + v, 0) ? this.quietBlocks + 1 : 0;
    // Speech first heard where the answer had already gone quiet is as likely the tail as the user:
    // let up on it only when the answer speaks again. (Let up at once, the tail that set off the
    // VAD passed whole, its words paused the answer and could become a turn: kitchen, gain 1.)
    // Quiet before this block: the answer pausing for the speech itself, in the block it is first
    // heard, says nothing of what the speech is.
    if (hearing && !this.wasHearing) this.heardInQuiet = quietBefore > 0;
    this.wasHearing = hearing;
    if (!hearing || this.quietBlocks === 0) this.heardInQuiet = false;
    const tail = (!hearing || this.heardInQuiet) && this.quietBlocks >= TAIL_AFTER_BLOCKS;
    for (let k = 0; k < this.coarse.length; k++) {
      this.bound[k] = loudnessAll * this.refLevel[k]!;
      if (this.refSmooth[k]! <= SILENT * 1e-2) continue;
      const loudness = Math.min(MAX_LOUDNESS, Math.max(this.micSmooth[k]! / this.refSmooth[k]!, prior));
      this.coarse[k] = (tail ? Math.max(TAIL_SHARE, share) : share) * loudness * this.refLevel[k]!;
    }
  }

  /** A direct path was found at `delay` with `gain`: place the filter on it unless it already covers it. */
  private place(delay: number, gain: number): void {
    const span = this.filter.partitions * BLOCK;
    // The filter follows small moves of the direct sound itself and keeps what it learnt, unless it
    // has learnt little yet: then the found path is the better start.
    const covered = delay >= this.offset && delay < this.offset + span / 2;
    if (covered && (this.placed || this.filter.residualShare < CONVERGED_SHARE)) return;
    this.placed = true;
    this.offset = Math.max(0, delay - LEAD);
    this.filter.reset();
    this.filter.seed(delay - this.offset, gain);
    this.suppressor.reset();
  }

  /** Finds the delay at which the reference best matches the input: coarse on a decimated signal, then exact. */
  private estimatePath(): void {
    const len = this.mic.length;
    // Compared over the input since the answer began: before it the input is the user (or the room),
    // which only dilutes the match in an answer's first windows, when finding the path matters most.
    const a = Math.min(this.analysis, Math.max(MIN_ANALYSIS, Math.ceil(this.refHeard / DECIMATE) * DECIMATE));
    const micD = decimate(this.mic, len - a, a);
    const refD = decimate(this.ref, 0, len);
    const aD = micD.length;
    const maxD = Math.floor(this.maxDelay / DECIMATE);
    const micEnergy = energy(micD, 0, aD);
    if (micEnergy <= SILENT * aD) return;
    const { lag: best, ncc: bestNcc } = this.search.best(micD, micEnergy, refD, refD.length - aD, maxD, SILENT * aD);
    // Over a short span a voice can match the reference by chance: ask for a closer match there.
    const lock = a < this.analysis ? SHORT_LOCK_NCC : LOCK_NCC;
    if (best < 0 || bestNcc < lock * 0.8) return;
    // Refine at the full rate around the coarse peak.
    let fine = best * DECIMATE;
    let fineNcc = -Infinity;
    for (let d = Math.max(0, best * DECIMATE - DECIMATE); d <= Math.min(this.maxDelay, best * DECIMATE + DECIMATE); d++) {
      const { mr, rr, mm } = this.fit(d, a);
      const ncc = rr > 0 && mm > 0 ? mr / Math.sqrt(rr * mm) : 0;
      if (ncc > fineNcc) {
        fineNcc = ncc;
        fine = d;
      }
    }
    if (fineNcc < lock) return;
    if (fine !== this.delay) {
      // A new path: start the gain from the least-squares fit over the analysis span. A direct sound
      // louder than any room makes it is the user's voice matching by chance, not a path.
      const { mr, rr } = this.fit(fine, a);
      const gain = rr > 0 ? Math.max(0, mr / rr) : 0;
      if (gain * gain > MAX_LOUDNESS) return;
      this.delay = fine;
      this.gain = gain;
      this.place(fine, this.gain);
    }
  }

  /** Cross and self energies of the last `n` input samples and the reference delayed by `d`. */
  private fit(d: number, n: number): { mr: number; rr: number; mm: number } {
    const len = this.mic.length;
    let mr = 0;
    let rr = 0;
    let mm = 0;
    for (let i = len - n; i < len; i++) {
      const r = this.ref[i - d]!;
      const m = this.mic[i]!;
      mr += m * r;
      rr += r * r;
      mm += m * m;
    }
    return { mr, rr, mm };
  }

}

function shiftIn(buf: Float32Array, x: Float32Array): void {
  buf.copyWithin(0, x.length);
  buf.set(x, buf.length - x.length);
}

function energy(x: ArrayLike<number>, from: number, n: number): number {
  let e = 0;
  for (let i = from; i < from + n; i++) e += x[i]! * x[i]!;
  return e;
}

/** Box-filtered and decimated by DECIMATE: enough to find the correlation peak cheaply. */
function decimate(x: Float32Array, from: number, n: number): Float32Array {
  const out = new Float32Array(Math.floor(n / DECIMATE));
  for (let k = 0; k < out.length; k++) {
    let s = 0;
    for (let j = 0; j < DECIMATE; j++) s += x[from + k * DECIMATE + j]!;
    out[k] = s / DECIMATE;
  }
  return out;
}
