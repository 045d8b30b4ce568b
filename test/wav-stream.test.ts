import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { toMono16k } from '../electron/audio/resample';
import { encodeWav, parseWav, readWavFile } from '../electron/audio/wav';
import { Mono16kFrames, READ_FRAMES, WavReader, WavWriter } from '../electron/audio/wav-stream';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { UserError } from '../electron/errors';
import { SPEECH, tempDir } from './helpers';

const dir = tempDir('lva-wav-stream-');

/** A WAV of `frames` frames in `channels` channels, float 64-bit (the widest format), a sweep per channel. */
function f64Wav(file: string, rate: number, channels: number, frames: number): void {
  const data = Buffer.alloc(frames * channels * 8);
  for (let i = 0; i < frames; i++) for (let c = 0; c < channels; c++) data.writeDoubleLE(0.5 * Math.sin((i * (c + 1) * 0.01 * i) / frames), (i * channels + c) * 8);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8, 'ascii');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(3, 20);
  head.writeUInt16LE(channels, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * channels * 8, 28);
  head.writeUInt16LE(channels * 8, 32);
  head.writeUInt16LE(64, 34);
  head.write('data', 36, 'ascii');
  head.writeUInt32LE(data.length, 40);
  writeFileSync(file, Buffer.concat([head, data]));
}

/** Every frame the streamed reader gives, back to back, and how many samples it counted. */
function streamAll(file: string, frameLength = 512): { joined: Float32Array; samples: number; frames: number } {
  const frames = new Mono16kFrames(WavReader.open(file), frameLength);
  const parts: Float32Array[] = [];
  for (let f = frames.next(); f; f = frames.next()) parts.push(f);
  const joined = new Float32Array(parts.length * frameLength);
  parts.forEach((p, i) => joined.set(p, i * frameLength));
  return { joined, samples: frames.samples, frames: parts.length };
}

describe('Mono16kFrames: a WAV read a block at a time', () => {
  const clips = readdirSync(SPEECH).filter((f) => f.endsWith('.wav'));
  it('gives exactly what toMono16k gives for the whole file, for every shared clip', async () => {
    assert.ok(clips.length >= 5);
    for (const clip of clips) {
      const file = path.join(SPEECH, clip);
      const whole = toMono16k(await readWavFile(file));
      const { joined, samples, frames } = streamAll(file);
      assert.equal(samples, whole.length, clip);
      assert.equal(frames, Math.ceil(whole.length / 512), clip);
      assert.deepEqual(joined.subarray(0, whole.length), whole, clip);
      assert.ok(joined.subarray(whole.length).every((x) => x === 0), `${clip}: the last frame is padded with silence`);
    }
  });

  it('stereo 44.1 kHz float 64, over many blocks: the same as toMono16k', async () => {
    const file = path.join(dir, 'sweep.wav');
    f64Wav(file, 44100, 2, READ_FRAMES * 3 + 777);
    const whole = toMono16k(parseWav(readFileSync(file), file));
    const { joined, samples } = streamAll(file, 480);
    assert.equal(samples, whole.length);
    assert.deepEqual(joined.subarray(0, whole.length), whole);
  });

  it('a thousand channels are read in small blocks (a read stays within 1 MB), the same as toMono16k', () => {
    const channels = 1000;
    const frames = 3000;
    const data = Buffer.alloc(frames * channels * 2);
    for (let i = 0; i < frames * channels; i++) data.writeInt16LE(((i * 7919) % 65536) - 32768, i * 2);
    const head = Buffer.from(encodeWav(new Float32Array(0), 8000));
    head.writeUInt32LE(36 + data.length, 4);
    head.writeUInt16LE(channels, 22);
    head.writeUInt32LE(8000 * channels * 2, 28);
    head.writeUInt16LE(channels * 2, 32);
    head.writeUInt32LE(data.length, 40);
    const file = path.join(dir, 'many.wav');
    writeFileSync(file, Buffer.concat([head, data]));
    const whole = toMono16k(parseWav(readFileSync(file), file));
    const { joined, samples } = streamAll(file);
    assert.equal(samples, whole.length);
    assert.deepEqual(joined.subarray(0, whole.length), whole);
  });

  it('a file cut short after it was opened ends where it now ends', () => {
    const file = path.join(dir, 'shrinks.wav');
    writeFileSync(file, encodeWav(new Float32Array(READ_FRAMES * 4).fill(0.25), 16000));
    const frames = new Mono16kFrames(WavReader.open(file), 512);
    assert.ok(frames.next());
    writeFileSync(file, readFileSync(file).subarray(0, 44 + READ_FRAMES * 2 * 2 + 1));
    let n = 1;
    while (frames.next()) n++;
    assert.equal(frames.samples, READ_FRAMES * 2);
    assert.equal(n, (READ_FRAMES * 2) / 512);
  });

  it('refuses a folder, a missing file and a broken header with the errors readWavFile gives', async () => {
    const broken = path.join(dir, 'broken.wav');
    writeFileSync(broken, Buffer.from(encodeWav(new Float32Array(100), 16000)).subarray(0, 60).fill(7, 40, 44));
    for (const file of [dir, path.join(dir, 'nope.wav'), broken]) {
      const whole = await readWavFile(file).then(() => null, (e: unknown) => e);
      assert.ok(whole instanceof UserError, String(whole));
      assert.throws(() => WavReader.open(file), (e: unknown) => e instanceof UserError && e.message === whole.message && e.code === whole.code);
    }
  });

  it('refuses a device without waiting on it', () => {
    assert.throws(() => WavReader.open('/dev/zero'), /\/dev\/zero is not a file/);
  });
});

describe('WavWriter: a WAV written as it comes', () => {
  const x = Float32Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 7) * (i % 3 === 0 ? 1.5 : 0.7));

  it('writes the bytes encodeWav gives, in pieces of any size, and leaves no temporary file', () => {
    const sub = tempDir('lva-wav-writer-');
    const file = path.join(sub, 'out.wav');
    const w = new WavWriter(file, 22050);
    for (let at = 0, step = 1; at < x.length; at += step, step = step * 3 + 1) w.write(x.subarray(at, at + step));
    w.close();
    assert.deepEqual(readFileSync(file), encodeWav(x, 22050));
    assert.deepEqual(readdirSync(sub), ['out.wav']);
  });

  it('close(length) cuts or pads with silence to exactly that length', () => {
    const file = path.join(dir, 'cut.wav');
    const cut = new WavWriter(file, 16000);
    cut.write(x);
    cut.close(1234);
    assert.deepEqual(readFileSync(file), encodeWav(x.subarray(0, 1234), 16000));
    const padded = new WavWriter(file, 16000);
    padded.write(x.subarray(0, 10));
    padded.close(200_000);
    const expected = new Float32Array(200_000);
    expected.set(x.subarray(0, 10));
    assert.deepEqual(readFileSync(file), encodeWav(expected, 16000));
  });

  it('abort() leaves nothing behind, and a length past 4 GB is refused up front', () => {
    const sub = tempDir('lva-wav-abort-');
    const w = new WavWriter(path.join(sub, 'gone.wav'), 16000);
    w.write(x);
    w.abort();
    assert.deepEqual(readdirSync(sub), []);
    assert.throws(() => new WavWriter(path.join(sub, 'huge.wav'), 16000, 3e9), /would pass the 4 GB a WAV file can hold/);
    assert.deepEqual(readdirSync(sub), []);
  });
});

describe('TimelineOutput.renderRange: the timeline in pieces', () => {
  it('pieces of any size, back to back, are exactly render(), with pauses, a stop and a volume ramp', () => {
    const out = new TimelineOutput();
    const tone = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i / 5) * 0.5);
    out.enqueue(tone(22050), 22050, 1000.3);
    out.pause(1400.7);
    out.resume(2100.1);
    out.duck(2300.5, 0.3);
    out.duck(2600, 1);
    out.enqueue(tone(11025), 22050, 2700);
    out.stop(3300.9);
    out.enqueue(tone(5000), 22050, 5000.25);
    const whole = out.render(22050, 7000);
    assert.equal(out.renderLength(22050, 7000), whole.length);
    for (const piece of [1, 333, 4096, whole.length]) {
      const parts = new Float32Array(whole.length);
      for (let at = 0; at < whole.length; at += piece) parts.set(out.renderRange(22050, at, Math.min(piece, whole.length - at)), at);
      assert.deepEqual(parts, whole, `pieces of ${piece}`);
    }
    assert.ok(whole.some((v) => v !== 0));
  });
});
