// sherpa-onnx first, on purpose: on Windows both packages ship an onnxruntime.dll, and the one loaded
// first serves both. sherpa's is newer than onnxruntime-node's and so serves it too, where the reverse
// would not serve sherpa (as in vad.ts; see README, Packaging).
import 'sherpa-onnx-node';
import * as ort from 'onnxruntime-node';
import { DEFAULT_CATALOG } from '../../native-models/catalog';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import { TURN_FEATURES_LENGTH, TURN_FRAMES, TURN_MEL_BANDS, TURN_SAMPLE_RATE, turnFeatures } from './turn-features';

/** The one input of Smart Turn v3's ONNX models: float32 [batch, 80, 800] log-mel features of the last 8 s. */
export const TURN_INPUT = 'input_features';

export interface TurnScore {
  /** Probability (0-1) that the turn is complete; 0.5 is Smart Turn's decision point. */
  probability: number;
  /** Time the features took (on the calling thread), ms. */
  featuresMs: number;
  /** Time the model took, ms. */
  inferenceMs: number;
}

/** An end-of-turn model with Smart Turn v3's interface (Pipecat's Smart Turn v3.x, or the test stand-in). */
export interface TurnDetector {
  readonly info: { id: string; loadMs: number };
  /**
   * Probability (0-1) that the turn whose audio so far (16 kHz mono; only its last 8 s matter) is
   * given is complete, with how long the features and the inference took. Checks run one at a time,
   * in call order; the audio is read when the check's turn comes, so leave it unchanged until then.
   */
  score(audio: Float32Array): Promise<TurnScore>;
  dispose(): Promise<void>;
}

/**
 * The model's .onnx file: the one the engine spec names as `model`, when it names one, else the
 * entry's first file ending in .onnx (so it works whatever the catalog calls its end-of-turn engine).
 */
export function turnModelFile(resolved: ResolvedModel): string | undefined {
  const spec = resolved.entry.engine;
  const named = 'model' in spec ? spec.model : undefined;
  if (named && resolved.paths[named]) return resolved.paths[named];
  const onnx = resolved.entry.files.find((f) => f.name.toLowerCase().endsWith('.onnx') && resolved.paths[f.name]);
  return onnx ? resolved.paths[onnx.name] : undefined;
}

function describeValue(v: ort.InferenceSession.ValueMetadata): string {
  if (!v.isTensor) return `${v.name} (not a tensor)`;
  const dims = v.shape.length > 0 ? v.shape.map((d) => (typeof d === 'number' && d >= 0 ? String(d) : typeof d === 'string' && d ? d : '?')).join(', ') : '?';
  return `${v.name} ${v.type} [${dims}]`;
}

const describeAll = (vs: readonly ort.InferenceSession.ValueMetadata[]) => vs.map(describeValue).join(', ') || 'none';

/** A dynamic dimension: a name, or a negative or zero size as some exporters and runtimes write it. */
const dynamic = (d: number | string | undefined) => typeof d === 'string' || (typeof d === 'number' && d <= 0);

function interfaceError(id: string, file: string, session: ort.InferenceSession, detail?: string): UserError {
  const standard = DEFAULT_CATALOG.find((e) => e.kind === 'turn');
  const get = standard ? `, or get ${standard.name} with: npm run models -- fetch ${standard.id}` : '';
  return new UserError(
    `This is not an end-of-turn model with Smart Turn v3's interface: '${id}' (${file}) has inputs ` +
      `${describeAll(session.inputMetadata)} and outputs ${describeAll(session.outputMetadata)}` +
      `${detail ? ` (${detail})` : ''}; expected one input ${TURN_INPUT} float32 [batch, ${TURN_MEL_BANDS}, ${TURN_FRAMES}] ` +
      `(8 s of log-mel features) and a first output with the probability that the turn is complete, [batch] or [batch, 1]. ` +
      `Choose a Smart Turn v3 ONNX model${get}`,
    'model-layout',
  );
}

/** Checks the declared interface; returns undefined when it fits, else what does not. */
function interfaceProblem(session: ort.InferenceSession): string | undefined {
  const inputs = session.inputMetadata;
  const outputs = session.outputMetadata;
  const input = inputs.find((v) => v.name === TURN_INPUT);
  if (!input) return `no input named ${TURN_INPUT}`;
  if (inputs.length !== 1) return `it has other inputs than ${TURN_INPUT}`;
  if (!input.isTensor || input.type !== 'float32') return `${TURN_INPUT} is not float32`;
  // An export that declares no shape at all is left to the check run at load.
  const shape = input.shape;
  if (shape.length > 0) {
    const batchOk = dynamic(shape[0]) || shape[0] === 1;
    if (shape.length !== 3 || !batchOk || shape[1] !== TURN_MEL_BANDS || shape[2] !== TURN_FRAMES) {
      return `${TURN_INPUT} is not [batch, ${TURN_MEL_BANDS}, ${TURN_FRAMES}]`;
    }
  }
  const first = outputs[0];
  if (!first) return 'no output';
  if (!first.isTensor || first.type !== 'float32') return `its first output ${first.name} is not float32`;
  return undefined;
}

/** The probability in the first output, when its shape is [1] or [1, 1]; else undefined. */
function probabilityOf(out: ort.InferenceSession.ReturnType, name: string): number | undefined {
  const t = out[name];
  if (!t || t.type !== 'float32') return undefined;
  const dims = t.dims;
  const ok = (dims.length === 1 && dims[0] === 1) || (dims.length === 2 && dims[0] === 1 && dims[1] === 1);
  return ok ? (t.data as Float32Array)[0] : undefined;
}

class OnnxTurnDetector implements TurnDetector {
  readonly info: { id: string; loadMs: number };
  /** The features buffer, reused by every check (they run one at a time), and its tensor. */
  private readonly features = new Float32Array(TURN_FEATURES_LENGTH);
  private readonly tensor = new ort.Tensor('float32', this.features, [1, TURN_MEL_BANDS, TURN_FRAMES]);
  private readonly output: string;
  /** The last check queued: onnxruntime sessions are not to run concurrently, so each waits for it. */
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly session: ort.InferenceSession,
    id: string,
  ) {
    this.info = { id, loadMs: 0 };
    this.output = session.outputNames[0]!;
  }

  /** One check now (the caller keeps them one at a time). `probability` is undefined when the output's shape is not [1] or [1, 1]. */
  async run(audio: Float32Array): Promise<{ probability: number | undefined; featuresMs: number; inferenceMs: number }> {
    const t0 = performance.now();
    turnFeatures(audio, this.features);
    const t1 = performance.now();
    const out = await this.session.run({ [TURN_INPUT]: this.tensor });
    const t2 = performance.now();
    const probability = probabilityOf(out, this.output);
    return { probability, featuresMs: t1 - t0, inferenceMs: t2 - t1 };
  }

  score(audio: Float32Array): Promise<TurnScore> {
    if (this.disposed) return Promise.reject(new Error(`The end-of-turn model '${this.info.id}' was disposed`));
    const check = this.tail.then(async () => {
      if (this.disposed) throw new Error(`The end-of-turn model '${this.info.id}' was disposed`);
      const r = await this.run(audio);
      if (r.probability === undefined) throw new Error(`The end-of-turn model '${this.info.id}' gave no probability of shape [1] or [1, 1]`);
      return { ...r, probability: r.probability };
    });
    this.tail = check.catch(() => undefined);
    return check;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.tail;
    await this.session.release();
  }
}

/**
 * Loads an end-of-turn model with Smart Turn v3's interface: checks its declared inputs and outputs,
 * then runs one check on silence, which warms the features code up and checks the output's shape.
 */
export async function loadTurnDetector(model: ResolvedModel): Promise<TurnDetector> {
  const t0 = performance.now();
  const id = model.entry.id;
  const file = turnModelFile(model);
  let session: ort.InferenceSession;
  try {
    if (!file) throw new Error(`it has no .onnx file`);
    // One thread: the machine may have two cores, and the audio path must not starve.
    session = await ort.InferenceSession.create(file, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  } catch (e) {
    throw new UserError(
      `Could not load the end-of-turn model '${id}' from ${model.dir}: ${(e as Error).message}. ` +
        `Re-download it with: npm run models -- fetch ${id}`,
      'model-load',
    );
  }
  const problem = interfaceProblem(session);
  if (problem) {
    const err = interfaceError(id, file!, session, problem);
    await session.release();
    throw err;
  }
  const detector = new OnnxTurnDetector(session, id);
  let check: string | undefined;
  try {
    const { probability } = await detector.run(new Float32Array(TURN_SAMPLE_RATE));
    if (probability === undefined) check = 'its first output is not [batch] or [batch, 1]';
    else if (!(probability >= 0 && probability <= 1)) check = `its first output gave ${probability} on silence, not a probability`;
  } catch (e) {
    check = `running it failed: ${(e as Error).message.split('\n')[0]}`;
  }
  if (check) {
    const err = interfaceError(id, file!, session, check);
    await session.release();
    throw err;
  }
  detector.info.loadMs = performance.now() - t0;
  return detector;
}

/** Median, 95th percentile and maximum of some timings (ms). */
export interface TimingStats {
  n: number;
  median: number;
  p95: number;
  max: number;
}

/** What an end-of-turn check costs: features (on the main thread), inference, and the two together. */
export interface TurnCost {
  featuresMs: TimingStats;
  inferenceMs: TimingStats;
  totalMs: TimingStats;
}

function stats(values: readonly number[]): TimingStats {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? NaN;
  return { n: s.length, median: at(0.5), p95: at(0.95), max: s[s.length - 1] ?? NaN };
}

/** The cost of some checks already made (each score() returns its featuresMs and inferenceMs). */
export function summarizeTurnCost(scores: readonly Pick<TurnScore, 'featuresMs' | 'inferenceMs'>[]): TurnCost {
  return {
    featuresMs: stats(scores.map((s) => s.featuresMs)),
    inferenceMs: stats(scores.map((s) => s.inferenceMs)),
    totalMs: stats(scores.map((s) => s.featuresMs + s.inferenceMs)),
  };
}

/** Measures a detector's cost for the benchmark: `runs` checks of `audio` (default 8 s of low noise) after `warmup` unmeasured ones. */
export async function measureTurnCost(
  detector: TurnDetector,
  opts: { audio?: Float32Array; runs?: number; warmup?: number } = {},
): Promise<TurnCost> {
  const audio = opts.audio ?? lowNoise(8 * TURN_SAMPLE_RATE);
  for (let i = 0; i < (opts.warmup ?? 3); i++) await detector.score(audio);
  const scores: TurnScore[] = [];
  for (let i = 0; i < (opts.runs ?? 30); i++) scores.push(await detector.score(audio));
  return summarizeTurnCost(scores);
}

/** Deterministic low-level noise (the cost does not depend on what the audio is). */
function lowNoise(n: number): Float32Array {
  const a = new Float32Array(n);
  let seed = 12345;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    a[i] = (seed / 2 ** 32 - 0.5) * 0.02;
  }
  return a;
}
