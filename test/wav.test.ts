import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../electron/errors';
import { encodeWav, parseWav, readWavFile, writeWavFile, type DecodedAudio } from '../electron/audio/wav';
import { downmix, resample, StreamingResampler, toMono16k } from '../electron/audio/resample';

const SPEECH = fileURLToPath(new URL('../../shared/speech/', import.meta.url));
const noSpeech = existsSync(path.join(SPEECH, 'manifest.json')) ? false : 'no ../shared/speech clips here';

// ---------- helpers ----------

interface Spec {
  code?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  extensible?: boolean;
  data?: Buffer;
  before?: Buffer[]; // extra chunks before fmt
  noFmt?: boolean;
  noData?: boolean;
}

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  // Odd-sized chunks carry a pad byte that is not counted in the size.
  return Buffer.concat([head, body, Buffer.alloc(body.length & 1)]);
}

function buildWav(s: Spec): Buffer {
  const code = s.code ?? 1;
  const channels = s.channels ?? 1;
  const rate = s.rate ?? 16000;
  const bits = s.bits ?? 16;
  const fmt = Buffer.alloc(s.extensible ? 40 : 16);
  fmt.writeUInt16LE(s.extensible ? 0xfffe : code, 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 8);
  fmt.writeUInt16LE((channels * bits) / 8, 12);
  fmt.writeUInt16LE(bits, 14);
  if (s.extensible) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(bits, 18);
    fmt.writeUInt32LE(channels === 2 ? 3 : 4, 20);
    fmt.writeUInt16LE(code, 24);
    Buffer.from([0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71]).copy(fmt, 26);
  }
  const parts = [...(s.before ?? [])];
  if (!s.noFmt) parts.push(chunk('fmt ', fmt));
  if (!s.noData) parts.push(chunk('data', s.data ?? Buffer.alloc(8)));
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(4 + body.length, 4);
  head.write('WAVE', 8, 'ascii');
  return Buffer.concat([head, body]);
}

function expectUserError(fn: () => unknown, label: string, code: string, ...mustContain: (string | RegExp)[]): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof UserError, `expected a UserError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.ok(err.message.includes(label), `message must name the file: ${err.message}`);
  assert.ok(!err.message.includes('\n'), 'message must be one line');
  for (const m of mustContain) {
    if (typeof m === 'string') assert.ok(err.message.includes(m), `"${err.message}" lacks "${m}"`);
    else assert.match(err.message, m);
  }
}

function rms(x: Float32Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! ** 2;
  return Math.sqrt(s / Math.max(1, to - from));
}

function correlation(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! ** 2;
    bb += b[i]! ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

function sine(freq: number, rate: number, seconds: number, amp = 1): Float32Array {
  const x = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < x.length; i++) x[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return x;
}

/** Deterministic PRNG so chunk sizes are random but repeatable. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function streamInChunks(x: Float32Array, from: number, to: number, rnd: () => number, maxChunk: number): Float32Array {
  const r = new StreamingResampler(from, to);
  const parts: Float32Array[] = [];
  for (let i = 0; i < x.length; ) {
    const n = Math.min(x.length - i, Math.floor(rnd() * maxChunk)); // zero-length chunks too
    parts.push(r.push(x.subarray(i, i + n)));
    i += n;
  }
  parts.push(r.flush());
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

// ---------- WAV encode / parse ----------

describe('wav encode/parse', () => {
  test('round trip keeps rate, length and samples (clamped, rounded)', () => {
    const x = new Float32Array([0, 0.5, -0.5, 1, -1, 2, -2, 0.25, 1e-5, NaN]);
    const a = parseWav(encodeWav(x, 22050), 'mem.wav');
    assert.equal(a.sampleRate, 22050);
    assert.equal(a.channels, 1);
    assert.equal(a.format, 's16');
    assert.equal(a.channelData.length, 1);
    assert.ok(Math.abs(a.durationSec - x.length / 22050) < 1e-12);
    const y = a.channelData[0]!;
    const want = [0, 0.5, -0.5, 32767 / 32768, -1, 32767 / 32768, -1, 0.25, 0, 0];
    for (let i = 0; i < want.length; i++) assert.ok(Math.abs(y[i]! - want[i]!) < 1e-9, `sample ${i}: ${y[i]}`);
  });

  test('decoded s16 audio round-trips exactly', () => {
    const x = sine(440, 16000, 0.1, 0.8);
    const once = parseWav(encodeWav(x, 16000), 'a.wav').channelData[0]!;
    const twice = parseWav(encodeWav(once, 16000), 'b.wav').channelData[0]!;
    assert.deepEqual(twice, once);
    assert.ok(maxAbsDiff(once, x) <= 1 / 32768);
  });

  test('u8, s24, s32, f32, f64, extensible, stereo, LIST and odd chunks', () => {
    const vals = [0, 0.5, -0.5, -1];
    const u8 = Buffer.from(vals.map((v) => Math.round(v * 128 + 128)));
    assert.deepEqual([...parseWav(buildWav({ bits: 8, data: u8 }), 'u8.wav').channelData[0]!], vals);

    const s24 = Buffer.alloc(12);
    vals.forEach((v, i) => s24.writeIntLE(Math.round(v * 8388608), i * 3, 3));
    const a24 = parseWav(buildWav({ bits: 24, data: s24 }), 's24.wav');
    assert.equal(a24.format, 's24');
    assert.deepEqual([...a24.channelData[0]!], vals);

    const s32 = Buffer.alloc(16);
    vals.forEach((v, i) => s32.writeInt32LE(Math.max(-2147483648, Math.round(v * 2147483648)), i * 4));
    assert.deepEqual([...parseWav(buildWav({ bits: 32, data: s32 }), 's32.wav').channelData[0]!], vals);

    const f32 = Buffer.alloc(16);
    [0.25, -0.75, 3, -3].forEach((v, i) => f32.writeFloatLE(v, i * 4));
    const af = parseWav(buildWav({ code: 3, bits: 32, data: f32 }), 'f32.wav');
    assert.equal(af.format, 'f32');
    assert.deepEqual([...af.channelData[0]!], [0.25, -0.75, 1, -1]); // overshoot clamped

    const f64 = Buffer.alloc(16);
    [0.125, -0.5].forEach((v, i) => f64.writeDoubleLE(v, i * 8));
    const a64 = parseWav(buildWav({ code: 3, bits: 64, data: f64 }), 'f64.wav');
    assert.equal(a64.format, 'f64');
    assert.deepEqual([...a64.channelData[0]!], [0.125, -0.5]);

    // Extensible float stereo behind a LIST chunk and an odd-sized chunk (pad byte).
    const st = Buffer.alloc(16);
    [0.5, -0.5, 0.25, 0.75].forEach((v, i) => st.writeFloatLE(v, i * 4));
    const odd = chunk('junk', Buffer.from([1, 2, 3]));
    const list = chunk('LIST', Buffer.from('INFOISFT\x05\x00\x00\x00test\x00\x00', 'latin1'));
    const ext = parseWav(
      buildWav({ code: 3, bits: 32, channels: 2, rate: 48000, extensible: true, data: st, before: [odd, list] }),
      'ext.wav',
    );
    assert.equal(ext.channels, 2);
    assert.equal(ext.sampleRate, 48000);
    assert.deepEqual([...ext.channelData[0]!], [0.5, 0.25]);
    assert.deepEqual([...ext.channelData[1]!], [-0.5, 0.75]);
    assert.deepEqual([...downmix(ext.channelData)], [0, 0.5]);

    // Extensible PCM 16, and a trailing chunk after data.
    const pcm = Buffer.alloc(4);
    pcm.writeInt16LE(16384, 0);
    pcm.writeInt16LE(-32768, 2);
    const withTail = Buffer.concat([buildWav({ extensible: true, data: pcm }), chunk('LIST', Buffer.alloc(5))]);
    assert.deepEqual([...parseWav(withTail, 'tail.wav').channelData[0]!], [0.5, -1]);
  });

  test('each bad input gives a one-line UserError naming the file', () => {
    expectUserError(() => parseWav(Buffer.alloc(0), 'empty.wav'), 'empty.wav', 'wav-empty', 'empty');
    expectUserError(
      () => parseWav(Buffer.from('ID3\x04 this is an mp3 file really'), 'song.mp3'),
      'song.mp3',
      'wav-not-wav',
      'is not a WAV file (no RIFF/WAVE header): give a PCM WAV file',
    );
    expectUserError(() => parseWav(Buffer.from('RIFF'), 'short.wav'), 'short.wav', 'wav-not-wav');
    expectUserError(() => parseWav(buildWav({ noFmt: true }), 'nofmt.wav'), 'nofmt.wav', 'wav-no-fmt', 'fmt');
    expectUserError(() => parseWav(buildWav({ noData: true }), 'nodata.wav'), 'nodata.wav', 'wav-no-data', 'data');
    expectUserError(
      () => parseWav(buildWav({ code: 6, bits: 8 }), 'alaw.wav'),
      'alaw.wav',
      'wav-unsupported-format',
      'A-law',
      '0x0006',
      'sox in.wav -b 16 out.wav',
    );
    expectUserError(() => parseWav(buildWav({ code: 7, bits: 8 }), 'ulaw.wav'), 'ulaw.wav', 'wav-unsupported-format', 'mu-law');
    expectUserError(() => parseWav(buildWav({ code: 0x11, bits: 4 }), 'ima.wav'), 'ima.wav', 'wav-unsupported-format', 'ADPCM');
    expectUserError(
      () => parseWav(buildWav({ code: 7, bits: 8, extensible: true }), 'extulaw.wav'),
      'extulaw.wav',
      'wav-unsupported-format',
      'mu-law',
    );
    expectUserError(() => parseWav(buildWav({ bits: 12 }), '12bit.wav'), '12bit.wav', 'wav-bad-bits', '12 bits');
    expectUserError(() => parseWav(buildWav({ code: 3, bits: 16 }), 'half.wav'), 'half.wav', 'wav-bad-bits', '16 bits');
    expectUserError(() => parseWav(buildWav({ channels: 0 }), 'zero.wav'), 'zero.wav', 'wav-no-channels', 'zero channels');
    expectUserError(() => parseWav(buildWav({ rate: 4000 }), 'slow.wav'), 'slow.wav', 'wav-bad-rate', '4000 Hz');
    expectUserError(() => parseWav(buildWav({ rate: 384000 }), 'fast.wav'), 'fast.wav', 'wav-bad-rate', '384000 Hz');
    expectUserError(
      () => parseWav(buildWav({ data: Buffer.alloc(0) }), 'silent.wav'),
      'silent.wav',
      'wav-no-samples',
      'no audio samples',
    );
    // One byte of 16-bit audio is not even one frame.
    expectUserError(() => parseWav(buildWav({ data: Buffer.alloc(1) }), 'onebyte.wav'), 'onebyte.wav', 'wav-no-samples');

    // Cut a valid file short: the data chunk now promises more than there is.
    const full = encodeWav(sine(440, 16000, 0.01), 16000); // 160 samples = 320 bytes
    expectUserError(
      () => parseWav(full.subarray(0, full.length - 100), 'cut.wav'),
      'cut.wav',
      'wav-truncated',
      'truncated',
      'expected 320 bytes of audio, found 220',
    );
  });

  test('a Uint8Array view at an odd offset parses like a Buffer', () => {
    const wav = encodeWav(new Float32Array([0.5, -0.25]), 8000);
    const backing = new Uint8Array(wav.length + 3);
    backing.set(wav, 3);
    const a = parseWav(backing.subarray(3), 'view.wav');
    assert.deepEqual([...a.channelData[0]!], [0.5, -0.25]);
  });
});

describe('wav files', () => {
  test('writeWavFile writes atomically and readWavFile reads it back', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wav-test-'));
    try {
      const file = path.join(dir, 'out.wav');
      const x = sine(300, 16000, 0.05, 0.5);
      await writeWavFile(file, x, 16000);
      await writeWavFile(file, x, 16000); // overwrite in place
      assert.deepEqual(await fs.readdir(dir), ['out.wav']); // no temp files left behind
      const a = await readWavFile(file);
      assert.equal(a.sampleRate, 16000);
      assert.ok(maxAbsDiff(a.channelData[0]!, x) <= 1 / 32768);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test('missing file and directory give UserErrors', async () => {
    const missing = path.join(os.tmpdir(), `no-such-${process.pid}.wav`);
    await assert.rejects(readWavFile(missing), (e: unknown) => {
      assert.ok(e instanceof UserError);
      assert.equal(e.code, 'wav-not-found');
      assert.ok(e.message.startsWith(missing) && e.message.includes('not found'), e.message);
      return true;
    });
    await assert.rejects(readWavFile(os.tmpdir()), (e: unknown) => e instanceof UserError && e.message.includes(os.tmpdir()));
  });
});

// ---------- real clips ----------

interface ManifestEntry {
  file: string;
  sampleRate: number;
  channels: number;
  format: string;
  duration: number;
}

describe('real speech clips', { skip: noSpeech }, () => {
  const manifest = (): Record<string, ManifestEntry> =>
    JSON.parse(readFileSync(path.join(SPEECH, 'manifest.json'), 'utf8')) as Record<string, ManifestEntry>;
  const load = (name: string): Promise<DecodedAudio> => readWavFile(path.join(SPEECH, name));

  test('parsed properties match the manifest', async () => {
    const m = manifest();
    for (const key of ['weather', 'weather_48k_stereo', 'weather_f32', 'weather_8k', 'weather_loud_clipped']) {
      const e = m[key]!;
      const a = await load(e.file);
      assert.equal(a.sampleRate, e.sampleRate, e.file);
      assert.equal(a.channels, e.channels, e.file);
      assert.equal(a.channelData.length, e.channels, e.file);
      assert.equal(a.format, e.format, e.file);
      assert.ok(Math.abs(a.durationSec - e.duration) < 0.002, `${e.file}: ${a.durationSec} vs ${e.duration}`);
    }
  });

  test('48 kHz stereo and float versions convert to the same 16 kHz mono', async () => {
    const ref = toMono16k(await load('weather.wav'));
    const refRms = rms(ref);
    for (const name of ['weather_48k_stereo.wav', 'weather_f32.wav']) {
      const y = toMono16k(await load(name));
      assert.ok(Math.abs(y.length - ref.length) <= 1, `${name}: ${y.length} vs ${ref.length}`);
      const n = Math.min(y.length, ref.length);
      const diff = new Float32Array(n);
      for (let i = 0; i < n; i++) diff[i] = y[i]! - ref[i]!;
      assert.ok(correlation(y, ref) > 0.99, `${name}: correlation ${correlation(y, ref)}`);
      assert.ok(rms(diff) < 0.05 * refRms, `${name}: rms diff ${rms(diff)} vs rms ${refRms}`);
    }
  });

  test('8 kHz version lines up in time with the 16 kHz original', async () => {
    const ref = toMono16k(await load('weather.wav'));
    const y = toMono16k(await load('weather_8k.wav'));
    assert.ok(Math.abs(y.length - ref.length) <= 1);
    // 32 ms frame RMS envelopes, cross-correlated over +-10 frames.
    const frame = 512;
    const env = (x: Float32Array) => {
      const e = new Float32Array(Math.floor(x.length / frame));
      for (let f = 0; f < e.length; f++) e[f] = rms(x, f * frame, (f + 1) * frame);
      return e;
    };
    const a = env(ref);
    const b = env(y);
    let bestLag = 0;
    let best = -Infinity;
    for (let lag = -10; lag <= 10; lag++) {
      let s = 0;
      for (let i = 0; i < a.length; i++) {
        const j = i + lag;
        if (j >= 0 && j < b.length) s += a[i]! * b[j]!;
      }
      if (s > best) [best, bestLag] = [s, lag];
    }
    assert.ok(Math.abs(bestLag) <= 1, `envelope lag ${bestLag} frames`);
    // Sample-level check: the original band-limited to 4 kHz matches closely.
    const limited = resample(resample(ref, 16000, 8000), 8000, 16000);
    assert.ok(correlation(limited, y) > 0.99, `band-limited correlation ${correlation(limited, y)}`);
  });

  test('loud clipped version decodes to full scale without wrapping', async () => {
    const a = await load('weather_loud_clipped.wav');
    const x = a.channelData[0]!;
    let peak = 0;
    for (const v of x) peak = Math.max(peak, Math.abs(v));
    assert.ok(peak > 0.95 && peak <= 1, `peak ${peak}`);
    // Hard clipping leaves flat tops at the peak level, on both signs.
    let atPos = 0;
    let atNeg = 0;
    for (const v of x) {
      if (v >= peak - 1e-6) atPos++;
      else if (v <= -peak + 1e-6) atNeg++;
    }
    assert.ok(atPos > 100 && atNeg > 100, `clipped samples: +${atPos} -${atNeg}`);
    const ref = (await load('weather.wav')).channelData[0]!;
    assert.ok(correlation(x, ref) > 0.8, `correlation ${correlation(x, ref)}`);
  });
});

// ---------- resampler ----------

describe('resample', () => {
  test('1 kHz sine 48k -> 16k keeps frequency, amplitude and timing', () => {
    const y = resample(sine(1000, 48000, 1), 48000, 16000);
    assert.equal(y.length, 16000);
    const ideal = sine(1000, 16000, 1);
    const mid = y.subarray(2000, 14000);
    const amp = rms(mid) * Math.SQRT2;
    assert.ok(Math.abs(amp - 1) < 0.02, `amplitude ${amp}`);
    // Zero group delay: the output is the sine sampled at k / 16000.
    let err = 0;
    for (let i = 2000; i < 14000; i++) err = Math.max(err, Math.abs(y[i]! - ideal[i]!));
    assert.ok(err < 0.01, `max error vs ideal ${err}`);
  });

  test('10 kHz sine 48k -> 16k is filtered out, not aliased', () => {
    const y = resample(sine(10000, 48000, 1), 48000, 16000);
    const r = rms(y, 2000, 14000);
    assert.ok(r < 0.05, `aliased rms ${r}`);
  });

  test('upsampling 16k -> 48k is accurate, a constant stays constant', () => {
    const y = resample(sine(1000, 16000, 1), 16000, 48000);
    const ideal = sine(1000, 48000, 1);
    let err = 0;
    for (let i = 6000; i < 42000; i++) err = Math.max(err, Math.abs(y[i]! - ideal[i]!));
    assert.ok(err < 0.01, `max error ${err}`);
    const c = resample(new Float32Array(5000).fill(0.3), 22050, 16000);
    for (let i = 200; i < c.length - 200; i++) assert.ok(Math.abs(c[i]! - 0.3) < 1e-5, `dc at ${i}: ${c[i]}`);
  });

  test('lengths preserve duration', () => {
    for (const [from, to] of [
      [22050, 16000],
      [16000, 22050],
      [48000, 16000],
      [8000, 16000],
      [44100, 16000],
      [16000, 44101],
    ] as const) {
      for (const n of [1, 2, 3, 1000, 22050 * 3 + 7]) {
        const y = resample(new Float32Array(n), from, to);
        assert.ok(Math.abs(y.length - Math.round((n * to) / from)) <= 1, `${from}->${to} n=${n}: ${y.length}`);
      }
    }
  });

  test('equal rates return a copy', () => {
    const x = new Float32Array([1, 2, 3]);
    const y = resample(x, 16000, 16000);
    assert.deepEqual(y, x);
    assert.notEqual(y, x);
  });

  test('streaming in random-sized chunks equals one-shot', () => {
    const rnd = prng(1234);
    const x = new Float32Array(30000);
    for (let i = 0; i < x.length; i++) x[i] = 0.6 * Math.sin(i * 0.03) + 0.3 * (rnd() * 2 - 1);
    for (const [from, to] of [
      [48000, 16000],
      [22050, 16000],
      [16000, 22050],
      [8000, 16000],
      [44100, 16000],
      [16000, 44101], // odd ratio: rounded filter phases
      [16000, 16000],
    ] as const) {
      const once = resample(x, from, to);
      for (const maxChunk of [7, 300, 5000]) {
        const streamed = streamInChunks(x, from, to, rnd, maxChunk);
        assert.ok(maxAbsDiff(streamed, once) <= 1e-4, `${from}->${to} chunks<=${maxChunk}`);
      }
    }
  });

  // How long this takes is a figure of `npm run bench` (electron/bench/micro.ts), not a test.
  test('60 s at 48 kHz converts to 60 s at 16 kHz', () => {
    const y = resample(sine(440, 48000, 60, 0.5), 48000, 16000);
    assert.equal(y.length, 960000);
  });
});
