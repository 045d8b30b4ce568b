/**
 * The renderer's playback worklet, run in Node with the few AudioWorkletGlobalScope names it uses:
 * back-to-back chunks resampled to the device rate, pause/stop within one render quantum, and the
 * stream position it reports (what `heardText` is cut from).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { PlayerMessage, PlayerReport } from '../renderer/audio/playback-worklet';

const RATE = 48000;
const QUANTUM = 128;

interface FakePort {
  onmessage: ((e: { data: PlayerMessage }) => void) | null;
  postMessage(m: PlayerReport): void;
}
interface Processor {
  port: FakePort;
  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean;
}

let Playback: new () => Processor;

before(async () => {
  const g = globalThis as Record<string, unknown>;
  g.sampleRate = RATE;
  g.AudioWorkletProcessor = class {
    readonly port: FakePort & { sent: PlayerReport[] };
    constructor() {
      const sent: PlayerReport[] = [];
      this.port = { onmessage: null, postMessage: (m) => sent.push(m), sent };
    }
  };
  g.registerProcessor = (_name: string, ctor: new () => Processor) => {
    Playback = ctor;
  };
  await import('../renderer/audio/playback-worklet');
});

function player() {
  const p = new Playback();
  const port = p.port as FakePort & { sent: PlayerReport[] };
  const send = (m: PlayerMessage) => port.onmessage!({ data: m });
  const render = (quanta = 1) => {
    const all: number[] = [];
    for (let i = 0; i < quanta; i++) {
      const out = [new Float32Array(QUANTUM)];
      p.process([], [out]);
      all.push(...out[0]!);
    }
    return all;
  };
  const position = () => port.sent.at(-1)?.position;
  return { send, render, position, sent: port.sent };
}

function sine(freq: number, rate: number, ms: number): Float32Array {
  return Float32Array.from({ length: Math.round((rate * ms) / 1000) }, (_, i) => Math.sin((2 * Math.PI * freq * i) / rate));
}

describe('playback worklet', () => {
  it('plays chunks back to back at the device rate, reporting the stream position', () => {
    const p = player();
    p.send({ type: 'chunk', samples: sine(440, 16000, 500), sampleRate: 16000, from: 0 });
    p.send({ type: 'chunk', samples: sine(440, 22050, 500), sampleRate: 22050, from: 500 });
    const out = p.render(375); // 1 s at 48 kHz
    const crossings = out.slice(0, 48000).filter((v, i, a) => i > 0 && Math.sign(v) !== Math.sign(a[i - 1]!) && v !== 0).length;
    assert.ok(Math.abs(crossings - 880) <= 6, `440 Hz stays 440 Hz after resampling (${crossings} zero crossings in 1 s)`);
    assert.ok(Math.abs(p.position()! - 1000) < 3, `position ${p.position()}`);
    assert.ok(p.sent.length >= 40, 'reports about every 20 ms');
    p.render(1); // rounding may leave a sample or two of the last chunk
    assert.equal(p.render(2).every((v) => v === 0), true, 'silence once the queue is dry');
    assert.ok(Math.abs(p.position()! - 1000) < 0.01);
    assert.equal(p.sent.at(-1)!.playing, false);
  });

  it('pause and stop take effect at the next render quantum; stop flushes', () => {
    const p = player();
    p.send({ type: 'chunk', samples: sine(300, 16000, 1000), sampleRate: 16000, from: 2000 });
    p.render(75); // 200 ms
    p.send({ type: 'pause' });
    const paused = p.position()!;
    assert.ok(Math.abs(paused - 2200) < 3, String(paused));
    assert.ok(p.render(10).every((v) => v === 0), 'silent while paused');
    assert.equal(p.position(), paused);
    p.send({ type: 'resume' });
    assert.ok(p.render(1).some((v) => v !== 0), 'plays again from where it paused');
    p.send({ type: 'stop' });
    const stoppedAt = p.position()!;
    assert.ok(stoppedAt > paused && stoppedAt < paused + 5, String(stoppedAt));
    assert.ok(p.render(10).every((v) => v === 0), 'nothing after the stop');
    // After a flush the stream continues where the main side says.
    p.send({ type: 'chunk', samples: sine(300, 16000, 100), sampleRate: 16000, from: stoppedAt });
    p.render(8); // one report is due after 20 ms
    assert.ok(Math.abs(p.position()! - (stoppedAt + ((8 * QUANTUM) / RATE) * 1000)) < 0.5, String(p.position()));
  });

  it('ducking ramps the volume down over about 20 ms and back up, without a gap; a stop restores it', () => {
    const p = player();
    p.send({ type: 'chunk', samples: new Float32Array(16000).fill(0.8), sampleRate: 16000, from: 0 });
    assert.ok(p.render(1).every((v) => Math.abs(v - 0.8) < 1e-6));
    p.send({ type: 'duck', gain: 0.25 });
    const ramp = p.render(10); // 26.7 ms
    assert.ok(ramp[0]! < 0.8 && ramp[0]! > 0.79, 'starts at once, smoothly');
    assert.ok(Math.abs(ramp.at(-1)! - 0.2) < 1e-6, `down after the ramp: ${ramp.at(-1)}`);
    assert.ok(ramp.every((v) => v > 0), 'no gap');
    p.send({ type: 'duck', gain: 1 });
    p.render(10);
    assert.ok(Math.abs(p.render(1)[0]! - 0.8) < 1e-6, 'back to full');
    p.send({ type: 'duck', gain: 0.25 });
    p.render(10);
    p.send({ type: 'stop' });
    p.send({ type: 'chunk', samples: new Float32Array(1600).fill(0.8), sampleRate: 16000, from: 100 });
    assert.ok(Math.abs(p.render(1)[0]! - 0.8) < 1e-6, 'the next answer at full volume');
  });
});
