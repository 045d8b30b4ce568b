/**
 * The renderer's store on the events main sends (no DOM): a turn counts in the session's figures as
 * soon as its answer starts playing, and once, when its final report replaces the first one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionReports, summarize } from '../renderer/model/latency';
import { useUi } from '../renderer/store';
import { sampleReport } from './history-fixtures';

describe('the renderer store', () => {
  it('an answer that starts playing counts in the session at once; its final report replaces it', () => {
    const first = sampleReport({ index: 0, assistantText: 'hello' });
    useUi.getState().apply({ type: 'pipeline', event: { type: 'answer-start', t: 1900, turn: 0, report: first } });
    let s = useUi.getState();
    assert.equal(s.started, first);
    const during = sessionReports(s.reports, s.started);
    assert.equal(during.length, 1, 'counted while it plays');
    assert.ok(summarize(during).find((r) => r.key === 'voiceToVoiceMs')?.p50 !== null, 'with its voice to voice');
    const final = sampleReport({ index: 0, assistantText: 'hello there' });
    useUi.getState().apply({ type: 'pipeline', event: { type: 'turn', t: 3000, turn: 0, report: final } });
    s = useUi.getState();
    assert.equal(s.started, null);
    assert.deepEqual(sessionReports(s.reports, s.started), [final], 'once, as it ended');
  });
});
