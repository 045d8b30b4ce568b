import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeWav } from '../electron/audio/wav';
import { BlockConvolver, EchoSimulator, parseEchoSpec, readImpulseResponse, RoomSimulator } from '../electron/pipeline/run/echo';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { tempDir } from './helpers';

const frameAt = (echo: EchoSimulator, startMs: number) => {
  const f = new Float32Array(512);
  echo.mixInto(f, startMs);
  return f;
};

describe('echo simulation (talk --echo)', () => {
  it('mixes played audio back into the input at the given gain and delay', () => {
    const out = new TimelineOutput();
    out.enqueue(new Float32Array(16000).fill(0.5), 16000, 1000); // 1000-2000 ms
    const echo = new EchoSimulator(out, 0.5, 30);
    assert.ok(frameAt(echo, 992).every((x) => x === 0), 'nothing before the delayed start (960-992 ms heard)');
    assert.ok(frameAt(echo, 1030).every((x) => Math.abs(x - 0.25) < 1e-3), 'gain applied inside');
    const edge = frameAt(echo, 1014); // hears 984-1016 ms: the first 16 ms silent, then the echo
    assert.equal(edge[0], 0);
    assert.ok(Math.abs(edge[511]! - 0.25) < 1e-3);
  });

  it('stops echoing where playback was stopped (barge-in)', () => {
    const out = new TimelineOutput();
    out.enqueue(new Float32Array(16000).fill(0.5), 16000, 1000);
    out.stop(1500);
    const echo = new EchoSimulator(out, 1, 0);
    assert.ok(frameAt(echo, 1400).every((x) => x > 0.4));
    assert.ok(frameAt(echo, 1500).every((x) => x === 0));
  });

  it('parses GAIN:DELAY_MS and rejects nonsense', () => {
    assert.deepEqual(parseEchoSpec('0.5:30'), { gain: 0.5, delayMs: 30 });
    assert.equal(parseEchoSpec('loud'), null);
    assert.equal(parseEchoSpec('0.5'), null);
    assert.equal(parseEchoSpec('9:30'), null);
  });
});

/** A repeatable pseudo-random sequence in [-1, 1). */
function noise(n: number, seed: number): Float32Array {
  let x = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x / 2 ** 31 - 1;
  }
  return out;
}

/** The textbook sum, y[n] = Σ h[k] x[n - k]. */
function direct(x: Float32Array, h: Float32Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let n = 0; n < x.length; n++) {
    let s = 0;
    for (let k = 0; k < h.length && k <= n; k++) s += h[k]! * x[n - k]!;
    y[n] = s;
  }
  return y;
}

const maxError = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i]! - b[i]!));
  return e;
};

describe('room simulation (talk --room, bench --rooms)', () => {
  it('the block convolver equals a direct convolution, silent blocks and the tail included', () => {
    const B = 64;
    const h = noise(300, 7); // 5 pieces, the last one partial
    const x = noise(B * 40, 11);
    x.fill(0, B * 10, B * 20); // silence longer than the response: the skipped path
    x.fill(0, B * 33); // the tail rings on after the input stops
    const conv = new BlockConvolver(h, B);
    assert.equal(conv.parts, 5);
    const y = new Float32Array(x.length);
    for (let k = 0; k < x.length / B; k++) {
      const block = x.subarray(k * B, (k + 1) * B);
      conv.process(block.some((v) => v !== 0) ? block : null, y, k * B);
    }
    assert.ok(maxError(y, direct(x, h)) < 1e-5, `max error ${maxError(y, direct(x, h))}`);
  });

  it('convolves what was played, with gain and delay, and rings on after playback ends', () => {
    const out = new TimelineOutput();
    const played = noise(1600, 3); // 100 ms at 16 kHz, from 1000 ms
    out.enqueue(played, 16000, 1000);
    const ir = noise(2000, 5).map((v, i) => v * Math.exp(-i / 300));
    const gain = 0.5;
    const delayMs = 32;
    const room = new RoomSimulator(out, ir, gain, delayMs);
    const frames = 16;
    const y = new Float32Array(frames * 512);
    for (let k = 0; k < frames; k++) {
      const f = new Float32Array(512);
      room.mixInto(f, 960 + k * 32);
      y.set(f, k * 512);
    }
    // The input timeline from 960 ms: playback from 1000 ms, heard 32 ms later.
    const x = new Float32Array(y.length);
    x.set(played, (40 + delayMs) * 16);
    const expected = direct(x, ir).map((v) => v * gain);
    assert.ok(maxError(y, expected) < 1e-5, `max error ${maxError(y, expected)}`);
    assert.ok(Math.abs(y[(40 + delayMs + 100) * 16 + 100]!) > 0, 'the reverberation goes on after playback has ended');
  });

  it('reads an impulse response from any WAV and refuses a long or silent one, naming the flag', async () => {
    const dir = tempDir('lva-room-');
    const at8k = path.join(dir, 'ir8k.wav');
    writeFileSync(at8k, encodeWav(new Float32Array(800).fill(0.25), 8000));
    assert.equal((await readImpulseResponse(at8k, '--room')).length, 1600, 'resampled to 16 kHz');
    const long = path.join(dir, 'long.wav');
    writeFileSync(long, encodeWav(new Float32Array(16000 * 3).fill(0.1), 16000));
    await assert.rejects(readImpulseResponse(long, '--room'), /^UserError: --room: .*long\.wav is 3\.00 s long; an impulse response may last at most 2 s/);
    const silent = path.join(dir, 'silent.wav');
    writeFileSync(silent, encodeWav(new Float32Array(100), 16000));
    await assert.rejects(readImpulseResponse(silent, '--rooms'), /--rooms: .*silent\.wav is silent/);
    await assert.rejects(readImpulseResponse(path.join(dir, 'nope.wav'), '--room'), /--room: .*nope\.wav not found/);
  });
});
