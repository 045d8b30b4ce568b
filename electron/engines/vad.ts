// sherpa-onnx first, on purpose: on Windows both packages ship an onnxruntime.dll, and the one loaded
// first serves both. sherpa's (1.28.2) is newer than onnxruntime-node's (1.23.2) and so serves it
// too, where the reverse would not serve sherpa. See README, Packaging.
import 'sherpa-onnx-node';
import * as ort from 'onnxruntime-node';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import { isSpeech } from './vad-decision';

import { VAD_SAMPLE_RATE, VAD_WINDOW } from './vad-window';

export interface VadResult {
  /** Speech probability for the window, 0-1. */
  probability: number;
  /** Whether speech is present at the window's end, after hysteresis on the threshold. */
  speech: boolean;
}

/** A speech probability and decision per 32 ms window. */
export interface VoiceActivityDetector {
  /** Feeds exactly one window (VAD_WINDOW samples). */
  accept(window: Float32Array): Promise<VadResult>;
  /** Applies a new speech threshold from the next window on (no model is reloaded). */
  setThreshold(threshold: number): void;
  reset(): void;
  dispose(): Promise<void>;
  readonly info: { id: string; loadMs: number; threshold: number };
}

/** Which Silero export a model file is: upstream v5, upstream v4, or k2-fsa's re-export of v4. */
export type VadLayout = 'silero-v5' | 'silero-v4' | 'k2-fsa';

interface LayoutSpec {
  /** Input names in the exporter's order, as the error message lists them. */
  inputs: readonly string[];
  outputs: readonly string[];
  /** The audio input and the probability output. */
  audio: string;
  probability: string;
  /** Recurrent state as [input, output] name pairs: each output is fed back as the input of the next window. */
  state: readonly (readonly [string, string])[];
  stateShape: readonly number[];
  /** Samples of the previous window put in front of each window (v5 wants 64 at 16 kHz). */
  context: number;
}

/** The interfaces as sherpa-onnx's silero-vad-model.cc checks them (CheckV5, CheckV4, IsExportedByK2Fsa). */
const LAYOUTS: Record<VadLayout, LayoutSpec> = {
  'silero-v5': {
    inputs: ['input', 'state', 'sr'],
    outputs: ['output', 'stateN'],
    audio: 'input',
    probability: 'output',
    state: [['state', 'stateN']],
    stateShape: [2, 1, 128],
    context: 64,
  },
  'silero-v4': {
    inputs: ['input', 'sr', 'h', 'c'],
    outputs: ['output', 'hn', 'cn'],
    audio: 'input',
    probability: 'output',
    state: [['h', 'hn'], ['c', 'cn']],
    stateShape: [2, 1, 64],
    context: 0,
  },
  // v4 re-exported for 16 kHz only: no `sr` input, no context samples.
  'k2-fsa': {
    inputs: ['x', 'h', 'c'],
    outputs: ['prob', 'new_h', 'new_c'],
    audio: 'x',
    probability: 'prob',
    state: [['h', 'new_h'], ['c', 'new_c']],
    stateShape: [2, 1, 64],
    context: 0,
  },
};
const LAYOUT_NAMES = Object.keys(LAYOUTS) as VadLayout[];

const sameNames = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((n) => b.includes(n));

/** The layout with exactly these input and output names (in any order), or undefined. */
function detectVadLayout(inputs: readonly string[], outputs: readonly string[]): VadLayout | undefined {
  return LAYOUT_NAMES.find((l) => sameNames(LAYOUTS[l].inputs, inputs) && sameNames(LAYOUTS[l].outputs, outputs));
}

function layoutMismatch(id: string, file: string, inputs: readonly string[], outputs: readonly string[]): UserError {
  const expected = LAYOUT_NAMES.map((l) => `${LAYOUTS[l].inputs.join(', ')} (${l})`).join('; or ');
  return new UserError(
    `The VAD model '${id}' (${file}) is not a Silero VAD: its inputs are ${inputs.join(', ') || 'none'} ` +
      `and outputs ${outputs.join(', ') || 'none'}, expected inputs ${expected}. ` +
      `Choose a Silero VAD model, or get the default with: npm run models -- fetch silero-vad`,
    'model-layout',
  );
}

export interface VadInfo {
  id: string;
  loadMs: number;
  threshold: number;
  /** Which Silero export was loaded (the models panel shows it). */
  layout: VadLayout;
}

/**
 * Silero VAD run directly in onnxruntime, so each window yields a probability (the UI draws it,
 * the threshold is a plain comparison that changes live). sherpa-onnx's `Vad` only gives decisions.
 */
export class SileroVad implements VoiceActivityDetector {
  private readonly spec: LayoutSpec;
  private state: ort.Tensor[] = [];
  private readonly context: Float32Array;
  private readonly sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
  private speaking = false;
  readonly info: VadInfo;

  private constructor(
    private readonly session: ort.InferenceSession,
    layout: VadLayout,
    id: string,
    threshold: number,
    loadMs: number,
  ) {
    this.spec = LAYOUTS[layout];
    this.context = new Float32Array(this.spec.context);
    this.info = { id, loadMs, threshold, layout };
    this.reset();
  }

  static async load(resolved: ResolvedModel, threshold: number): Promise<SileroVad> {
    const t0 = performance.now();
    const spec = resolved.entry.engine;
    const model = spec.engine === 'silero-vad' ? resolved.paths[spec.model] : undefined;
    let session: ort.InferenceSession;
    try {
      if (!model) throw new Error(`${resolved.entry.id} is not a Silero VAD model`);
      session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    } catch (e) {
      throw new UserError(
        `Could not load the VAD model '${resolved.entry.id}' from ${resolved.dir}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
    const layout = detectVadLayout(session.inputNames, session.outputNames);
    if (!layout) {
      await session.release();
      throw layoutMismatch(resolved.entry.id, model, session.inputNames, session.outputNames);
    }
    return new SileroVad(session, layout, resolved.entry.id, threshold, performance.now() - t0);
  }

  async accept(window: Float32Array): Promise<VadResult> {
    if (window.length !== VAD_WINDOW) throw new Error(`VAD windows are ${VAD_WINDOW} samples, got ${window.length}`);
    const { audio, probability: probabilityName, state, context } = this.spec;
    let x = window;
    if (context > 0) {
      x = new Float32Array(context + VAD_WINDOW);
      x.set(this.context);
      x.set(window, context);
      this.context.set(window.subarray(VAD_WINDOW - context));
    }
    const feeds: Record<string, ort.Tensor> = { [audio]: new ort.Tensor('float32', x, [1, x.length]) };
    state.forEach(([input], i) => (feeds[input] = this.state[i]!));
    if (this.spec.inputs.includes('sr')) feeds['sr'] = this.sr;
    const out = await this.session.run(feeds);
    this.state = state.map(([, output]) => out[output]!);
    const probability = (out[probabilityName]!.data as Float32Array)[0]!;
    this.speaking = isSpeech(this.speaking, probability, this.info.threshold);
    return { probability, speech: this.speaking };
  }

  setThreshold(threshold: number): void {
    this.info.threshold = threshold;
  }

  reset(): void {
    this.context.fill(0);
    this.speaking = false;
    const shape = [...this.spec.stateShape];
    const size = shape.reduce((a, b) => a * b, 1);
    this.state = this.spec.state.map(() => new ort.Tensor('float32', new Float32Array(size), shape));
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
