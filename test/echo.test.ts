import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoSimulator, parseEchoSpec } from '../electron/pipeline/run/echo';
import { TimelineOutput } from '../electron/pipeline/speak/output';

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
