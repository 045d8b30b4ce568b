/**
 * Acknowledgements from a voice the tuning never heard (real engines: Silero VAD, the streaming
 * test recognizer, stories260K, the formant voice), on part of the generated corpus
 * (electron/bench/ack-corpus.ts, espeak-ng): one held-out voice saying every acknowledgement at
 * three levels, and every interruption as loud as its request. `npm run bench -- --acks` runs
 * all four held-out voices; docs/turn-taking.md has its figures.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ACK_VOICES, ensureAckCorpus, type AckCorpus } from '../electron/bench/ack-corpus';
import { runAckBench, STOP_WITHIN_MS, summarizeAcks, ackTable, type AckBenchResult } from '../electron/bench/acks';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { DEFAULT_SETTINGS, mergeSettings } from '../electron/settings/schema';
import { MODEL_ROOTS } from './engine-fixtures';

const SETTINGS = mergeSettings(DEFAULT_SETTINGS, { llm: { temperature: 0, maxTokens: 160, threads: 1 } });
const VOICE = 'en-gb+linda';
/**
 * Bounds a little under what this test measured for this voice (34-36 of 36; 9-10 of 12 stopped,
 * 3-5 within 350 ms), so a noisy machine passes; judged on spelling alone, 18 of its 36
 * acknowledgements stopped the answer.
 */
const ACKS_PASSED = 32;
const INTERRUPTIONS_STOPPED = 8;
const INTERRUPTIONS_IN_TIME = 2;
const dir = mkdtempSync(path.join(os.tmpdir(), 'lva-ack-corpus-'));
let engines: LoadedEngines;
let corpus: AckCorpus;
let result: AckBenchResult;

before(async () => {
  corpus = await ensureAckCorpus(dir, () => {}, { voices: [VOICE], interruptionLevels: [0] });
  engines = await loadEngines(() => SETTINGS, MODEL_ROOTS);
  const names = Object.keys(corpus.clips);
  result = summarizeAcks('held-out', names.length, await runAckBench(engines, corpus, dir, names, SETTINGS));
});
after(async () => {
  await engines?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('acknowledgements from a held-out voice (real engines, generated corpus)', () => {
  it('the subset is the held-out voice, every acknowledgement at three levels and every interruption', () => {
    assert.equal(ACK_VOICES.find((v) => v.voice === VOICE)?.split, 'held-out');
    assert.equal(result.acknowledgements.n, 36);
    assert.equal(result.interruptions.n, 12);
  });

  it('most acknowledgements let the answer go on, each listed with what it was judged on', (t) => {
    t.diagnostic(ackTable(result));
    const a = result.acknowledgements;
    assert.ok(a.passed >= ACKS_PASSED, `${a.passed}/${a.n} let the answer go on`);
    assert.equal(a.outcomes.turn, 0, 'none became a turn');
    for (const item of result.items.filter((i) => i.outcome === 'passed')) {
      assert.ok(item.evidence && item.evidence.durationMs > 0 && item.evidence.levelDb !== null, `${item.text}: ${JSON.stringify(item.evidence)}`);
    }
  });

  it(`real interruptions stop it, most within ${STOP_WITHIN_MS} ms`, () => {
    const i = result.interruptions;
    assert.ok(i.outcomes.stopped >= INTERRUPTIONS_STOPPED, `${i.outcomes.stopped}/${i.n} stopped it`);
    assert.ok(i.stoppedInTime >= INTERRUPTIONS_IN_TIME, `${i.stoppedInTime}/${i.n} within ${STOP_WITHIN_MS} ms`);
  });
});
