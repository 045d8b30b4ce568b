/**
 * The input level policies on synthetic signals: the automatic gain (AutoGain), the speaker-relative
 * speech boundaries (EnergyTracker) and the recognizer's post-roll (PostRoll). Real engines on real
 * speech are in quiet-input.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SttSession } from '../electron/engines/stt';
import { AutoGain, MAX_GAIN_DB, NOISE_BELOW_TARGET_DB, PEAK_LIMIT, TARGET_DB } from '../electron/pipeline/listen/auto-gain';
import { EnergyTracker, SUBFRAME } from '../electron/pipeline/listen/energy';
import { POST_ROLL_MS, PostRoll } from '../electron/pipeline/listen/post-roll';
import { SpeechLevel } from '../electron/pipeline/listen/speech-level';

const RATE = 16000;
const N = 512; // one 32 ms window

/** 8 ms sub-frame levels (dBFS) of a signal. */
function levels(x: Float32Array): number[] {
  const out: number[] = [];
  for (let o = 0; o + SUBFRAME <= x.length; o += SUBFRAME) {
    let s = 0;
    for (let i = o; i < o + SUBFRAME; i++) s += x[i]! * x[i]!;
    out.push(10 * Math.log10(s / SUBFRAME + 1e-12));
  }
  return out;
}

/** The level the loud part of a voice reaches: the 90th percentile of its sub-frames above -90 dBFS. */
function voiceLevel(x: Float32Array): number {
  const l = levels(x).filter((d) => d > -90).sort((a, b) => a - b);
  return l[Math.floor(0.9 * (l.length - 1))]!;
}

function rms(x: Float32Array): number {
  return 10 * Math.log10(x.reduce((a, v) => a + v * v, 0) / x.length + 1e-12);
}

/**
 * A voice-like signal: a buzzy harmonic tone in syllables (4 a second, each rising and falling by
 * more than 20 dB), deterministic, scaled so its loud part is at `levelDb`.
 */
function voice(seconds: number, levelDb: number): Float32Array {
  const x = new Float32Array(Math.round(seconds * RATE));
  let phase = 0;
  for (let i = 0; i < x.length; i++) {
    const t = i / RATE;
    phase += (2 * Math.PI * 140 * (1 + 0.08 * Math.sin(2 * Math.PI * 0.9 * t))) / RATE;
    let v = 0;
    for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h;
    x[i] = v * Math.sin(Math.PI * ((4 * t) % 1)) ** 2;
  }
  const g = 10 ** ((levelDb - voiceLevel(x)) / 20);
  return x.map((v) => v * g);
}

/** White noise at `rmsDb` (a seeded generator: the same every run). */
function noise(seconds: number, rmsDb: number, seed = 1): Float32Array {
  let s = seed;
  const x = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < x.length; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    x[i] = s / 2 ** 32 - 0.5;
  }
  const g = 10 ** ((rmsDb - rms(x)) / 20);
  return x.map((v) => v * g);
}

const silence = (seconds: number) => new Float32Array(Math.round(seconds * RATE));

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function mix(a: Float32Array, b: Float32Array): Float32Array {
  return a.map((v, i) => v + (b[i] ?? 0));
}

/** Runs the gain over whole windows; per window: its start (ms), the gain after it, input and output. */
function run(x: Float32Array, agc = new AutoGain()) {
  const windows: { ms: number; gainDb: number; input: Float32Array; output: Float32Array }[] = [];
  for (let o = 0; o + N <= x.length; o += N) {
    const input = x.subarray(o, o + N);
    const output = agc.process(input);
    windows.push({ ms: (o / RATE) * 1000, gainDb: agc.gainDb, input, output });
  }
  const output = concat(...windows.map((w) => w.output));
  return { agc, windows, output, gainAt: (ms: number) => windows.filter((w) => w.ms <= ms).at(-1)!.gainDb };
}

describe('automatic input gain', () => {
  it('raises a voice 30 dB down to the speech target within 150 ms of its first syllable', () => {
    const { windows, output, gainAt } = run(concat(silence(0.5), voice(2, -46)));
    assert.ok(gainAt(650) >= 20, `gain ${gainAt(650)} dB 150 ms after the onset`);
    assert.ok(windows.every((w) => w.gainDb <= MAX_GAIN_DB));
    const last = voiceLevel(output.subarray(RATE * 1.5));
    assert.ok(Math.abs(last - TARGET_DB) <= 3, `the voice ends up at ${last.toFixed(1)} dBFS, target ${TARGET_DB}`);
  });

  it('leaves a voice already at speech level (a close microphone) as it is', () => {
    const x = concat(silence(0.5), voice(2, -14));
    const { windows } = run(x);
    // Past the first syllable's onset the output is the input, sample for sample.
    for (const w of windows.filter((w) => w.ms >= 600)) assert.deepEqual(w.output, w.input, `window at ${w.ms} ms`);
    assert.ok(windows.every((w) => w.gainDb <= 10), 'the onset of a loud voice is never raised much');
  });

  it('never raises steady noise, whether it is there from the start or starts after silence', () => {
    for (const x of [noise(5, -60), concat(silence(0.5), noise(5, -60)), noise(5, -75)]) {
      const { windows } = run(x);
      assert.ok(windows.every((w) => w.gainDb === 0), `gain rose to ${Math.max(...windows.map((w) => w.gainDb))} dB on noise`);
    }
  });

  it('keeps the noise of a quiet room well under the speech target, and holds the gain while nobody speaks', () => {
    // A voice 30 dB down over a hiss 20 dB under it, then 3 s of the hiss alone.
    const hiss = noise(6, -70);
    const x = mix(concat(voice(2.5, -48), silence(3.5)), hiss);
    const { windows } = run(x);
    const afterVoice = windows.filter((w) => w.ms >= 2600);
    const held = afterVoice[0]!.gainDb;
    assert.ok(held > 10, `the voice was raised (${held} dB)`);
    // It may only come down, and only a little, as the floor estimate moves with the hiss.
    assert.ok(afterVoice.every((w) => w.gainDb <= held && w.gainDb >= held - 1), 'the gain holds while only the hiss is heard');
    const hissOut = rms(concat(...afterVoice.map((w) => w.output)));
    assert.ok(hissOut <= TARGET_DB - NOISE_BELOW_TARGET_DB + 1, `the hiss comes out at ${hissOut.toFixed(1)} dBFS`);
  });

  it('a second utterance after a long silence is raised from its first window', () => {
    const { windows } = run(concat(voice(1.5, -46), silence(3), voice(1, -46)));
    const second = windows.find((w) => w.ms >= 4500)!;
    assert.ok(second.gainDb >= 20, `gain ${second.gainDb} dB at the second utterance`);
  });

  it("does not learn the level of the assistant's own voice: the quiet speaker keeps their gain", () => {
    const quiet = voice(1.5, -46);
    const assistant = voice(1, -26);
    const after = voice(1, -46);
    const gainAfter = (hold: boolean) => {
      const agc = new AutoGain();
      const feed = (x: Float32Array, h = false) => {
        for (let o = 0; o + N <= x.length; o += N) agc.process(x.subarray(o, o + N), h);
      };
      feed(quiet);
      const before = agc.gainDb;
      feed(assistant, hold);
      feed(after.subarray(0, 0.3 * RATE));
      return { before, after: agc.gainDb };
    };
    const held = gainAfter(true);
    assert.ok(held.before >= 20, `raised ${held.before} dB`);
    assert.ok(held.after >= held.before - 1, `back to ${held.after} dB within 300 ms of the speaker`);
    // Had it learnt from that voice, the quiet speaker would have lost the gain.
    const learnt = gainAfter(false);
    assert.ok(learnt.after < held.before - 10, `learning it would leave ${learnt.after} dB`);
  });

  it('comes down at once for a loud sound: no peak passes the limit', () => {
    const loud = voice(0.5, -10);
    const shout = loud.map((v) => (v * 0.5) / loud.reduce((m, u) => Math.max(m, Math.abs(u)), 0)); // peaks at 0.5
    const { windows, output } = run(concat(voice(1.5, -46), shout, voice(1, -46)));
    const peak = output.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    assert.ok(peak <= PEAK_LIMIT + 1e-6, `peak ${peak}`);
    const during = windows.filter((w) => w.ms >= 1600 && w.ms < 2000);
    assert.ok(during.every((w) => w.gainDb < 5), 'the gain is down once the loud voice has been heard');
  });

  it('never attenuates: an input that clips already passes unchanged', () => {
    const x = voice(2, -3).map((v) => Math.max(-1, Math.min(1, v * 2)));
    const { windows } = run(x);
    for (const w of windows) assert.deepEqual(w.output, w.input);
  });

  it('raises by at most MAX_GAIN_DB, however quiet the voice', () => {
    const { windows } = run(concat(silence(0.5), voice(2, -70)));
    const top = Math.max(...windows.map((w) => w.gainDb));
    assert.equal(top, MAX_GAIN_DB);
  });

  it('gives the audio from before an onset at the gain the voice is being brought to', () => {
    // At the second window of a quiet voice the gain is still rising; the lead-in is given at the
    // level the voice settles at, not at what the gain had reached then.
    const x = concat(silence(0.5), voice(2, -46));
    const agc = new AutoGain();
    const onset = 0.5 * RATE;
    let o = 0;
    for (; o < onset + 2 * N; o += N) agc.process(x.subarray(o, o + N));
    const reached = agc.gainDb;
    const raw = x.subarray(onset, o);
    const given = rms(agc.atSpeechGain(raw)) - rms(raw);
    for (; o + N <= x.length; o += N) agc.process(x.subarray(o, o + N));
    const settled = agc.gainDb;
    assert.ok(reached < settled - 5, `the gain was still rising (${reached} of ${settled} dB)`);
    assert.ok(Math.abs(given - settled) <= 6, `lead-in given at +${given.toFixed(1)} dB, the voice settled at +${settled} dB`);
  });
});

describe('speech level (the loud part of a voice)', () => {
  it('settles near the 90th percentile of what it hears, and one loud click barely moves it', () => {
    const level = new SpeechLevel();
    for (let i = 0; i < 4000; i++) level.push(-40 + 20 * ((i * 7919) % 1000) / 1000); // even over -40..-20
    assert.ok(Math.abs(level.value! - -22) <= 2, `level ${level.value}`);
    level.push(0);
    for (let i = 0; i < 400; i++) level.push(-40 + 20 * ((i * 7919) % 1000) / 1000);
    assert.ok(Math.abs(level.value! - -22) <= 3, `after a click: ${level.value}`);
  });
});

describe('speech over the echo must reach the speaker\'s own level (EnergyTracker.reachesVoice)', () => {
  /** A tracker that has heard a voice at `levelDb` as speech. */
  function heard(levelDb: number): EnergyTracker {
    const energy = new EnergyTracker(RATE, 4000);
    const x = voice(1, levelDb);
    for (let o = 0; o + N <= x.length; o += N) energy.push(x.subarray(o, o + N), true);
    return energy;
  }
  /** The loudest window of a signal: what a syllable's peak brings. */
  function loudest(x: Float32Array): Float32Array {
    let best = x.subarray(0, N);
    for (let o = 0; o + N <= x.length; o += N) if (rms(x.subarray(o, o + N)) > rms(best)) best = x.subarray(o, o + N);
    return best;
  }

  it('a voice 10 dB under the speaker reaches it; echo leftovers 25 dB under do not', () => {
    for (const level of [-16, -40]) {
      const energy = heard(level);
      assert.ok(energy.reachesVoice(loudest(voice(0.5, level - 10))), `10 dB under a speaker at ${level} dBFS`);
      assert.ok(!energy.reachesVoice(loudest(voice(0.5, level - 25))), `25 dB under a speaker at ${level} dBFS`);
    }
  });

  it('before any speech is heard, it measures against an assumed voice level (-22 dBFS)', () => {
    const energy = new EnergyTracker(RATE, 4000);
    assert.ok(energy.reachesVoice(loudest(voice(0.5, -30))));
    assert.ok(!energy.reachesVoice(loudest(voice(0.5, -50))));
  });
});

describe('speech boundaries relative to the speaker', () => {
  /** A voice at `levelDb` for 1 s whose last 100 ms fade 30 dB below it, then silence; returns the placed end. */
  function placedEnd(levelDb: number): number {
    const body = voice(1, levelDb);
    const tail = voice(0.1, levelDb - 30);
    const x = concat(silence(0.5), body, tail, silence(1));
    const energy = new EnergyTracker(RATE, 4000);
    let ms = 0;
    for (let o = 0; o + N <= x.length; o += N, ms += 32) energy.push(x.subarray(o, o + N), ms >= 500 && ms < 1600);
    return energy.lastActiveEnd(ms, 2000)!;
  }

  it('a weak last syllable 30 dB under the voice counts, for a loud and for a quiet speaker alike', () => {
    for (const level of [-16, -45]) {
      const end = placedEnd(level);
      // The synthetic syllables fall to silence at their edges: the last audible sub-frame is within 40 ms of 1600.
      assert.ok(end >= 1560 && end <= 1600, `voice at ${level} dBFS: speech end placed at ${end} ms, true end 1600`);
    }
  });
});

describe('post-roll', () => {
  function session() {
    const got: number[] = [];
    let finished = false;
    const s: SttSession = {
      accept: (x) => got.push(x.length),
      finish: async () => {
        finished = true;
        return `${got.length} chunks`;
      },
      abort: () => {},
    };
    return { s, got, isFinished: () => finished };
  }

  it('a recognizer that heard enough past the speech end is finished as it is', () => {
    const roll = new PostRoll();
    const { s } = session();
    assert.equal(roll.hold(s, 1000, 1000 + POST_ROLL_MS), s);
  });

  it('one ended early hears the next windows up to POST_ROLL_MS past the speech end before it finishes', async () => {
    const roll = new PostRoll();
    const { s, got, isFinished } = session();
    const held = roll.hold(s, 2000, 2000);
    let text: string | null = null;
    void held.finish().then((t) => (text = t));
    for (let atMs = 2032; atMs <= 2000 + POST_ROLL_MS + 64; atMs += 32) {
      await new Promise((r) => setImmediate(r));
      assert.equal(isFinished(), false, `finished before ${atMs} ms`);
      roll.feed(new Float32Array(N), atMs);
      if (atMs >= 2000 + POST_ROLL_MS) break;
    }
    await new Promise((r) => setImmediate(r));
    assert.equal(got.length, Math.ceil(POST_ROLL_MS / 32));
    assert.equal(text, `${got.length} chunks`);
  });

  it('when the input stops, a waiting recognizer finishes with what it heard', async () => {
    const roll = new PostRoll();
    const { s, got } = session();
    const done = roll.hold(s, 2000, 2000).finish();
    roll.release();
    assert.equal(await done, '0 chunks');
    roll.feed(new Float32Array(N), 2032);
    assert.equal(got.length, 0, 'nothing is fed after it finished');
  });
});
