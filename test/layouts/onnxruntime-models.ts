/**
 * Stand-ins for the two models the app runs in onnxruntime itself: Silero VAD v5 (input [B, samples],
 * state [2, B, 128], sr → output [B, 1], stateN) and Smart Turn v3 (input_features [B, 80, 800] →
 * a probability [B, 1]). Their probabilities are a squashed mean of the input; the state passes
 * through.
 */
import { writeFileSync } from 'node:fs';
import { buildOnnxModel, FLOAT, INT64 } from '../onnx-builder';

const squash = (from: string, to: string, axes: number[]) => [
  { op: 'ReduceMean', inputs: [from], outputs: ['mean'], attributes: { axes: { ints: axes }, keepdims: { i: 0 } } },
  { op: 'Unsqueeze', inputs: ['mean', 'batch_axes'], outputs: ['mean_2d'] },
  { op: 'Sigmoid', inputs: ['mean_2d'], outputs: [to] },
];

export function sileroV5Vad(): Uint8Array {
  const state = (name: string) => ({ name, type: FLOAT, shape: [2, 'batch', 128] });
  return buildOnnxModel({
    inputs: [{ name: 'input', type: FLOAT, shape: ['batch', 'samples'] }, state('state'), { name: 'sr', type: INT64, shape: [] }],
    outputs: [{ name: 'output', type: FLOAT, shape: ['batch', 1] }, state('stateN')],
    constants: [{ name: 'batch_axes', dims: [1], values: [1], type: INT64 }],
    nodes: [...squash('input', 'output', [1]), { op: 'Identity', inputs: ['state'], outputs: ['stateN'] }],
  });
}

export function smartTurnV3(): Uint8Array {
  return buildOnnxModel({
    inputs: [{ name: 'input_features', type: FLOAT, shape: ['batch_size', 80, 800] }],
    outputs: [{ name: 'logits', type: FLOAT, shape: ['batch_size', 1] }],
    constants: [{ name: 'batch_axes', dims: [1], values: [1], type: INT64 }],
    nodes: squash('input_features', 'logits', [1, 2]),
  });
}

export const writeSileroV5Vad = (file: string) => writeFileSync(file, sileroV5Vad());
export const writeSmartTurnV3 = (file: string) => writeFileSync(file, smartTurnV3());
