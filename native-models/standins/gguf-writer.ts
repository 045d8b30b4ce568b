/**
 * Writes GGUF v3 files for the language model stand-ins: metadata (typed key/values, or entries
 * copied byte for byte from another GGUF) and tensors whose quantized blocks are written directly,
 * one row block at a time, so a 2.5 GB file needs no 2.5 GB buffer. Each block's scales are small
 * finite half floats and its quants random, so the model computes finite activations at the real
 * cost; the values mean nothing.
 *
 * Formats as in ggml (ggml-common.h): block sizes and byte counts per ggml type below.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { SeededRandom } from './random';

/** ggml_type ids and their blocks: elements per block and bytes per block. */
export const GGML = {
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2 },
  Q8_0: { id: 8, block: 32, bytes: 34 },
  Q4_K: { id: 12, block: 256, bytes: 144 },
  Q5_K: { id: 13, block: 256, bytes: 176 },
  Q6_K: { id: 14, block: 256, bytes: 210 },
} as const;
export type GgmlType = keyof typeof GGML;

/** GGUF value types. */
const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10 } as const;

export type GgufValue = { u32: number } | { i32: number } | { f32: number } | { bool: boolean } | { str: string } | { strings: string[] } | { i32s: number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: dims[0] is the row length (the input width of a weight). */
  dims: number[];
  type: GgmlType;
}

const ALIGNMENT = 32;

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;
  raw(b: Uint8Array): void {
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.chunks.push(buf);
    this.length += buf.length;
  }
  private num(size: number, write: (b: Buffer) => void): void {
    const b = Buffer.alloc(size);
    write(b);
    this.chunks.push(b);
    this.length += size;
  }
  u32(n: number): void {
    this.num(4, (b) => b.writeUInt32LE(n));
  }
  i32(n: number): void {
    this.num(4, (b) => b.writeInt32LE(n));
  }
  u64(n: number): void {
    this.num(8, (b) => b.writeBigUInt64LE(BigInt(n)));
  }
  f32(n: number): void {
    this.num(4, (b) => b.writeFloatLE(n));
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.raw(b);
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(w: ByteWriter, v: GgufValue): void {
  if ('u32' in v) (w.u32(T.U32), w.u32(v.u32));
  else if ('i32' in v) (w.u32(T.I32), w.i32(v.i32));
  else if ('f32' in v) (w.u32(T.F32), w.f32(v.f32));
  else if ('bool' in v) (w.u32(T.BOOL), w.raw(Uint8Array.of(v.bool ? 1 : 0)));
  else if ('str' in v) (w.u32(T.STRING), w.str(v.str));
  else if ('strings' in v) {
    w.u32(T.ARRAY);
    w.u32(T.STRING);
    w.u64(v.strings.length);
    for (const s of v.strings) w.str(s);
  } else {
    w.u32(T.ARRAY);
    w.u32(T.I32);
    w.u64(v.i32s.length);
    for (const n of v.i32s) w.i32(n);
  }
}

export function tensorBytes(t: GgufTensor): number {
  const g = GGML[t.type];
  const n = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims[0]! % g.block !== 0) throw new Error(`${t.name}: a row of ${t.dims[0]} is not a whole number of ${t.type} blocks`);
  return (n / g.block) * g.bytes;
}

/** A half float's bits for a positive value, clamped to the normal range (2^-14 up). */
function halfBits(value: number): number {
  const x = Math.min(Math.max(value, 2 ** -14), 60000);
  const e = Math.floor(Math.log2(x));
  const m = Math.round((x / 2 ** e - 1) * 1024);
  return ((e + 15) << 10) | (m & 0x3ff);
}

/**
 * `count` random blocks of `type`: scale fields are set to `scale` (a finite half float), quants
 * and sub-block scales are random. Norm-like F32 tensors get ones (`fill`).
 */
function randomBlocks(rng: SeededRandom, type: GgmlType, count: number, scale: number, fill?: number): Uint8Array {
  const g = GGML[type];
  if (type === 'F32') {
    const f = fill === undefined ? rng.normal(count, scale) : new Float32Array(count).fill(fill);
    return new Uint8Array(f.buffer);
  }
  const out = rng.bytes(count * g.bytes);
  const view = new DataView(out.buffer);
  const h = halfBits(scale);
  for (let b = 0; b < count; b++) {
    const at = b * g.bytes;
    if (type === 'F16') view.setUint16(at, halfBits(scale) ^ (out[at]! & 1 ? 0x8000 : 0), true);
    else if (type === 'Q8_0') view.setUint16(at, h, true);
    else if (type === 'Q4_K' || type === 'Q5_K') {
      view.setUint16(at, h, true); // d
      view.setUint16(at + 2, h, true); // dmin
    } else if (type === 'Q6_K') view.setUint16(at + 208, h, true); // d comes last
  }
  return out;
}

/**
 * Writes `file`: header, metadata (`copied` entries are raw key/value bytes from another GGUF,
 * written as they are), tensor infos, then each tensor's data from `rng`. Returns the file's size.
 */
export function writeGguf(
  file: string,
  metadata: [string, GgufValue][],
  copied: { count: number; bytes: Uint8Array },
  tensors: (GgufTensor & { scale: number; fill?: number })[],
  rng: SeededRandom,
): number {
  const head = new ByteWriter();
  head.raw(Buffer.from('GGUF', 'ascii'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.length + copied.count);
  for (const [key, value] of metadata) (head.str(key), writeValue(head, value));
  head.raw(copied.bytes);
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(GGML[t.type].id);
    head.u64(offset);
    offsets.push(offset);
    offset += Math.ceil(tensorBytes(t) / ALIGNMENT) * ALIGNMENT;
  }
  const pad = (n: number) => new Uint8Array((ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT);
  head.raw(pad(head.length));
  const fd = openSync(file, 'w');
  let size = 0;
  const put = (b: Uint8Array) => {
    for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
    size += b.length;
  };
  try {
    put(head.bytes());
    for (const t of tensors) {
      const g = GGML[t.type];
      const blocks = tensorBytes(t) / g.bytes;
      // About 4 MB at a time.
      const step = Math.max(1, Math.floor((4 << 20) / g.bytes));
      for (let b = 0; b < blocks; b += step) put(randomBlocks(rng, t.type, Math.min(step, blocks - b), t.scale, t.fill));
      put(pad(tensorBytes(t)));
    }
  } finally {
    closeSync(fd);
  }
  return size;
}
