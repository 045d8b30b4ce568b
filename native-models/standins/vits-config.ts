/**
 * Piper's VITS hyperparameters. `full` is the medium quality a voice like en_US-libritts_r-medium
 * was trained with (piper_train's defaults: medium changes nothing, only x-low and high override
 * them; gin 512 because it has several speakers); `small` runs the same graph with every width and
 * depth shrunk, for CI. Hop length (8 × 8 × 4 = 256 samples a frame) and the duration calibration
 * are kept, so a small voice speaks as long as a full one.
 */
import type { StandinScale } from './types';

export interface VitsConfig {
  /** Phoneme ids (piper's num_symbols). */
  vocab: number;
  speakers: number;
  /** hidden_channels = inter_channels. */
  hidden: number;
  /** FFN width of the text encoder. */
  filter: number;
  heads: number;
  layers: number;
  /** FFN kernel. */
  kernel: number;
  /** Relative-position attention window (each side). */
  window: number;
  /** Speaker embedding width. */
  gin: number;
  /** Stochastic duration predictor: width (piper: 192, fixed), flows (the first is unused in reverse). */
  sdpFilter: number;
  sdpFlows: number;
  /** Residual coupling flows, and WaveNet layers in each (kernel 5, dilation rate 1). */
  flows: number;
  wnLayers: number;
  /** HiFi-GAN generator: upsampling, first width, ResBlock2 kernels and dilations. */
  upRates: number[];
  upKernels: number[];
  upChannels: number;
  resKernels: number[];
  resDilations: number[][];
}

const MEDIUM: VitsConfig = {
  vocab: 256,
  speakers: 904,
  hidden: 192,
  filter: 768,
  heads: 2,
  layers: 6,
  kernel: 3,
  window: 4,
  gin: 512,
  sdpFilter: 192,
  sdpFlows: 4,
  flows: 4,
  wnLayers: 4,
  upRates: [8, 8, 4],
  upKernels: [16, 16, 8],
  upChannels: 256,
  resKernels: [3, 5, 7],
  resDilations: [
    [1, 2],
    [2, 6],
    [3, 12],
  ],
};

const SMALL: VitsConfig = {
  ...MEDIUM,
  hidden: 16,
  filter: 32,
  layers: 1,
  gin: 8,
  sdpFilter: 16,
  sdpFlows: 2,
  flows: 1,
  wnLayers: 2,
  upChannels: 16,
};

export function vitsConfig(scale: StandinScale): VitsConfig {
  return scale === 'full' ? MEDIUM : SMALL;
}

/** Samples per frame (the product of the upsampling rates). */
export const hopLength = (c: VitsConfig) => c.upRates.reduce((a, b) => a * b, 1);
