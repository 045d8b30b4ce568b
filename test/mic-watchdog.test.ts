/** The microphone watchdog's and the crashed page's decisions on scripted timelines (times in ms). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MicWatchdog, type WatchdogAction } from '../electron/desktop/mic-watchdog';
import { afterRendererGone } from '../electron/desktop/renderer-crash';

/** Frames every 20 ms from `from` to `to` (exclusive); the actions they returned other than 'none'. */
function frames(w: MicWatchdog, from: number, to: number): WatchdogAction[] {
  const out: WatchdogAction[] = [];
  for (let t = from; t < to; t += 20) {
    const a = w.frame(t);
    if (a !== 'none') out.push(a);
  }
  return out;
}

/** Ticks every 250 ms over [from, to]: each action with its time. */
function ticks(w: MicWatchdog, from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = from; t <= to; t += 250) {
    const a = w.tick(t);
    if (a !== 'none') out.push(`${a}@${t}`);
  }
  return out;
}

describe('the microphone watchdog', () => {
  it('says nothing before the first frame: a microphone that never opened (denied, none) is the window’s to explain', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    assert.deepEqual(ticks(w, 0, 30_000), []);
  });

  it('steady frames: nothing to do', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    for (let t = 0; t < 10_000; t += 250) {
      frames(w, t, t + 250);
      assert.equal(w.tick(t + 250), 'none');
    }
  });

  it('a stop: reopen the capture after 2 s, reload the page after 2 s more, then report; frames back = recovered', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    frames(w, 0, 1000);
    assert.deepEqual(ticks(w, 1000, 9000), ['restart-capture@3000', 'reload-page@5000', 'report@7000']);
    assert.equal(w.reporting, true);
    assert.deepEqual(ticks(w, 9000, 20_000), [], 'reported once, not again and again');
    assert.deepEqual(frames(w, 20_000, 20_100), ['recovered']);
    assert.equal(w.reporting, false);
  });

  it('a reopen that works ends the episode: the next stop starts again from a reopen', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    frames(w, 0, 1000);
    assert.deepEqual(ticks(w, 1000, 3000), ['restart-capture@3000']);
    frames(w, 3100, 6000);
    assert.deepEqual(ticks(w, 6000, 8000), ['restart-capture@8000']);
  });

  it('a reload the watchdog asked for keeps watching; an ordinary reload waits for frames again', () => {
    const asked = new MicWatchdog({ silentMs: 2000 });
    frames(asked, 0, 1000);
    assert.deepEqual(ticks(asked, 1000, 5000), ['restart-capture@3000', 'reload-page@5000']);
    asked.pageLoading(5200);
    assert.deepEqual(ticks(asked, 5250, 8000), ['report@7250'], 'the reloaded page never sent a frame');

    const user = new MicWatchdog({ silentMs: 2000 });
    frames(user, 0, 1000);
    user.pageLoading(1100);
    assert.deepEqual(ticks(user, 1250, 20_000), [], 'the new page may rightly have no microphone');
    frames(user, 20_000, 20_100);
    assert.deepEqual(ticks(user, 20_250, 22_500), ['restart-capture@22250']);
  });

  it('resume from sleep reopens the capture at once, only when it had been running', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    assert.equal(w.resumed(0), 'none');
    frames(w, 0, 1000);
    assert.equal(w.resumed(60_000), 'restart-capture');
    assert.deepEqual(ticks(w, 60_250, 62_000), ['reload-page@62000'], 'still nothing after the reopen: the next step');
  });
});

describe('a window page that dies', () => {
  it('is reloaded, unless it died 3 times within a minute; a clean exit is not a crash', () => {
    let recent: number[] = [];
    const step = (now: number, reason = 'crashed') => {
      const r = afterRendererGone(recent, now, reason);
      recent = r.recent;
      return r.reload;
    };
    assert.equal(step(0), true);
    assert.equal(step(10_000, 'clean-exit'), false);
    assert.equal(step(20_000, 'oom'), true);
    assert.equal(step(30_000), false, 'third in a minute');
    assert.equal(step(200_000), true, 'a minute later it is reloaded again');
  });

  it('the watchdog stops expecting frames when the page is gone', () => {
    const w = new MicWatchdog({ silentMs: 2000 });
    frames(w, 0, 1000);
    w.pageGone();
    assert.deepEqual(ticks(w, 1000, 20_000), []);
  });
});
