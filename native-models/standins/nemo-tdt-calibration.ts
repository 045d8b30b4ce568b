/**
 * Calibrates a random TDT joiner so greedy decoding costs what a trained one's does. With random
 * weights every encoder frame shares a large common part (ReLU means through the subsampling, the
 * residual stream), so each logit carries a fixed offset of about half its spread that differs from
 * seed to seed: an output bias chosen in advance left 6 % to 71 % of the frames non-blank across
 * eight seeds. So the encoder is run once, on speech-like features, and the blank and duration
 * biases are read off the provisional joiner's logits as quantiles: non-blank on a given share of
 * frames, the durations in given shares. Rounded to 0.01, so a last-bit difference between machines'
 * float kernels does not change the bytes written.
 */
import * as ort from 'onnxruntime-node';
import { SeededRandom } from './random';

export interface JointCalibration {
  /** Added to the blank's logit. */
  blank: number;
  /** Added to each duration's logit (durations 0, 1, 2, …). */
  durations: number[];
}

export const UNCALIBRATED: JointCalibration = { blank: 0, durations: [] };

/**
 * The decisions aimed at, per decoding step: a word piece on half the steps, and a skip of 2 frames
 * most often. Greedy TDT over 12.5 frames a second then emits about 3 pieces a second (simulated over
 * independent steps: 3.0), parakeet's rate on conversational speech.
 */
const NON_BLANK_SHARE = 0.5;
const DURATION_SHARES = [0.02, 0.25, 0.42, 0.25, 0.06];

/** Seconds of features the encoder is calibrated on: 100 encoder frames. */
const SECONDS = 8;

/**
 * Features shaped like per-feature-normalized log-mel speech: a loudness envelope at syllable rate
 * shared by all bands, spectral shapes smooth across bands and in time, each band then normalized
 * to zero mean and unit variance over the utterance (sherpa-onnx's per_feature normalization).
 */
function speechLikeFeatures(featDim: number, frames: number, seed: number): Float32Array {
  const rng = new SeededRandom(seed);
  const noise = rng.normal(featDim * frames);
  const raw = new Float32Array(featDim * frames);
  const shape = new Float32Array(featDim);
  const phase = rng.uniform() * 2 * Math.PI;
  for (let t = 0; t < frames; t++) {
    // 4 Hz syllables with pauses (frames are 10 ms): the envelope is what dominates a real log-mel.
    const loudness = 3 * Math.max(-0.6, Math.sin((2 * Math.PI * 4 * t) / 100 + phase + Math.sin(t / 37)));
    for (let f = 0; f < featDim; f++) {
      let across = 0;
      for (let k = -3; k <= 3; k++) across += noise[Math.min(featDim - 1, Math.max(0, f + k)) * frames + t]! / 7;
      shape[f] = 0.8 * shape[f]! + across;
      raw[f * frames + t] = loudness + shape[f]!;
    }
  }
  for (let f = 0; f < featDim; f++) {
    const band = raw.subarray(f * frames, (f + 1) * frames);
    const mean = band.reduce((a, x) => a + x, 0) / frames;
    const std = Math.sqrt(band.reduce((a, x) => a + (x - mean) ** 2, 0) / frames) + 1e-5;
    for (let t = 0; t < frames; t++) band[t] = (band[t]! - mean) / std;
  }
  return raw;
}

const session = (file: string) => ort.InferenceSession.create(file, { intraOpNumThreads: 2, interOpNumThreads: 1 });

/** The encoder's output on the speech-like features: [frames, dim] rows, and the dim. */
export async function encoderFrames(file: string, featDim: number, seed: number): Promise<{ data: Float32Array; dims: number[] }> {
  const frames = SECONDS * 100;
  const encoder = await session(file);
  try {
    const out = await encoder.run({
      audio_signal: new ort.Tensor('float32', speechLikeFeatures(featDim, frames, seed), [1, featDim, frames]),
      length: new ort.Tensor('int64', BigInt64Array.of(BigInt(frames)), [1]),
    });
    const t = out.outputs!;
    return { data: t.data as Float32Array, dims: t.dims as number[] };
  } finally {
    await encoder.release();
  }
}

/** The prediction network's output after the blank that starts every decode, [1, hidden, 1]. */
async function startDecoderOutput(file: string, layers: number, hidden: number, blank: number): Promise<ort.Tensor> {
  const decoder = await session(file);
  try {
    const zeros = () => new ort.Tensor('float32', new Float32Array(layers * hidden), [layers, 1, hidden]);
    const out = await decoder.run({
      targets: new ort.Tensor('int32', Int32Array.of(blank), [1, 1]),
      target_length: new ort.Tensor('int32', Int32Array.of(1), [1]),
      input_states_1: zeros(),
      input_states_2: zeros(),
    });
    return out.outputs!;
  } finally {
    await decoder.release();
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

/** Bias offsets so that on `rows` (per frame: vocab + 1 logits, then the durations) the shares are met. */
export function solveCalibration(logits: Float32Array, frames: number, vocab: number, durations: number): JointCalibration {
  const width = vocab + 1 + durations;
  const row = (t: number) => logits.subarray(t * width, (t + 1) * width);
  // Blank wins a frame when its logit plus the offset beats the best piece.
  const needed = Array.from({ length: frames }, (_, t) => {
    const l = row(t);
    let best = -Infinity;
    for (let i = 0; i < vocab; i++) best = Math.max(best, l[i]!);
    return best - l[vocab]!;
  }).sort((a, b) => a - b);
  const blank = needed[Math.min(frames - 1, Math.floor((1 - NON_BLANK_SHARE) * frames))]!;
  // Durations: move each offset toward its share until the argmax shares settle.
  const target = DURATION_SHARES.slice(0, durations);
  const offsets = new Array<number>(durations).fill(0);
  for (let iteration = 0; iteration < 400; iteration++) {
    const counts = new Array<number>(durations).fill(0);
    for (let t = 0; t < frames; t++) {
      const l = row(t).subarray(vocab + 1);
      let arg = 0;
      for (let d = 1; d < durations; d++) if (l[d]! + offsets[d]! > l[arg]! + offsets[arg]!) arg = d;
      counts[arg]!++;
    }
    for (let d = 0; d < durations; d++) offsets[d]! += 0.05 * (Math.log((target[d] ?? 0) + 0.01) - Math.log(counts[d]! / frames + 0.01));
  }
  return { blank: round(blank), durations: offsets.map(round) };
}

/**
 * Runs the provisional joiner (written with UNCALIBRATED at `joinerFile`) over the encoder's frames
 * and returns the calibration for the final one.
 */
export async function calibrateJoint(
  files: { encoder: string; decoder: string; joiner: string },
  shape: { featDim: number; predLayers: number; predHidden: number; vocab: number; durations: number },
  seed: number,
): Promise<JointCalibration> {
  const { data, dims } = await encoderFrames(files.encoder, shape.featDim, seed);
  const decoderOut = await startDecoderOutput(files.decoder, shape.predLayers, shape.predHidden, shape.vocab);
  const joiner = await session(files.joiner);
  try {
    const out = await joiner.run({ encoder_outputs: new ort.Tensor('float32', data, dims), decoder_outputs: decoderOut });
    return solveCalibration(out.outputs!.data as Float32Array, dims[2]!, shape.vocab, shape.durations);
  } finally {
    await joiner.release();
  }
}
