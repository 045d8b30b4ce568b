/**
 * WAV files read and written piece by piece, so a recording of hours costs a few hundred KB of
 * memory, not its length: `talk` plays its input through these and writes its outputs with them.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { UserError } from '../errors';
import { downmix, StreamingResampler } from './resample';
import { decodeFrames, encodeS16, fileReadError, parseWavLayout, tempPathFor, wavHeader, type WavBytes, type WavLayout } from './wav';

/** How many bytes a header read pulls in at once (chunk headers are looked at 4-8 bytes at a time). */
const HEADER_BLOCK = 64 * 1024;
/** Input frames decoded per read: a second at 16 kHz... */
export const READ_FRAMES = 16_384;
/** ...or fewer, so that a read stays within 1 MB even with thousands of channels. */
const READ_BYTES = 1 << 20;

/** Reads `length` bytes at `at`, or fewer where the file ends; an I/O failure is a UserError naming the file. */
function readAt(fd: number, file: string, buf: Buffer, length: number, at: number): number {
  let got = 0;
  try {
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, at + got);
      if (n === 0) break;
      got += n;
    }
  } catch (e) {
    throw new UserError(`${file} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): copy it somewhere readable and try again`, 'wav-unreadable');
  }
  return got;
}

/** The header walk's view of a file on disk: a small window of it, moved as the walk goes. */
class FileBytes implements WavBytes {
  private readonly buf = Buffer.alloc(HEADER_BLOCK);
  private start = 0;
  private length = 0;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    readonly size: number,
  ) {}

  view(at: number, length: number): DataView {
    if (at < this.start || at + length > this.start + this.length) {
      this.start = at;
      this.length = readAt(this.fd, this.file, this.buf, Math.min(HEADER_BLOCK, this.size - at), at);
      // The file shrank since it was measured: what is missing reads as a truncated file would.
      if (this.length < length) throw new UserError(`${this.file} is truncated (it changed while being read); export or copy it again`, 'wav-truncated');
    }
    return new DataView(this.buf.buffer, this.buf.byteOffset + (at - this.start), length);
  }
}

/** A WAV file open for reading in order, a block of frames at a time; only the header is read on open. */
export class WavReader {
  readonly layout: WavLayout;
  private next = 0; // the next frame to read
  private readonly bytes: Buffer;
  private readonly blockFrames: number;
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly file: string,
    size: number,
  ) {
    try {
      this.layout = parseWavLayout(new FileBytes(fd, file, size), file);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    this.blockFrames = Math.max(1, Math.min(READ_FRAMES, Math.floor(READ_BYTES / this.layout.frameBytes)));
    this.bytes = Buffer.alloc(this.blockFrames * this.layout.frameBytes);
  }

  /** Opens and checks `file`; every problem a user can fix is a one-line UserError naming it. */
  static open(file: string): WavReader {
    let fd: number;
    try {
      // Looked at before opening: opening a pipe waits for a writer, maybe forever.
      const kind = statSync(file);
      if (kind.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' });
      if (!kind.isFile()) throw new UserError(`${file} is not a file (a device, pipe or socket): give a WAV file`, 'wav-not-found');
      fd = openSync(file, 'r');
    } catch (e) {
      throw fileReadError(e, file);
    }
    return new WavReader(fd, file, fstatSync(fd).size);
  }

  get durationSec(): number {
    return this.layout.frames / this.layout.sampleRate;
  }

  /** The next frames, at most READ_FRAMES, one array per channel; null once all are read. */
  read(): Float32Array[] | null {
    const { frames, frameBytes, dataStart, channels } = this.layout;
    const count = Math.min(this.blockFrames, frames - this.next);
    if (count <= 0 || this.closed) return null;
    const got = readAt(this.fd, this.file, this.bytes, count * frameBytes, dataStart + this.next * frameBytes);
    // A file cut short while it plays ends where it now ends.
    const whole = Math.floor(got / frameBytes);
    if (whole === 0) return null;
    this.next += whole;
    const out = Array.from({ length: channels }, () => new Float32Array(whole));
    decodeFrames(new DataView(this.bytes.buffer, this.bytes.byteOffset, whole * frameBytes), this.layout, whole, out);
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/**
 * A WAV file as fixed-length frames of 16 kHz mono, the way a microphone delivers them: the same
 * samples toMono16k() gives for the whole file, cut into frames (the last padded with silence).
 */
export class Mono16kFrames {
  private readonly resampler: StreamingResampler;
  private pending = new Float32Array(0);
  private at = 0; // first unread sample of `pending`
  private ended = false;
  /** 16 kHz samples handed out so far, padding not counted: at the end, the input's length at 16 kHz. */
  samples = 0;

  constructor(
    private readonly reader: WavReader,
    private readonly frameLength: number,
  ) {
    this.resampler = new StreamingResampler(reader.layout.sampleRate, 16000);
  }

  /** The next frame (a new array the caller may keep), or null after the last. */
  next(): Float32Array | null {
    while (this.pending.length - this.at < this.frameLength && !this.ended) this.refill();
    const left = this.pending.length - this.at;
    if (left <= 0) return null;
    const n = Math.min(left, this.frameLength);
    const frame = new Float32Array(this.frameLength);
    frame.set(this.pending.subarray(this.at, this.at + n));
    this.at += n;
    this.samples += n;
    return frame;
  }

  /** Decodes one more block: what is left of `pending` plus the block's samples at 16 kHz. */
  private refill(): void {
    const block = this.reader.read();
    let more: Float32Array;
    if (block) more = this.resampler.push(downmix(block));
    else {
      more = this.resampler.flush();
      this.ended = true;
      this.reader.close();
    }
    const rest = this.pending.subarray(this.at);
    const joined = new Float32Array(rest.length + more.length);
    joined.set(rest);
    joined.set(more, rest.length);
    this.pending = joined;
    this.at = 0;
  }
}

/** Bytes of samples buffered before each write. */
const WRITE_BLOCK = 64 * 1024;
/** The most a WAV's 32-bit data size can count. */
const MAX_DATA_BYTES = 0xffffffff - 36;

/**
 * A mono 16-bit WAV written as it comes, under a temporary name renamed into place by close():
 * readers never see half a file, and a failed run leaves none (abort()).
 */
export class WavWriter {
  private readonly fd: number;
  private readonly tmp: string;
  private readonly buf = Buffer.alloc(WRITE_BLOCK);
  private used = 0;
  /** Samples written so far. */
  length = 0;
  private done = false;

  /** `expected`: how many samples it will hold, to refuse now a file too long for a WAV. */
  constructor(
    readonly file: string,
    readonly sampleRate: number,
    expected = 0,
  ) {
    WavWriter.check(file, expected);
    this.tmp = tempPathFor(file);
    this.fd = openSync(this.tmp, 'wx');
    // Sizes are filled in by close(), once known.
    this.put(wavHeader(0, sampleRate));
  }

  /** Refuses `samples` samples for `file` when they would not fit in a WAV file (4 GB). */
  static check(file: string, samples: number): void {
    if (samples * 2 > MAX_DATA_BYTES) throw new UserError(`${file} would pass the 4 GB a WAV file can hold; use a shorter input`, 'wav-too-long');
  }

  write(samples: Float32Array): void {
    WavWriter.check(this.file, this.length + samples.length);
    for (let i = 0; i < samples.length; ) {
      const n = Math.min(samples.length - i, (WRITE_BLOCK - this.used) >> 1);
      encodeS16(samples.subarray(i, i + n), this.buf, this.used);
      this.used += n * 2;
      i += n;
      if (this.used + 2 > WRITE_BLOCK) this.flush();
    }
    this.length += samples.length;
  }

  /**
   * Ends the file at exactly `length` samples when given (cut, or padded with silence), writes the
   * sizes into the header and renames it into place.
   */
  close(length = this.length): void {
    try {
      const silence = new Float32Array(Math.min(Math.max(0, length - this.length), WRITE_BLOCK));
      while (this.length < length) this.write(silence.subarray(0, Math.min(silence.length, length - this.length)));
      this.flush();
      if (length < this.length) ftruncateSync(this.fd, 44 + length * 2);
      const head = wavHeader(length * 2, this.sampleRate);
      writeSync(this.fd, head, 0, head.length, 0);
      this.done = true;
      closeSync(this.fd);
      renameSync(this.tmp, this.file);
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  /** Drops the half-written file (a failed run). */
  abort(): void {
    if (!this.done) closeSync(this.fd);
    this.done = true;
    rmSync(this.tmp, { force: true });
  }

  private put(data: Buffer): void {
    let at = 0;
    while (at < data.length) at += writeSync(this.fd, data, at, data.length - at);
  }

  private flush(): void {
    if (this.used === 0) return;
    this.put(this.buf.subarray(0, this.used));
    this.used = 0;
  }
}
