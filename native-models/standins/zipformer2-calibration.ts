/**
 * Calibrates the Zipformer2 stand-in's blank bias, the way a quantizer calibrates on sample data.
 * With random weights, how often greedy search emits a word piece depends on where the encoder's
 * outputs fall against the joiner's blank column, and that differs from seed to seed by an order of
 * magnitude (a fixed bias gave 0 to 13 tokens a second). So the written encoder and decoder are run
 * (onnxruntime, as sherpa-onnx runs them) over the app's own spoken sample sentence, and the bias is
 * set by simulating greedy search over them.
 *
 * It stays a random function of the audio: over ../shared/speech (115 s, small scale, seeds 1-10)
 * the calibrated models emitted 1 to 15 tokens a second, median 2, and a model may hear nothing in a
 * clip or repeat one piece through a long silence (a constant input gives a constant output).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toMono16k } from '../../electron/audio/resample';
import { parseWav } from '../../electron/audio/wav';

/** The sentence the model check decodes ("what is the weather like today", 16 kHz). */
const SAMPLE = fileURLToPath(new URL('../../electron/model-check/speech-sample.wav', import.meta.url));
const RATE = 16000;
const MEL_BINS = 80;

/** In-place radix-2 FFT of (re, im), length a power of two. */
function fftInPlace(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [re[i], re[j], im[i], im[j]] = [re[j]!, re[i]!, im[j]!, im[i]!];
  }
  const cos = Float64Array.from({ length: n / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / n));
  const sin = Float64Array.from({ length: n / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / n));
  for (let len = 2; len <= n; len <<= 1) {
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < len / 2; k++) {
        const [c, s] = [cos[(k * n) / len]!, sin[(k * n) / len]!];
        const [a, b] = [i + k, i + k + len / 2];
        const tr = re[b]! * c - im[b]! * s;
        const ti = re[b]! * s + im[b]! * c;
        [re[b], im[b]] = [re[a]! - tr, im[a]! - ti];
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
  }
}

/**
 * Kaldi-style fbank as sherpa-onnx computes it for a zipformer (kaldi-native-fbank defaults, samples
 * in [-1, 1]): 25 ms Povey windows every 10 ms, DC removed, pre-emphasis 0.97, 512-point power
 * spectrum, 80 triangular mel bins from 20 to 7600 Hz, natural log. Close enough to place the bias.
 */
export function fbank(audio: Float32Array): Float32Array[] {
  const [fft, win] = [512, 400];
  const mel = (f: number) => 1127 * Math.log(1 + f / 700);
  const [lo, hi] = [mel(20), mel(RATE / 2 - 400)];
  const edge = (i: number) => lo + ((hi - lo) * i) / (MEL_BINS + 1);
  // Each bin's triangle, as its first spectrum index and weights (most of the spectrum is outside it).
  const bins = Array.from({ length: MEL_BINS }, (_, b) => {
    const w = Array.from({ length: fft / 2 + 1 }, (_, k) => {
      const m = mel((k * RATE) / fft);
      if (m <= edge(b) || m >= edge(b + 2)) return 0;
      return m <= edge(b + 1) ? (m - edge(b)) / (edge(b + 1) - edge(b)) : (edge(b + 2) - m) / (edge(b + 2) - edge(b + 1));
    });
    const first = w.findIndex((v) => v > 0);
    return { first, w: w.slice(first, w.length - [...w].reverse().findIndex((v) => v > 0)) };
  });
  const povey = Float64Array.from({ length: win }, (_, i) => Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (win - 1)), 0.85));
  const frames: Float32Array[] = [];
  // snip_edges false: frame i is centred on sample 160 i + 80, the edges reflected.
  const n = audio.length;
  const at = (j: number) => audio[j < 0 ? -j - 1 : j >= n ? 2 * n - 1 - j : j]!;
  for (let f = 0; f < Math.floor((n + 80) / 160); f++) {
    const s = 160 * f - 120;
    const re = new Float64Array(fft);
    const im = new Float64Array(fft);
    let mean = 0;
    for (let i = 0; i < win; i++) mean += (re[i] = at(s + i));
    mean /= win;
    for (let i = 0; i < win; i++) re[i] = re[i]! - mean;
    for (let i = win - 1; i > 0; i--) re[i] = (re[i]! - 0.97 * re[i - 1]!) * povey[i]!;
    re[0] = re[0]! * 0.03 * povey[0]!;
    fftInPlace(re, im);
    const power = Float64Array.from({ length: fft / 2 + 1 }, (_, k) => re[k]! * re[k]! + im[k]! * im[k]!);
    const out = new Float32Array(MEL_BINS);
    bins.forEach(({ first, w }, b) => {
      let e = 0;
      for (let k = 0; k < w.length; k++) e += w[k]! * power[first + k]!;
      out[b] = Math.log(Math.max(e, 1.1920929e-7));
    });
    frames.push(out);
  }
  return frames;
}

export interface CalibrationInput {
  encoderFile: string;
  decoderFile: string;
  /** The encoder's cache inputs (name, shape with 'N', type 1 float / 7 int64). */
  caches: { name: string; shape: (number | string)[]; type: number }[];
  featureFrames: number;
  chunkShift: number;
  contextSize: number;
  /** The joiner's output_linear as int8 values, [joinerDim, vocab] row-major, and their scale. */
  weights: Int8Array;
  scale: number;
  /** Its bias, blank's entry without the lead. */
  bias: Float32Array;
  joinerDim: number;
  vocab: number;
  /** Word pieces a second of audio wanted. */
  tokensPerSecond: number;
  /** Word pieces the sample sentence must at least yield as the model check decodes it. */
  minTokens: number;
}

/**
 * What the recognizer hears in the calibration: the sample as the model check and a turn give it
 * (the sentence, then the half second of silence the app appends at a turn's end); and the sample
 * as in a file (silence, the sentence, a second of microphone-like noise, the sentence quieter over
 * that noise, silence), since level, pauses and noise each move a random network's outputs.
 */
function calibrationAudio(): Float32Array[] {
  const speech = toMono16k(parseWav(readFileSync(SAMPLE), SAMPLE));
  let seed = 1;
  const noise = (n: number) => Float32Array.from({ length: n }, () => ((seed = (seed * 48271) % 2147483647) / 2147483647 - 0.5) * 0.006);
  const quieter = noise(speech.length).map((v, i) => v + 0.4 * speech[i]!);
  const join = (parts: Float32Array[]) => {
    const audio = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (audio.set(p, at), at + p.length), 0);
    return audio;
  };
  const silence = new Float32Array(RATE / 2);
  return [join([speech, silence]), join([silence, speech, noise(RATE), quieter, silence])];
}

/**
 * The blank bias for which greedy search, run as sherpa-onnx runs it (one symbol at most per frame,
 * the decoder re-run on the last `contextSize` tokens after each), emits `tokensPerSecond` over the
 * clip as in a file, lowered if need be so that the sample as the model check gives it still yields
 * `minTokens` (a random network may well hear nothing in one short sentence at the file's bias).
 */
export async function calibrateBlankLead(c: CalibrationInput): Promise<number> {
  const ort = await import('onnxruntime-node');
  const opts = { intraOpNumThreads: 1, interOpNumThreads: 1 };
  const encoder = await ort.InferenceSession.create(c.encoderFile, opts);
  // The encoder over a clip chunk by chunk from fresh caches, as sherpa feeds a new stream.
  const encode = async (audio: Float32Array): Promise<Float32Array[]> => {
    const feats = fbank(audio);
    const state: Record<string, InstanceType<typeof ort.Tensor>> = {};
    for (const s of c.caches) {
      const dims = s.shape.map((d) => (typeof d === 'number' ? d : 1));
      const n = dims.reduce((a, b) => a * b, 1);
      state[s.name] = s.type === 7 ? new ort.Tensor('int64', new BigInt64Array(n), dims) : new ort.Tensor('float32', new Float32Array(n), dims);
    }
    const frames: Float32Array[] = [];
    for (let start = 0; start + c.featureFrames <= feats.length; start += c.chunkShift) {
      const x = new Float32Array(c.featureFrames * MEL_BINS);
      for (let t = 0; t < c.featureFrames; t++) x.set(feats[start + t]!, t * MEL_BINS);
      const out = await encoder.run({ x: new ort.Tensor('float32', x, [1, c.featureFrames, MEL_BINS]), ...state });
      for (const s of c.caches) state[s.name] = out[`new_${s.name}`]!;
      const enc = out['encoder_out']!.data as Float32Array;
      for (let f = 0; f < enc.length / c.joinerDim; f++) frames.push(enc.subarray(f * c.joinerDim, (f + 1) * c.joinerDim));
    }
    return frames;
  };
  const clips = calibrationAudio();
  const encoded: Float32Array[][] = [];
  for (const clip of clips) encoded.push(await encode(clip));
  await encoder.release();
  // Decoder outputs by context, computed once each.
  const decoder = await ort.InferenceSession.create(c.decoderFile, opts);
  const decoded = new Map<string, Float32Array>();
  const decode = async (context: number[]) => {
    const key = context.join();
    let out = decoded.get(key);
    if (!out) {
      const y = new ort.Tensor('int64', BigInt64Array.from(context, BigInt), [1, c.contextSize]);
      decoded.set(key, (out = (await decoder.run({ y }))['decoder_out']!.data as Float32Array));
    }
    return out;
  };
  const hidden = new Float64Array(c.joinerDim);
  const logits = new Float64Array(c.vocab);
  const emitted = async (frames: Float32Array[], lead: number): Promise<number> => {
    let context = new Array<number>(c.contextSize).fill(0);
    let dec = await decode(context);
    let count = 0;
    for (const enc of frames) {
      for (let i = 0; i < c.joinerDim; i++) hidden[i] = Math.tanh(enc[i]! + dec[i]!);
      logits.set(c.bias);
      logits[0] = logits[0]! + lead;
      for (let i = 0; i < c.joinerDim; i++) {
        const h = hidden[i]! * c.scale;
        for (let v = 0, row = i * c.vocab; v < c.vocab; v++) logits[v] = logits[v]! + h * c.weights[row + v]!;
      }
      let best = 0;
      for (let v = 1; v < c.vocab; v++) if (logits[v]! > logits[best]!) best = v;
      if (best !== 0) {
        count++;
        context = [...context.slice(1), best];
        dec = await decode(context);
      }
    }
    return count;
  };
  // The highest bias (bisection: emissions fall as it rises) at which a clip still gets `wanted` tokens.
  const highest = async (frames: Float32Array[], wanted: number) => {
    let [lo, hi] = [-10, 20];
    for (let step = 0; step < 12; step++) {
      const mid = (lo + hi) / 2;
      if ((await emitted(frames, mid)) >= wanted) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  const [asTurn, inFile] = encoded as [Float32Array[], Float32Array[]];
  // The check's own bound gets a margin: sherpa's features and int8 joiner differ from these, and by
  // more on some CPUs (0.3 left an AMD EPYC's sherpa-onnx hearing nothing in the sample).
  const leads = [await highest(inFile, (c.tokensPerSecond * clips[1]!.length) / RATE), (await highest(asTurn, c.minTokens)) - 1];
  await decoder.release();
  return Math.min(...leads);
}
