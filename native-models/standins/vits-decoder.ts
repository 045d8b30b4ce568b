/**
 * The two stages after the alignment: the normalizing flow run in reverse (residual coupling
 * layers, mean-only, each a 1×1 pre, a speaker-conditioned WaveNet and a 1×1 post, with Flips
 * between), and the HiFi-GAN generator (conv_pre + the speaker's cond, then per upsampling a leaky
 * ReLU, a ConvTranspose and the mean of the ResBlock2s, then conv_post and tanh, so the audio stays
 * in [−1, 1]).
 */
import type { VitsConfig } from './vits-config';
import { channels, conv, convTranspose, flip, leakyRelu, type Net } from './vits-ops';

/** WaveNet: gated dilated convs (kernel 5, dilation 1) with the speaker added to every gate, summed skips. */
function waveNet(n: Net, x: string, mask: string, spk: string, c: VitsConfig): string {
  const { g } = n;
  const hid = c.hidden;
  const cond = conv(n, spk, c.gin, 2 * hid * c.wnLayers, 1);
  let out: string | undefined;
  for (let i = 0; i < c.wnLayers; i++) {
    const pre = g.op('Add', [conv(n, x, hid, 2 * hid, 5), channels(g, cond, 2 * hid * i, 2 * hid * (i + 1))]);
    const acts = g.op('Mul', [g.op('Tanh', [channels(g, pre, 0, hid)]), g.op('Sigmoid', [channels(g, pre, hid, 2 * hid)])]);
    const last = i === c.wnLayers - 1;
    const rs = conv(n, acts, hid, last ? hid : 2 * hid, 1);
    const skip = last ? rs : channels(g, rs, hid, 2 * hid);
    if (!last) x = g.op('Mul', [g.op('Add', [x, channels(g, rs, 0, hid)]), mask]);
    out = out ? g.op('Add', [out, skip]) : skip;
  }
  return g.op('Mul', [out!, mask]);
}

/** z [1, hidden, frames] from the prior back to the posterior's space. */
export function flowReverse(n: Net, z: string, mask: string, spk: string, c: VitsConfig): string {
  const { g } = n;
  const half = c.hidden / 2;
  for (let i = 0; i < c.flows; i++) {
    z = flip(g, z);
    const x0 = channels(g, z, 0, half);
    const h = waveNet(n, g.op('Mul', [conv(n, x0, half, c.hidden, 1), mask]), mask, spk, c);
    const m = g.op('Mul', [conv(n, h, c.hidden, half, 1), mask]);
    const x1 = g.op('Mul', [g.op('Sub', [channels(g, z, half, c.hidden), m]), mask]);
    z = g.op('Concat', [x0, x1], { axis: 1 });
  }
  return z;
}

/** ResBlock2: for each dilation, x + conv(leaky_relu(x)). */
function resBlock2(n: Net, x: string, ch: number, kernel: number, dilations: number[]): string {
  const { g } = n;
  for (const d of dilations) x = g.op('Add', [conv(n, leakyRelu(g, x, 0.1), ch, ch, kernel, { dilation: d }), x]);
  return x;
}

/** z [1, hidden, frames] → audio [1, 1, frames × hop]. */
export function generator(n: Net, z: string, spk: string, c: VitsConfig): string {
  const { g } = n;
  let x = g.op('Add', [conv(n, z, c.hidden, c.upChannels, 7), conv(n, spk, c.gin, c.upChannels, 1)]);
  let ch = c.upChannels;
  c.upRates.forEach((rate, i) => {
    x = convTranspose(n, leakyRelu(g, x, 0.1), ch, ch / 2, c.upKernels[i]!, rate);
    ch /= 2;
    let sum: string | undefined;
    c.resKernels.forEach((k, j) => {
      const r = resBlock2(n, x, ch, k, c.resDilations[j]!);
      sum = sum ? g.op('Add', [sum, r]) : r;
    });
    x = g.op('Mul', [sum!, g.scalar(1 / c.resKernels.length)]);
  });
  // torch's default slope here (0.01), then a quiet-ish projection: random weights would clip.
  const post = conv(n, leakyRelu(g, x, 0.01), ch, 1, 7, { bias: false, gain: 0.3 });
  return g.op('Tanh', [post]);
}
