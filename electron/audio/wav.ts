/**
 * WAV reading and writing. Reading accepts what common tools write (PCM
 * 8/16/24/32-bit, float 32/64-bit, WAVE_FORMAT_EXTENSIBLE); everything else
 * fails with a one-line UserError that names the file and says what to do.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors';

export interface DecodedAudio {
  sampleRate: number;
  channels: number;
  /** Sample encoding in the file ('f64' only for 64-bit float files). */
  format: 'u8' | 's16' | 's24' | 's32' | 'f32' | 'f64';
  durationSec: number;
  /** One array per channel, samples in [-1, 1]. */
  channelData: Float32Array[];
}

const FIX = 'give a PCM WAV file (16-bit or 32-bit float, 8-48 kHz)';
const CONVERT = 'convert it with `sox in.wav -b 16 out.wav`';

const MIN_RATE = 8000;
const MAX_RATE = 192000;

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

/** Names for codes people actually meet, so the error says what the file is. */
const FORMAT_NAMES: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0006: 'A-law',
  0x0007: 'mu-law',
  0x0011: 'IMA ADPCM',
  0x0031: 'GSM 6.10',
  0x0050: 'MPEG',
  0x0055: 'MP3',
  0x00ff: 'AAC',
  0x1610: 'AAC',
  0xf1ac: 'FLAC',
};

/** Bytes 2..15 of every KSDATAFORMAT_SUBTYPE GUID derived from a format code. */
const SUBFORMAT_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

function fail(label: string, what: string, code: string): never {
  throw new UserError(`${label} ${what}`, code);
}

function formatCodeText(code: number): string {
  const hex = `0x${code.toString(16).padStart(4, '0')}`;
  const name = FORMAT_NAMES[code];
  return name ? `${name}, format code ${hex}` : `format code ${hex}`;
}

interface Fmt {
  code: number; // after resolving EXTENSIBLE
  channels: number;
  sampleRate: number;
  bits: number;
}

function parseFmt(dv: DataView, size: number, label: string): Fmt {
  if (size < 16) fail(label, `has a broken fmt chunk (${size} bytes, need 16): ${FIX}`, 'wav-bad-fmt');
  let code = dv.getUint16(0, true);
  const channels = dv.getUint16(2, true);
  const sampleRate = dv.getUint32(4, true);
  const bits = dv.getUint16(14, true);
  if (code === FORMAT_EXTENSIBLE) {
    if (size < 40) {
      fail(label, `has a broken WAVE_FORMAT_EXTENSIBLE fmt chunk (${size} bytes, need 40): ${FIX}`, 'wav-bad-fmt');
    }
    // The real encoding is the first two bytes of the SubFormat GUID.
    const sub = dv.getUint16(24, true);
    const standard = SUBFORMAT_TAIL.every((b, i) => dv.getUint8(26 + i) === b);
    if (!standard) {
      fail(label, `uses an unknown WAVE_FORMAT_EXTENSIBLE sub-format: ${CONVERT}`, 'wav-unsupported-format');
    }
    code = sub;
  }
  return { code, channels, sampleRate, bits };
}

/**
 * A WAV file's bytes, in memory or read from disk piece by piece: the header walk asks for a few
 * bytes at a time (at most 40), so it never needs the whole file.
 */
export interface WavBytes {
  readonly size: number;
  /** `length` bytes from `at` (the caller keeps at + length <= size). */
  view(at: number, length: number): DataView;
}

/** What the header says: where the samples are and how they are encoded. */
export interface WavLayout {
  sampleRate: number;
  channels: number;
  format: DecodedAudio['format'];
  /** Whole frames in the data chunk (a trailing partial frame is dropped). */
  frames: number;
  /** Byte offset of the first sample. */
  dataStart: number;
  /** Bytes per frame (all channels). */
  frameBytes: number;
}

/** Walks the chunks and checks the encoding; every problem is a one-line UserError naming `label`. */
export function parseWavLayout(src: WavBytes, label: string): WavLayout {
  const size = src.size;
  if (size === 0) fail(label, `is empty (0 bytes): ${FIX}`, 'wav-empty');
  const tag = (at: number) => {
    const v = src.view(at, 4);
    return String.fromCharCode(v.getUint8(0), v.getUint8(1), v.getUint8(2), v.getUint8(3));
  };

  if (size < 12 || tag(8) !== 'WAVE') {
    fail(label, `is not a WAV file (no RIFF/WAVE header): ${FIX}`, 'wav-not-wav');
  }
  const riff = tag(0);
  if (riff === 'RIFX') fail(label, `is a big-endian (RIFX) WAV file, which is not supported: ${CONVERT}`, 'wav-unsupported-format');
  if (riff === 'RF64') fail(label, `is an RF64 (over 4 GB) WAV file, which is not supported: ${FIX}`, 'wav-unsupported-format');
  if (riff !== 'RIFF') fail(label, `is not a WAV file (no RIFF/WAVE header): ${FIX}`, 'wav-not-wav');

  // Walk the chunks; the RIFF size field is ignored because writers often get it wrong.
  let fmt: Fmt | undefined;
  let dataStart = -1;
  let dataSize = 0;
  let off = 12;
  while (off + 8 <= size) {
    const id = tag(off);
    const len = src.view(off + 4, 4).getUint32(0, true);
    const body = off + 8;
    if (id === 'fmt ') {
      if (body + Math.min(len, 40) > size) {
        fail(label, `is truncated inside its fmt chunk: ${FIX}`, 'wav-truncated');
      }
      fmt = parseFmt(src.view(body, Math.min(len, 40)), len, label);
    } else if (id === 'data' && dataStart < 0) {
      dataStart = body;
      dataSize = len;
      if (body + len > size) {
        fail(
          label,
          `is truncated: expected ${len} bytes of audio, found ${size - body}; export or copy it again`,
          'wav-truncated',
        );
      }
    }
    // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
    off = body + len + (len & 1);
  }

  if (!fmt) fail(label, `has no fmt chunk, so its encoding is unknown: ${FIX}`, 'wav-no-fmt');
  if (dataStart < 0) fail(label, `has no data chunk (no audio): ${FIX}`, 'wav-no-data');

  const { code, channels, sampleRate, bits } = fmt;
  if (code !== FORMAT_PCM && code !== FORMAT_FLOAT) {
    fail(label, `uses an unsupported encoding (${formatCodeText(code)}): ${CONVERT}`, 'wav-unsupported-format');
  }
  if (channels === 0) fail(label, `declares zero channels: ${FIX}`, 'wav-no-channels');
  if (sampleRate < MIN_RATE || sampleRate > MAX_RATE) {
    fail(
      label,
      `has an unsupported sample rate of ${sampleRate} Hz (need 8000-192000 Hz): convert it with \`sox in.wav -r 16000 out.wav\``,
      'wav-bad-rate',
    );
  }

  let format: DecodedAudio['format'];
  if (code === FORMAT_PCM) {
    const byBits = { 8: 'u8', 16: 's16', 24: 's24', 32: 's32' } as const;
    const f = byBits[bits as keyof typeof byBits] as DecodedAudio['format'] | undefined;
    if (!f) fail(label, `has an unsupported bit depth of ${bits} bits for PCM (need 8, 16, 24 or 32): ${CONVERT}`, 'wav-bad-bits');
    format = f;
  } else {
    if (bits !== 32 && bits !== 64) {
      fail(label, `has an unsupported bit depth of ${bits} bits for float (need 32 or 64): ${CONVERT}`, 'wav-bad-bits');
    }
    format = bits === 32 ? 'f32' : 'f64';
  }

  // Frame size from the sample format, not blockAlign, which some writers fill in wrongly.
  const frameBytes = (bits / 8) * channels;
  const frames = Math.floor(dataSize / frameBytes); // a trailing partial frame is dropped
  if (frames === 0) fail(label, `contains no audio samples (empty data chunk): ${FIX}`, 'wav-no-samples');
  return { sampleRate, channels, format, frames, dataStart, frameBytes };
}

/**
 * Decodes `frames` whole frames from `dv` (which starts at a frame) into `out` (one array per
 * channel), starting at index `at` of each.
 */
export function decodeFrames(dv: DataView, layout: WavLayout, frames: number, out: Float32Array[], at = 0): void {
  const { format, frameBytes } = layout;
  const bytes = frameBytes / layout.channels;
  for (let c = 0; c < layout.channels; c++) {
    const o = out[c]!;
    let p = c * bytes;
    const end = at + frames;
    switch (format) {
      case 'u8':
        for (let i = at; i < end; i++, p += frameBytes) o[i] = (dv.getUint8(p) - 128) / 128;
        break;
      case 's16':
        for (let i = at; i < end; i++, p += frameBytes) o[i] = dv.getInt16(p, true) / 32768;
        break;
      case 's24':
        for (let i = at; i < end; i++, p += frameBytes) {
          // Little-endian 24-bit; shifting the top byte in as int8 gives the sign.
          const v = dv.getUint8(p) | (dv.getUint8(p + 1) << 8) | (dv.getInt8(p + 2) << 16);
          o[i] = v / 8388608;
        }
        break;
      case 's32':
        for (let i = at; i < end; i++, p += frameBytes) o[i] = dv.getInt32(p, true) / 2147483648;
        break;
      case 'f32':
      case 'f64':
        for (let i = at; i < end; i++, p += frameBytes) {
          const v = format === 'f32' ? dv.getFloat32(p, true) : dv.getFloat64(p, true);
          // Float files may overshoot full scale or hold NaN; keep the [-1, 1] promise.
          o[i] = v > 1 ? 1 : v < -1 ? -1 : v === v ? v : 0;
        }
        break;
    }
  }
}

/**
 * Decodes a WAV file held in memory. `label` names the file in errors
 * (usually its path). More than two channels are kept as they are; use
 * downmix() or toMono16k() from ./resample to get mono.
 */
export function parseWav(buf: Buffer | Uint8Array, label: string): DecodedAudio {
  const layout = parseWavLayout({ size: buf.byteLength, view: (at, length) => new DataView(buf.buffer, buf.byteOffset + at, length) }, label);
  const { sampleRate, channels, format, frames, dataStart, frameBytes } = layout;
  const channelData: Float32Array[] = [];
  for (let c = 0; c < channels; c++) channelData.push(new Float32Array(frames));
  decodeFrames(new DataView(buf.buffer, buf.byteOffset + dataStart, frames * frameBytes), layout, frames, channelData);
  return { sampleRate, channels, format, durationSec: frames / sampleRate, channelData };
}

/** A failure to open or read `file` as a UserError naming it, when it is one a user can fix. */
export function fileReadError(e: unknown, file: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new UserError(`${file} not found: check the path (${FIX})`, 'wav-not-found');
  if (code === 'EISDIR') return new UserError(`${file} is a folder, not a file: ${FIX}`, 'wav-not-found');
  if (code === 'EACCES' || code === 'EPERM') return new UserError(`${file} cannot be read (permission denied): check its permissions`, 'wav-unreadable');
  return e;
}

/** Reads and decodes a WAV file; problems with the file become UserErrors naming it. */
export async function readWavFile(file: string): Promise<DecodedAudio> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (e) {
    throw fileReadError(e, file);
  }
  return parseWav(buf, file);
}

/** The 44-byte header of a mono 16-bit PCM WAV holding `dataBytes` bytes of samples. */
export function wavHeader(dataBytes: number, sampleRate: number): Buffer {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0 || sampleRate > 0xffffffff / 2) {
    throw new RangeError(`encodeWav: bad sample rate ${sampleRate}`);
  }
  const out = Buffer.alloc(44);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28); // byte rate
  out.writeUInt16LE(2, 32); // block align
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  return out;
}

/** Writes `samples` as 16-bit little-endian PCM into `out` from byte `at` (clamped to [-1, 1], rounded). */
export function encodeS16(samples: Float32Array, out: Buffer, at: number): void {
  for (let i = 0; i < samples.length; i++) {
    // Scale by 32768 (as parseWav divides) so decoded s16 audio round-trips exactly.
    const s = samples[i]!;
    let v = Math.round(s * 32768);
    if (!(v >= -32768)) v = s === s ? -32768 : 0; // NaN -> 0
    else if (v > 32767) v = 32767;
    out.writeInt16LE(v, at + i * 2);
  }
}

/** Encodes mono float samples as a 16-bit PCM WAV (clamped to [-1, 1], rounded). */
export function encodeWav(samples: Float32Array, sampleRate: number): Buffer {
  const head = wavHeader(samples.length * 2, sampleRate);
  const out = Buffer.alloc(44 + samples.length * 2);
  head.copy(out);
  encodeS16(samples, out, 44);
  return out;
}

/** A name beside `file` to write to before renaming into place, so readers never see half a file. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
}

/**
 * Writes mono float samples as a 16-bit WAV. The file is written under a
 * temporary name and renamed into place, so readers never see half a file.
 */
export async function writeWavFile(file: string, samples: Float32Array, sampleRate: number): Promise<void> {
  const data = encodeWav(samples, sampleRate);
  const tmp = tempPathFor(file);
  try {
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw e;
  }
}
