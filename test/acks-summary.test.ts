/** The acknowledgement benchmark's scoring (pure): an item said after an earlier one stopped the answer measures nothing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeAcks, type ItemOutcome, type ItemResult } from '../electron/bench/acks';

const item = (clip: string, kind: ItemResult['kind'], outcome: ItemOutcome, stoppedAfterMs: number | null = null): ItemResult => ({
  clip,
  voice: 'v',
  split: 'held-out',
  kind,
  text: 'mm',
  levelDb: 0,
  startMs: 0,
  outcome,
  stoppedAfterMs,
  gapMs: 0,
  heard: null,
  evidence: null,
});

test('the acknowledgement share is over those said while an answer played; a stop is counted once', () => {
  const r = summarizeAcks('held-out', 3, [
    item('a', 'acknowledgement', 'passed'),
    item('a', 'acknowledgement', 'stopped'),
    item('a', 'acknowledgement', 'no-answer'),
    item('b', 'acknowledgement', 'unheard'),
    item('c', 'interruption', 'stopped', 120),
    item('d', 'interruption', 'stopped', 500),
  ]);
  assert.equal(r.acknowledgements.n, 4);
  assert.equal(r.acknowledgements.measured, 3);
  assert.equal(r.acknowledgements.passed, 2, 'passed, and unheard with the answer playing on');
  assert.equal(r.acknowledgements.passedShare, 0.667);
  assert.equal(r.interruptions.stoppedInTime, 1);
  assert.equal(r.interruptions.stoppedInTimeShare, 0.5);
});
