import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputTimeline, WindowFramer } from '../electron/pipeline/listen/mic-input';

describe('microphone input (pure, scripted clock)', () => {
  it('cuts audio of any length into 512-sample windows, zeroing non-finite samples and clamping', () => {
    const framer = new WindowFramer();
    assert.deepEqual(framer.push(new Float32Array(300).fill(0.5)), []);
    const tail = new Float32Array(1000).fill(2);
    tail[0] = NaN;
    tail[1] = -Infinity;
    tail[300] = -3;
    const windows = framer.push(tail);
    assert.equal(windows.length, 2, '1300 samples: two windows, 276 left over');
    assert.equal(windows[0]![0], 0.5);
    assert.equal(windows[0]![300], 0);
    assert.equal(windows[0]![301], 0);
    assert.equal(windows[0]![302], 1);
    assert.equal(windows[1]![88], -1, 'sample 300 of the second call');
    assert.equal(framer.push(new Float32Array(236)).length, 1);
  });

  it('ties input time to the clock at the first window, on the sample grid', () => {
    let now = 1000.01;
    const timeline = new InputTimeline({ now: () => now });
    // The first window ends now: it started 32 ms ago, rounded to a whole sample.
    assert.equal(timeline.windowStart(false), 968);
    timeline.advance(512);
    assert.equal(timeline.ms, 32);
    assert.equal(timeline.toClock(32), 1000);
    now = 1040; // jitter is not a pause
    assert.equal(timeline.windowStart(false), 1000);
  });

  it('ties again after a pause in the input, but not for a backlog of queued windows', () => {
    let now = 32;
    const timeline = new InputTimeline({ now: () => now });
    timeline.windowStart(false);
    timeline.advance(512);
    now = 5000; // the microphone was muted for about 5 s
    assert.equal(timeline.windowStart(true), 32, 'a backlog keeps its lag');
    assert.equal(timeline.windowStart(false), 5000 - 32, 'input after a pause starts where it is heard');
    timeline.advance(512);
    assert.equal(timeline.toClock(64), 5000);
  });
});
