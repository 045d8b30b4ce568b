/**
 * Writes small ONNX models for tests: a protobuf encoder for the few onnx.proto messages a graph
 * needs (ModelProto, GraphProto, NodeProto, ValueInfoProto, TensorProto, AttributeProto, and
 * StringStringEntryProto for the model's metadata), so a test can make a model with any interface
 * (say, another exporter's input names and metadata) that onnxruntime really loads and runs, without
 * Python's onnx package. Field numbers are those of onnx/onnx.proto.
 */

import { varint } from '../native-models/standins/onnx-graph';

type Field = Uint8Array;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}
const tag = (field: number, wire: number) => varint((field << 3) | wire);
/** A varint field (int32, int64, enum). */
const int = (field: number, n: number) => Uint8Array.from([...tag(field, 0), ...varint(n)]);
/** A length-delimited field (string, bytes, sub-message). */
const bytes = (field: number, b: Uint8Array) => concat([Uint8Array.from([...tag(field, 2), ...varint(b.length)]), b]);
const str = (field: number, s: string) => bytes(field, new TextEncoder().encode(s));
const message = (field: number, parts: Field[]) => bytes(field, concat(parts));
/** A fixed32 float field. */
function float(field: number, f: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, f, true);
  return Uint8Array.from([...tag(field, 5), ...b]);
}

/** TensorProto.DataType values used here. */
export const FLOAT = 1;
export const INT32 = 6;
export const INT64 = 7;

/** A graph input or output: name, element type and shape (a string is a named dynamic dimension). */
export interface ValueInfo {
  name: string;
  /** TensorProto.DataType: FLOAT, INT32 or INT64. */
  type: number;
  shape: (number | string)[];
}

function valueInfo(field: number, v: ValueInfo): Field {
  const dims = v.shape.map((d) => message(1, [typeof d === 'number' ? int(1, d) : str(2, d)]));
  const tensorType = message(1, [int(1, v.type), message(2, dims)]);
  return message(field, [str(1, v.name), message(2, [tensorType])]);
}

/** A node attribute: a float, an int or a list of ints. */
export type Attribute = { f: number } | { i: number } | { ints: number[] };

function attribute(name: string, a: Attribute): Field {
  // AttributeProto.type: FLOAT 1, INT 2, INTS 7.
  if ('f' in a) return message(5, [str(1, name), float(2, a.f), int(20, 1)]);
  if ('i' in a) return message(5, [str(1, name), int(3, a.i), int(20, 2)]);
  return message(5, [str(1, name), ...a.ints.map((n) => int(8, n)), int(20, 7)]);
}

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, Attribute>;
}

/** A constant (graph initializer): float32 unless `type` says INT64 or INT32. */
export interface Constant {
  name: string;
  dims: number[];
  values: number[];
  type?: number;
}

function initializer(c: Constant): Field {
  const type = c.type ?? FLOAT;
  const raw =
    type === INT64
      ? new Uint8Array(BigInt64Array.from(c.values, (v) => BigInt(v)).buffer)
      : type === INT32
        ? new Uint8Array(new Int32Array(c.values).buffer)
        : new Uint8Array(new Float32Array(c.values).buffer);
  return message(5, [...c.dims.map((d) => int(1, d)), int(2, type), str(8, c.name), bytes(9, raw)]);
}

export interface Graph {
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  nodes: Node[];
  constants?: Constant[];
  /** Default opset 13 (ReduceMean still takes `axes` as an attribute there). */
  opset?: number;
  /** The model's metadata_props (what sherpa-onnx reads with LookupCustomModelMetaData). */
  metadata?: Record<string, string>;
}

/** The serialized ModelProto (IR version 8). */
export function buildOnnxModel(g: Graph): Uint8Array {
  const nodes = g.nodes.map((n, k) =>
    message(1, [
      ...n.inputs.map((i) => str(1, i)),
      ...n.outputs.map((o) => str(2, o)),
      str(3, `node${k}`),
      str(4, n.op),
      ...Object.entries(n.attributes ?? {}).map(([name, a]) => attribute(name, a)),
    ]),
  );
  const graph = message(7, [
    ...nodes,
    str(2, 'test-graph'),
    ...(g.constants ?? []).map(initializer),
    ...g.inputs.map((v) => valueInfo(11, v)),
    ...g.outputs.map((v) => valueInfo(12, v)),
  ]);
  const metadata = Object.entries(g.metadata ?? {}).map(([key, value]) => message(14, [str(1, key), str(2, value)]));
  return concat([int(1, 8), str(2, 'onnx-builder'), graph, message(8, [str(1, ''), int(2, g.opset ?? 13)]), ...metadata]);
}
