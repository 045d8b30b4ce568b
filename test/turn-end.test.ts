/** The end-of-turn policy (pure) on scripted pauses and verdicts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnEndPolicy, type TurnEndConfig } from '../electron/pipeline/turns/turn-end';

const cfg: TurnEndConfig = { silenceMs: 600, turnModel: true, turnCheckMs: 200, turnThreshold: 0.5, maxPauseMs: 1600 };

describe('end-of-turn policy', () => {
  it('without a model, silence alone decides and nothing is checked', () => {
    const p = new TurnEndPolicy(() => false);
    p.onPause(1000);
    assert.equal(p.due(5000, cfg), null);
    assert.equal(p.silenceMs(cfg), 600);
  });

  it('with the model turned off in settings, the same', () => {
    const p = new TurnEndPolicy(() => true);
    p.onPause(1000);
    const off = { ...cfg, turnModel: false };
    assert.equal(p.due(5000, off), null);
    assert.equal(p.silenceMs(off), 600);
  });

  it('asks once per pause, turnCheckMs into it', () => {
    const p = new TurnEndPolicy(() => true);
    assert.equal(p.due(1500, cfg), null, 'no pause yet');
    p.onPause(1000);
    assert.equal(p.due(1199, cfg), null);
    const id = p.due(1200, cfg);
    assert.notEqual(id, null);
    assert.equal(p.due(1300, cfg), null, 'once');
    p.onResume();
    p.onPause(2000);
    assert.notEqual(p.due(2232, cfg), null, 'a new pause is asked again');
  });

  it('a finished verdict ends the turn; an unfinished one lets the pause run to the ceiling', () => {
    const p = new TurnEndPolicy(() => true);
    p.onPause(1000);
    assert.equal(p.silenceMs(cfg), 1600, 'the ceiling while the verdict is pending');
    const id = p.due(1200, cfg)!;
    assert.equal(p.verdict(id, 0.2, cfg), 'wait');
    assert.equal(p.silenceMs(cfg), 1600);
    p.onPause(3000);
    const id2 = p.due(3200, cfg)!;
    assert.equal(p.verdict(id2, 0.5, cfg), 'end', 'at the threshold counts as finished');
  });

  it('a verdict for a pause the user already ended by talking is stale', () => {
    const p = new TurnEndPolicy(() => true);
    p.onPause(1000);
    const id = p.due(1200, cfg)!;
    p.onResume();
    assert.equal(p.verdict(id, 0.99, cfg), 'stale');
    p.onPause(2000);
    assert.equal(p.verdict(id, 0.99, cfg), 'stale', 'an old check does not end a newer pause');
  });

  it('a failed check leaves the pause to silenceMs', () => {
    const p = new TurnEndPolicy(() => true);
    p.onPause(1000);
    const id = p.due(1200, cfg)!;
    p.failed(id);
    assert.equal(p.silenceMs(cfg), 600);
    p.onPause(3000);
    assert.equal(p.silenceMs(cfg), 1600, 'the next pause asks again');
  });
});
