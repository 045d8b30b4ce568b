/** `--busy N`: the threads of other CPU work start, keep a core busy, and stop when told. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBusy, startBusyWork } from '../electron/bench/busy-work';

describe('busy work beside a benchmark', () => {
  it('takes 0 to 64 threads, anything else is one clear error', () => {
    assert.equal(parseBusy(undefined), 0);
    assert.equal(parseBusy('2'), 2);
    for (const bad of ['-1', '65', '1.5', 'two', '']) assert.throws(() => parseBusy(bad), /--busy must be a whole number of threads from 0 to 64/);
  });

  it('keeps the CPU busy while it runs, and every thread ends when stopped', async () => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const stop = startBusyWork(1);
    await new Promise((r) => setTimeout(r, 400));
    await stop();
    const used = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    // A spinning thread uses CPU most of the time it runs (on a loaded machine, at least a fifth of it).
    assert.ok((used.user + used.system) / 1000 > wallMs * 0.2, `${(used.user + used.system) / 1000} ms of CPU in ${wallMs} ms`);
    await startBusyWork(0)();
  });
});
