import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnergyTracker } from '../electron/pipeline/listen/energy';
import { Segmenter, type EndpointingConfig, type SegmenterEvent } from '../electron/pipeline/turns/segmenter';

const WINDOW = 512;
const WINDOW_MS = 32;
/** How late the scripted VAD decision follows the audio, like Silero's. */
const VAD_LAG_MS = 128;

/**
 * A scripted timeline: audio is a tone where `speech` says so and digital silence elsewhere; the VAD
 * decision for each window is the truth VAD_LAG_MS earlier (a lagging detector).
 */
function run(speech: [number, number][], totalMs: number, cfg: EndpointingConfig, onWindow?: (atMs: number, c: EndpointingConfig) => void) {
  const live = { ...cfg };
  const energy = new EnergyTracker();
  const seg = new Segmenter(() => live, energy);
  const isSpeech = (t: number) => speech.some(([a, b]) => t >= a && t < b);
  const events: SegmenterEvent[] = [];
  for (let k = 0; (k + 1) * WINDOW_MS <= totalMs; k++) {
    const w = new Float32Array(WINDOW);
    for (let i = 0; i < WINDOW; i++) {
      const t = k * WINDOW_MS + (i / WINDOW) * WINDOW_MS;
      if (isSpeech(t)) w[i] = 0.1 * Math.sin((2 * Math.PI * 200 * t) / 1000);
    }
    const atMs = (k + 1) * WINDOW_MS;
    const decision = isSpeech(atMs - VAD_LAG_MS);
    energy.push(w, decision);
    onWindow?.(atMs, live);
    events.push(...seg.push(atMs, decision));
  }
  return events;
}

const cfg: EndpointingConfig = { minSpeechMs: 250, silenceMs: 600, maxTurnMs: 30_000 };
const of = <T extends SegmenterEvent['type']>(events: SegmenterEvent[], type: T) =>
  events.filter((e): e is Extract<SegmenterEvent, { type: T }> => e.type === type);

describe('segmenter (pure policy on scripted timelines)', () => {
  it('places speech start and end on the audio, not on the lagging VAD decision', () => {
    const events = run([[1000, 2000]], 4000, cfg);
    const [start] = of(events, 'speech-start');
    const [end] = of(events, 'end-of-turn');
    assert.ok(start && end);
    assert.ok(Math.abs(start.startMs - 1000) <= 16, `start ${start.startMs}`);
    assert.ok(Math.abs(end.speechEndMs - 2000) <= 16, `end ${end.speechEndMs}`);
    // The turn ends silenceMs after the true end, within one window.
    assert.ok(end.atMs >= 2000 + cfg.silenceMs && end.atMs <= 2000 + cfg.silenceMs + WINDOW_MS + 16, `eot ${end.atMs}`);
    assert.equal(end.reason, 'silence');
  });

  it('drops bursts shorter than minSpeechMs', () => {
    const events = run([[1000, 1120], [2500, 2600]], 4000, cfg);
    assert.equal(of(events, 'speech-start').length, 0);
    assert.equal(of(events, 'end-of-turn').length, 0);
    assert.equal(of(events, 'discarded').length, 2);
  });

  it('keeps a turn through a pause shorter than silenceMs, and splits at a longer one', () => {
    const speech: [number, number][] = [[500, 1500], [2100, 2900]];
    const whole = run(speech, 5000, { ...cfg, silenceMs: 1000 });
    assert.equal(of(whole, 'end-of-turn').length, 1);
    assert.ok(Math.abs(of(whole, 'end-of-turn')[0]!.speechEndMs - 2900) <= 16);
    const split = run(speech, 5000, { ...cfg, silenceMs: 400 });
    assert.equal(of(split, 'end-of-turn').length, 2);
  });

  it('ends a turn that never stops at maxTurnMs, and waits for a gap before the next one', () => {
    const events = run([[0, 10_000], [11_000, 12_000]], 14_000, { ...cfg, maxTurnMs: 3000 });
    const ends = of(events, 'end-of-turn');
    assert.equal(ends.length, 2, JSON.stringify(ends));
    assert.equal(ends[0]!.reason, 'max-length');
    assert.ok(ends[0]!.atMs - ends[0]!.speechStartMs >= 3000 && ends[0]!.atMs - ends[0]!.speechStartMs < 3000 + WINDOW_MS);
    // The rest of the endless sound is not a turn; speech after a gap is.
    assert.equal(ends[1]!.reason, 'silence');
    assert.ok(Math.abs(ends[1]!.speechStartMs - 11_000) <= 16);
  });

  it('applies a settings change at the next window', () => {
    // silenceMs drops from 2000 to 300 while the user is silent: the turn ends right away.
    const events = run([[500, 1500]], 4000, { ...cfg, silenceMs: 2000 }, (atMs, c) => {
      if (atMs === 1984) c.silenceMs = 300;
    });
    const [end] = of(events, 'end-of-turn');
    assert.ok(end);
    assert.ok(end.atMs <= 1984 + WINDOW_MS, `ended at ${end.atMs}`);
  });

  it('forceEnd reports no turn when none is in progress', () => {
    const energy = new EnergyTracker();
    const seg = new Segmenter(() => cfg, energy);
    assert.equal(seg.forceEnd(100, 'push-to-talk'), undefined);
  });

  it('forceEnd discards a candidate that never became a turn, and says so', () => {
    const energy = new EnergyTracker();
    const seg = new Segmenter(() => cfg, energy);
    const [candidate] = seg.push(1000, true);
    assert.equal(candidate?.type, 'candidate');
    assert.deepEqual(seg.forceEnd(1032, 'input-ended'), { type: 'discarded', startMs: (candidate as { startMs: number }).startMs, atMs: 1032 });
    assert.equal(seg.hasCandidate, false);
  });
});
