import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AssistantAudio, type AssistantAudioControl } from '../electron/ipc-contract';
import { DUCK_RAMP_MS, TimelineOutput } from '../electron/pipeline/speak/output';
import { RendererOutput, type AudioSink } from '../electron/renderer-output';

const ones = (ms: number, rate = 16000) => new Float32Array(Math.round((ms / 1000) * rate)).fill(1);
/** Times (ms, 1 ms resolution) at which a rendered 16 kHz buffer is sounding. */
const sounding = (x: Float32Array) => {
  const spans: [number, number][] = [];
  for (let ms = 0; ms * 16 < x.length; ms++) {
    const on = x[ms * 16 + 8]! !== 0;
    const last = spans[spans.length - 1];
    if (on && last && last[1] === ms) last[1] = ms + 1;
    else if (on) spans.push([ms, ms + 1]);
  }
  return spans;
};

describe('playback schedule (the speaker on the pipeline clock)', () => {
  it('plays queued audio back to back, and from now after running dry', () => {
    const out = new TimelineOutput();
    assert.deepEqual(out.enqueue(ones(500), 16000, 100), { from: 0, to: 500, startMs: 100, endMs: 600 });
    assert.deepEqual(out.enqueue(ones(100), 16000, 200), { from: 500, to: 600, startMs: 600, endMs: 700 });
    assert.equal(out.endMs, 700);
    assert.equal(out.position(650), 550);
    assert.equal(out.position(900), 600);
    assert.deepEqual(out.enqueue(ones(100), 16000, 1000), { from: 600, to: 700, startMs: 1000, endMs: 1100 });
    assert.deepEqual(sounding(out.render(16000)), [[100, 700], [1000, 1100]]);
  });

  it('pause holds the rest of the queue; resume plays it from where it paused, nothing lost', () => {
    const out = new TimelineOutput();
    out.enqueue(ones(1000), 16000, 0);
    out.pause(300);
    assert.equal(out.paused, true);
    assert.equal(out.position(800), 300);
    assert.equal(out.endMs, Infinity);
    // Audio queued while paused waits too.
    out.enqueue(ones(200), 16000, 500);
    out.resume(900);
    assert.equal(out.position(1000), 400);
    assert.equal(out.endMs, 900 + 900);
    assert.deepEqual(sounding(out.render(16000)), [[0, 300], [900, 1800]]);
    assert.equal(out.audible(400, 16 * 100), null, 'nothing was audible while paused');
  });

  it('stop flushes the queue; later audio starts from the stop', () => {
    const out = new TimelineOutput();
    out.enqueue(ones(1000), 16000, 0);
    out.enqueue(ones(1000), 16000, 0);
    assert.equal(out.stop(250), 250);
    assert.equal(out.queuedTo, 250);
    assert.ok(out.endMs <= 250);
    assert.deepEqual(out.enqueue(ones(100), 16000, 400), { from: 250, to: 350, startMs: 400, endMs: 500 });
    assert.deepEqual(sounding(out.render(16000)), [[0, 250], [400, 500]]);
    // Stopping while paused flushes what was held.
    out.pause(450);
    out.stop(600);
    out.enqueue(ones(100), 16000, 700);
    assert.deepEqual(sounding(out.render(16000)), [[0, 250], [400, 450], [700, 800]]);
  });

  it('audible() gives what played in a span at 16 kHz, resampled from the voice rate', () => {
    const out = new TimelineOutput();
    out.enqueue(ones(200, 22050), 22050, 100);
    const ref = out.audible(0, 16 * 400)!;
    assert.equal(ref.length, 6400);
    assert.ok(Math.abs(ref[16 * 200]! - 1) < 0.01);
    assert.equal(ref[16 * 50], 0);
    assert.equal(ref[16 * 350], 0);
    assert.equal(out.audible(400, 512), null);
  });
});

describe('playback volume (ducking)', () => {
  it('a lowered answer plays on at the new volume, ramped; the echo reference and the render both carry it; a stop brings it back', () => {
    const out = new TimelineOutput();
    out.enqueue(ones(1000), 16000, 0);
    out.duck(200, 0.25);
    const ref = out.audible(0, 16 * 600)!;
    assert.equal(ref[16 * 100], 1);
    assert.ok(Math.abs(ref[16 * 210]! - (1 - 0.75 * 0.5)) < 0.01, `half way down the ${DUCK_RAMP_MS} ms ramp: ${ref[16 * 210]}`);
    assert.equal(ref[16 * 300], 0.25);
    assert.equal(out.position(600), 600, 'no gap: the stream went on');
    out.duck(600, 1);
    assert.equal(out.render(16000)[16 * 700], 1);
    assert.equal(out.render(16000)[16 * 400], 0.25);
    out.duck(800, 0.25);
    out.stop(900);
    out.enqueue(ones(100), 16000, 1000);
    assert.equal(out.audible(1000, 16 * 100)![16 * 50], 1, 'the next answer plays at full volume');
  });

  it('RendererOutput tells the player the volume', () => {
    const sent: AssistantAudioControl[] = [];
    const out = new RendererOutput(() => ({ audio: () => {}, control: (c) => sent.push(c) }), { now: () => 0 });
    out.duck(100, 0.25);
    assert.deepEqual(sent, [{ action: 'duck', atMs: 100, gain: 0.25 }]);
  });
});

describe('RendererOutput', () => {
  function setup() {
    const sent: (AssistantAudio | AssistantAudioControl)[] = [];
    let connected = true;
    const sink: AudioSink = { audio: (a) => sent.push(a), control: (c) => sent.push(c) };
    let now = 0;
    const clock = { now: () => now };
    const out = new RendererOutput(() => (connected ? sink : null), clock);
    return { out, sent, setNow: (t: number) => (now = t), disconnect: () => (connected = false) };
  }

  it('schedules like the timeline and forwards audio (with its stream position) and pause/resume/stop', () => {
    const { out, sent, disconnect } = setup();
    const a = new Float32Array(8000);
    assert.deepEqual(out.enqueue(a, 16000, 100), { from: 0, to: 500, startMs: 100, endMs: 600 });
    out.pause(200);
    out.resume(300);
    assert.equal(out.stop(400), 400);
    assert.equal(sent.length, 4);
    const first = sent[0] as AssistantAudio;
    assert.equal(first.samples, a);
    assert.equal(first.startMs, 100);
    assert.equal(first.from, 0);
    assert.deepEqual(sent.slice(1), [
      { action: 'pause', atMs: 200 },
      { action: 'resume', atMs: 300 },
      { action: 'stop', atMs: 400 },
    ]);
    // With no renderer connected the audio is dropped but the timing stays.
    disconnect();
    assert.equal(out.enqueue(new Float32Array(1600), 16000, 3000).startMs, 3000);
    assert.equal(sent.length, 4);
  });

  it('cuts what was heard at the position the player reported, not the schedule estimate', () => {
    const { out, setNow } = setup();
    out.enqueue(new Float32Array(16000), 16000, 0); // 1 s of audio from t=0
    setNow(400);
    out.reportProgress(320); // the player runs 80 ms behind the schedule
    assert.equal(out.position(400), 320);
    assert.equal(out.position(450), 370, 'extrapolated from the report');
    // A stale report (player gone) falls back to the schedule.
    assert.equal(out.position(1000), 1000);
    setNow(600);
    out.reportProgress(520);
    out.stop(600);
    assert.equal(out.queuedTo, 520, 'the flush keeps only what was played');
    // After the flush, the next audio starts where the player stopped.
    assert.equal(out.enqueue(new Float32Array(1600), 16000, 700).from, 520);
  });
});

describe('the silence around a playback position (quietAround)', () => {
  it('counts the quiet queued audio each way from a position, across clauses, up to the limit, and stops at what is not queued', () => {
    const out = new TimelineOutput();
    const rate = 22050;
    const clause = (soundMs: number, quietMs: number) => {
      const x = new Float32Array(Math.round(((soundMs + quietMs) / 1000) * rate));
      x.fill(0.2, 0, Math.round((soundMs / 1000) * rate));
      return x;
    };
    out.enqueue(clause(500, 120), rate, 0); // sound [0, 500), quiet [500, 620)
    out.enqueue(clause(400, 0), rate, 0); // sound [620, 1020)
    const near = (a: number, b: number) => Math.abs(a - b) <= 5;
    const mid = out.quietAround(560, 250);
    assert.ok(near(mid.beforeMs, 60) && near(mid.afterMs, 60), JSON.stringify(mid));
    assert.deepEqual(out.quietAround(300, 250), { beforeMs: 0, afterMs: 0 }, 'inside speech');
    const end = out.quietAround(500, 250);
    assert.ok(near(end.beforeMs, 0) && near(end.afterMs, 120), JSON.stringify(end));
    assert.ok(near(out.quietAround(560, 30).afterMs, 30), 'the limit');
    assert.deepEqual(out.quietAround(1020, 250), { beforeMs: 0, afterMs: 0 }, 'nothing queued after the end');
  });
});
