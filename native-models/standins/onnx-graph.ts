/**
 * Builds real-size ONNX graphs for the stand-ins: a model definition adds parameters (each drawn
 * independently from a seeded generator, so no two layers share bytes and the exporter's
 * de-duplication cannot make the stand-in faster than the real model) and nodes, then writes one
 * ModelProto straight to a file. Parameters are written as raw_data chunks without first joining
 * them into one buffer, so a 650 MB encoder needs no 650 MB copy.
 *
 * Field numbers are those of onnx/onnx.proto. IR version 8, default opset 17 (LayerNormalization).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { SeededRandom } from './random';

/** TensorProto.DataType. */
export const DT = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;

/** A protobuf message as a tree, sized before it is written. */
type Part = Uint8Array | Msg;
class Msg {
  private size = -1;
  constructor(readonly parts: Part[]) {}
  byteLength(): number {
    if (this.size < 0) this.size = this.parts.reduce((n, p) => n + (p instanceof Msg ? p.byteLength() : p.length), 0);
    return this.size;
  }
}

/** A protobuf varint's bytes (also the tests' small ONNX builder's). */
export function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number | bigint) => Uint8Array.from([...tag(field, 0), ...varint(n)]);
/** A length-delimited field whose payload is bytes or a sub-message. */
const len = (field: number, body: Part): Msg => {
  const n = body instanceof Msg ? body.byteLength() : body.length;
  return new Msg([Uint8Array.from([...tag(field, 2), ...varint(n)]), body]);
};
const str = (field: number, s: string) => len(field, new TextEncoder().encode(s));
const msg = (field: number, parts: Part[]) => len(field, new Msg(parts));
function f32(field: number, f: number): Uint8Array {
  const b = new Uint8Array(5 + 4);
  const head = tag(field, 5);
  b.set(head);
  new DataView(b.buffer).setFloat32(head.length, f, true);
  return b.subarray(0, head.length + 4);
}

export type Attr = number | number[] | string | { f: number } | { floats: number[] } | { tensor: TensorData };

export interface TensorData {
  dims: number[];
  type: number;
  data: Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array;
}

function tensorProto(field: number, name: string, t: TensorData): Msg {
  const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return msg(field, [...t.dims.map((d) => int(1, d)), int(2, t.type), str(8, name), len(9, raw)]);
}

function attribute(name: string, a: Attr): Msg {
  // AttributeProto.type: FLOAT 1, INT 2, STRING 3, TENSOR 4, FLOATS 6, INTS 7.
  if (typeof a === 'number') return msg(5, [str(1, name), int(3, a), int(20, 2)]);
  if (typeof a === 'string') return msg(5, [str(1, name), str(4, a), int(20, 3)]);
  if (Array.isArray(a)) return msg(5, [str(1, name), ...a.map((n) => int(8, n)), int(20, 7)]);
  if ('f' in a) return msg(5, [str(1, name), f32(2, a.f), int(20, 1)]);
  if ('floats' in a) return msg(5, [str(1, name), ...a.floats.map((f) => f32(7, f)), int(20, 6)]);
  return msg(5, [str(1, name), tensorProto(5, '', a.tensor), int(20, 4)]);
}

/** A graph input or output; a string dimension is a named dynamic one. */
export interface ValueInfo {
  name: string;
  type: number;
  shape: (number | string)[];
}

function valueInfo(field: number, v: ValueInfo): Msg {
  const dims = v.shape.map((d) => msg(1, [typeof d === 'number' ? int(1, d) : str(2, d)]));
  return msg(field, [str(1, v.name), msg(2, [msg(1, [int(1, v.type), msg(2, dims)])])]);
}

/**
 * A graph under construction. `op` returns its first output's name, so a model reads as a chain of
 * calls; `param` adds an independently drawn initializer and counts it.
 */
export class GraphBuilder {
  readonly rng: SeededRandom;
  private readonly nodes: Msg[] = [];
  private readonly inits: Msg[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];
  private next = 0;
  /** Parameters added so far (elements, whatever their type). */
  parameters = 0;
  /** Bytes of initializer data so far. */
  dataBytes = 0;

  constructor(seed: number, readonly opset = 17) {
    this.rng = new SeededRandom(seed);
  }

  /** A fresh value name with a readable prefix. */
  name(prefix = 'v'): string {
    return `${prefix}_${this.next++}`;
  }

  input(name: string, type: number, shape: (number | string)[]): string {
    this.inputs.push({ name, type, shape });
    return name;
  }

  output(name: string, type: number, shape: (number | string)[]): void {
    this.outputs.push({ name, type, shape });
  }

  /** A node; `outputs` is how many it has (their names come back) or the names to give them. */
  node(op: string, inputs: string[], attrs: Record<string, Attr> = {}, outputs: number | string[] = 1, domain = ''): string[] {
    const outs = typeof outputs === 'number' ? Array.from({ length: outputs }, () => this.name(op.toLowerCase())) : outputs;
    this.nodes.push(
      msg(1, [
        ...inputs.map((i) => str(1, i)),
        ...outs.map((o) => str(2, o)),
        str(3, `n${this.nodes.length}`),
        str(4, op),
        ...(domain ? [str(7, domain)] : []),
        ...Object.entries(attrs).map(([k, v]) => attribute(k, v)),
      ]),
    );
    return outs;
  }

  /** One-output node. */
  op(op: string, inputs: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    return this.node(op, inputs, attrs, out ? [out] : 1)[0]!;
  }

  /** An initializer with the given data (counted as parameters when `counted`). */
  tensor(prefix: string, t: TensorData, counted = true): string {
    const name = this.name(prefix);
    this.inits.push(tensorProto(5, name, t));
    if (counted) this.parameters += t.data.length;
    this.dataBytes += t.data.byteLength;
    return name;
  }

  /** A float32 parameter drawn from N(0, std²) (std defaults to 1/sqrt(fan-in), the last dimension but one). */
  param(prefix: string, dims: number[], std?: number): string {
    const n = dims.reduce((a, b) => a * b, 1);
    const fanIn = dims.length > 1 ? n / dims[dims.length - 1]! : dims[0]!;
    return this.tensor(prefix, { dims, type: DT.FLOAT, data: this.rng.normal(n, std ?? 1 / Math.sqrt(Math.max(1, fanIn))) });
  }

  /** A float32 parameter filled with one value (a norm's scale, say): still its own bytes. */
  filled(prefix: string, dims: number[], value: number): string {
    const n = dims.reduce((a, b) => a * b, 1);
    return this.tensor(prefix, { dims, type: DT.FLOAT, data: new Float32Array(n).fill(value) });
  }

  /** A small constant that is not a parameter (shapes, axes, scalars). */
  ints(values: number[], dims: number[] = [values.length]): string {
    return this.tensor('c', { dims, type: DT.INT64, data: BigInt64Array.from(values, (v) => BigInt(v)) }, false);
  }

  floats(values: number[], dims: number[] = [values.length]): string {
    return this.tensor('c', { dims, type: DT.FLOAT, data: Float32Array.from(values) }, false);
  }

  scalar(value: number): string {
    return this.floats([value], []);
  }

  /** Writes the ModelProto to `file`; returns its size in bytes. */
  write(file: string, metadata: Record<string, string> = {}, opsetImports: Record<string, number> = {}): number {
    const graph = msg(7, [
      ...this.nodes,
      str(2, 'standin'),
      ...this.inits,
      ...this.inputs.map((v) => valueInfo(11, v)),
      ...this.outputs.map((v) => valueInfo(12, v)),
    ]);
    const opsets = [msg(8, [str(1, ''), int(2, this.opset)]), ...Object.entries(opsetImports).map(([d, v]) => msg(8, [str(1, d), int(2, v)]))];
    const meta = Object.entries(metadata).map(([k, v]) => msg(14, [str(1, k), str(2, v)]));
    const model = new Msg([int(1, 8), str(2, 'standins'), graph, ...opsets, ...meta]);
    const fd = openSync(file, 'w');
    // Small parts (tags, names) are gathered into one buffer; large ones (parameters) go straight out.
    const buffer = new Uint8Array(1 << 20);
    let used = 0;
    const put = (b: Uint8Array) => {
      for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
    };
    const flush = () => {
      put(buffer.subarray(0, used));
      used = 0;
    };
    const emit = (p: Part): void => {
      if (p instanceof Msg) for (const q of p.parts) emit(q);
      else if (p.length > 4096) (flush(), put(p));
      else {
        if (used + p.length > buffer.length) flush();
        buffer.set(p, used);
        used += p.length;
      }
    };
    try {
      emit(model);
      flush();
    } finally {
      closeSync(fd);
    }
    return model.byteLength();
  }
}
