import { RealFft } from '../../audio/fft';
import { toMono16k } from '../../audio/resample';
import { readWavFile } from '../../audio/wav';
import { VAD_SAMPLE_RATE, VAD_WINDOW } from '../../engines/vad-window';
import { UserError } from '../../errors';
import type { AudioOutput } from '../speak/output';

/** What `talk --echo`/`--room` and the room benchmark mix into each microphone frame. */
export interface EchoPath {
  /** Adds the echo into `frame` (16 kHz), which starts at `startMs` on the input's timeline. */
  mixInto(frame: Float32Array, startMs: number): void;
}

/**
 * Laptop speakers into the laptop microphone: mixes what the assistant played back into the input,
 * `gain` times as loud and `delayMs` later. Used by `talk --echo` and tests of self-interruption.
 */
export class EchoSimulator implements EchoPath {
  constructor(
    private readonly output: AudioOutput,
    private readonly gain: number,
    private readonly delayMs: number,
  ) {}

  mixInto(frame: Float32Array, startMs: number): void {
    const played = this.output.audible(startMs - this.delayMs, frame.length);
    if (!played) return;
    for (let i = 0; i < frame.length; i++) frame[i]! += this.gain * played[i]!;
  }
}

/**
 * Streaming convolution with a long impulse response, block by block with no added latency:
 * uniformly partitioned overlap-save. The response is cut into `blockSize` pieces whose spectra
 * (FFT of twice the block) are kept; each input block's spectrum joins a delay line, and one output
 * block is the inverse FFT of the sum of delay line × pieces, of which the second half is kept.
 * A 0.8 s response (12,800 taps) in 512-sample blocks costs two 1024-point FFTs and 25 spectrum
 * products per block, where direct convolution would cost 12,800 multiplications per sample.
 */
export class BlockConvolver {
  readonly blockSize: number;
  /** Pieces of the impulse response. */
  readonly parts: number;
  private readonly fft: RealFft;
  private readonly hRe: Float64Array[] = [];
  private readonly hIm: Float64Array[] = [];
  /** Spectra of the last `parts` input frames ([previous block, block]); the newest at `head`. */
  private readonly xRe: Float64Array[] = [];
  private readonly xIm: Float64Array[] = [];
  private head = 0;
  private readonly time: Float64Array;
  private readonly accRe: Float64Array;
  private readonly accIm: Float64Array;
  private readonly y: Float64Array;
  /** Silent input blocks in a row: once the whole delay line is silent, a block costs nothing. */
  private quiet = Infinity;

  constructor(ir: ArrayLike<number>, blockSize: number) {
    if (ir.length === 0) throw new RangeError('BlockConvolver: empty impulse response');
    this.blockSize = blockSize;
    this.fft = new RealFft(2 * blockSize);
    this.parts = Math.ceil(ir.length / blockSize);
    const bins = this.fft.bins;
    this.time = new Float64Array(2 * blockSize);
    for (let p = 0; p < this.parts; p++) {
      this.time.fill(0);
      for (let i = 0; i < blockSize && p * blockSize + i < ir.length; i++) this.time[i] = ir[p * blockSize + i]!;
      this.hRe.push(new Float64Array(bins));
      this.hIm.push(new Float64Array(bins));
      this.fft.forward(this.time, this.hRe[p]!, this.hIm[p]!);
      this.xRe.push(new Float64Array(bins));
      this.xIm.push(new Float64Array(bins));
    }
    this.time.fill(0);
    this.accRe = new Float64Array(bins);
    this.accIm = new Float64Array(bins);
    this.y = new Float64Array(2 * blockSize);
  }

  /**
   * Takes the next `blockSize` input samples (null: silence) and adds `gain` times the matching
   * `blockSize` output samples into `out` from `offset`. Blocks must come in order, back to back.
   */
  process(input: ArrayLike<number> | null, out: Float32Array, offset = 0, gain = 1): void {
    const B = this.blockSize;
    let silent = true;
    if (input) {
      if (input.length !== B) throw new RangeError(`BlockConvolver: a block is ${B} samples, got ${input.length}`);
      for (let i = 0; i < B && silent; i++) silent = input[i] === 0;
    }
    this.quiet = silent ? this.quiet + 1 : 0;
    // The delay line holds the last `parts` frames, each two blocks: all silent, the output is too.
    if (this.quiet > this.parts + 1) return;
    const t = this.time;
    t.copyWithin(0, B);
    for (let i = 0; i < B; i++) t[B + i] = silent ? 0 : input![i]!;
    this.head = (this.head + this.parts - 1) % this.parts;
    this.fft.forward(t, this.xRe[this.head]!, this.xIm[this.head]!);
    const { accRe, accIm } = this;
    accRe.fill(0);
    accIm.fill(0);
    for (let p = 0; p < this.parts; p++) {
      const slot = (this.head + p) % this.parts;
      const xr = this.xRe[slot]!;
      const xi = this.xIm[slot]!;
      const hr = this.hRe[p]!;
      const hi = this.hIm[p]!;
      for (let k = 0; k < accRe.length; k++) {
        accRe[k]! += xr[k]! * hr[k]! - xi[k]! * hi[k]!;
        accIm[k]! += xr[k]! * hi[k]! + xi[k]! * hr[k]!;
      }
    }
    this.fft.inverse(accRe, accIm, this.y);
    for (let i = 0; i < B; i++) out[offset + i]! += gain * this.y[B + i]!;
  }
}

/**
 * Speakers in a room: what the assistant played, convolved with the room's impulse response (16 kHz,
 * direct path and reverberation), `gain` times as loud and `delayMs` later, mixed into the input.
 * Used by `talk --room` and `bench --rooms`. Frames must come in order, back to back, each a whole
 * number of `blockSize` samples (the microphone's 32 ms frames are one block each).
 */
export class RoomSimulator implements EchoPath {
  private readonly convolver: BlockConvolver;

  constructor(
    private readonly output: AudioOutput,
    ir: ArrayLike<number>,
    private readonly gain = 1,
    private readonly delayMs = 0,
    blockSize = VAD_WINDOW,
  ) {
    this.convolver = new BlockConvolver(ir, blockSize);
  }

  mixInto(frame: Float32Array, startMs: number): void {
    const B = this.convolver.blockSize;
    if (frame.length % B !== 0) throw new RangeError(`RoomSimulator: frames must be a multiple of ${B} samples, got ${frame.length}`);
    // Nothing audible still feeds the convolver silence: the room's tail rings on after playback.
    const played = this.output.audible(startMs - this.delayMs, frame.length);
    for (let at = 0; at < frame.length; at += B) this.convolver.process(played ? played.subarray(at, at + B) : null, frame, at, this.gain);
  }
}

/** The longest impulse response `--room` and `--rooms` take. */
export const MAX_IR_SEC = 2;

/**
 * Reads a room's impulse response for `flag` (`--room`, `--rooms`): any WAV the audio path reads,
 * as 16 kHz mono. Every problem is one UserError that names the flag and the file.
 */
export async function readImpulseResponse(file: string, flag: string): Promise<Float32Array> {
  let ir: Float32Array;
  try {
    const audio = await readWavFile(file);
    if (audio.durationSec > MAX_IR_SEC) {
      throw new UserError(`${file} is ${audio.durationSec.toFixed(2)} s long; an impulse response may last at most ${MAX_IR_SEC} s (trim its tail)`, 'room-invalid');
    }
    ir = toMono16k(audio);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${flag}: ${e.message}`, e.code);
    throw e;
  }
  if (ir.length === 0 || !ir.some((x) => x !== 0)) throw new UserError(`${flag}: ${file} is silent: an impulse response needs at least its direct path (a non-zero sample)`, 'room-invalid');
  return ir;
}

/** An impulse response's length in ms at 16 kHz. */
export const irMs = (ir: ArrayLike<number>) => Math.round((ir.length / VAD_SAMPLE_RATE) * 1000);

/** `--echo 0.5:30` -> gain 0.5, delay 30 ms. */
export function parseEchoSpec(spec: string): { gain: number; delayMs: number } | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(spec);
  if (!m) return null;
  const gain = Number(m[1]);
  const delayMs = Number(m[2]);
  return gain <= 4 && delayMs <= 2000 ? { gain, delayMs } : null;
}
