/** The one function that turns a turn's record into its report (pure, scripted records). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { newTurnRecord, turnReport, type SpokenAnswer } from '../electron/pipeline/respond/turn-record';

const base = () =>
  newTurnRecord({ index: 3, speechStartMs: 1000, speechEndMs: 2000, endOfTurnMs: 2600, startedBy: 'speech', endReason: 'silence', mergedContinuation: false, inputGainDb: 6, turnChecks: null });

function answer(output: TimelineOutput, text: string, queuedAtMs: number, ms: number): SpokenAnswer {
  const a = output.enqueue(new Float32Array((ms / 1000) * 16000), 16000, queuedAtMs);
  return { text, heardText: text.trim(), times: { firstClauseMs: 2750, ttsFirstClauseMs: 40, firstAudioMs: a.startMs, lastAudioMs: a.endMs }, audioSpan: { from: a.from, to: a.to } };
}

describe('turn report from the turn record', () => {
  it('gives every stage its latency and the audio times as really played, pauses included', () => {
    const output = new TimelineOutput();
    const r = base();
    Object.assign(r, { userText: 'hi', sttFinalMs: 2650, sttDecodeMs: 20, generated: true, llmStartMs: 2655, llmFirstTokenMs: 2700 });
    r.answer = answer(output, ' Hello there. ', 2800, 1000);
    output.pause(3000);
    output.resume(3500);
    const rep = turnReport(r, output);
    assert.equal(rep.index, 3);
    assert.equal(rep.assistantText, 'Hello there.');
    assert.equal(rep.heardText, 'Hello there.');
    assert.equal(rep.inputGainDb, 6);
    assert.deepEqual(rep.timings, { speechStartMs: 1000, speechEndMs: 2000, endOfTurnMs: 2600, sttFinalMs: 2650, llmFirstTokenMs: 2700, firstClauseMs: 2750, firstAudioMs: 2800, lastAudioMs: 4300, llmStartMs: 2655 });
    // The latency block is read off the timeline below, as every view reads it: the model asked at 2655
    // to its first token, the first clause's synthesis (not the wait after it).
    assert.deepEqual(rep.latency, { endpointMs: 600, sttMs: 50, llmTtftMs: 45, ttsFirstAudioMs: 40, voiceToVoiceMs: 800 });
    assert.deepEqual(rep.engine, { sttFinalDecodeMs: 20, llmUntilFirstClauseMs: 95, ttsFirstClauseMs: 40 });
    assert.equal('error' in rep, false);
    // The timeline, 0 = the end of speech: each stage where it ran; the answer played from 800 ms, pause included.
    assert.deepEqual(rep.timeline, [
      { stage: 'endpoint', startMs: 0, endMs: 600 },
      { stage: 'stt', startMs: 600, endMs: 650 },
      { stage: 'llm', startMs: 655, endMs: 700 },
      { stage: 'clause', startMs: 700, endMs: 750 },
      { stage: 'tts', startMs: 750, endMs: 790 },
      { stage: 'playback', startMs: 800, endMs: 2300 },
    ]);
  });

  it("a prepared answer's work sits where it ran, before the end of speech when it began then", () => {
    const output = new TimelineOutput();
    const r = base();
    // Drafted at a pause 300 ms before the measured end of speech; the turn model ended the turn 100 ms before it too.
    Object.assign(r, { endOfTurnMs: 1900, userText: 'hi', sttFinalMs: 1950, prepared: 'used', preparedAtMs: 1700, llmStartMs: 1720, llmFirstTokenMs: 1800 });
    const a = output.enqueue(new Float32Array(1600), 16000, 1960);
    r.answer = { text: 'Yes.', heardText: 'Yes.', times: { firstClauseMs: 1850, ttsFirstClauseMs: 5, firstAudioMs: a.startMs, lastAudioMs: a.endMs }, audioSpan: { from: a.from, to: a.to } };
    const rep = turnReport(r, output);
    // Its old latency fields went negative (endpoint -100 ms, the model's first token -150 ms after the
    // final words); the report's latency block is read off the timeline now, and nothing in it is negative.
    assert.deepEqual(rep.latency, { endpointMs: 0, sttMs: 50, llmTtftMs: 80, ttsFirstAudioMs: 5, voiceToVoiceMs: 0 });
    assert.equal(rep.engine.llmUntilFirstClauseMs, 130);
    assert.deepEqual(rep.timeline, [
      { stage: 'endpoint', startMs: 0, endMs: 0 },
      { stage: 'stt', startMs: -100, endMs: -50 },
      { stage: 'llm', startMs: -280, endMs: -200, prepared: true },
      { stage: 'clause', startMs: -200, endMs: -150, prepared: true },
      { stage: 'tts', startMs: -150, endMs: -145, prepared: true },
      { stage: 'playback', startMs: -40, endMs: 60 },
    ]);
  });

  it('an interrupted answer ends where playback stopped; a discarded one was heard by nobody', () => {
    const output = new TimelineOutput();
    const r = base();
    r.answer = answer(output, 'A long answer.', 2800, 2000);
    r.interrupted = true;
    r.bargeIn = { detectedMs: 3300, playbackStoppedMs: 3100, speechStartMs: 3050 };
    assert.equal(turnReport(r, output).timings.lastAudioMs, 3100);
    const d = base();
    d.answer = answer(output, 'Never heard.', 2800, 500);
    d.discarded = true;
    assert.equal(turnReport(d, output).heardText, '');
  });

  it('a turn the language model never answered has no answer times, and its error', () => {
    const r = base();
    Object.assign(r, { userText: 'hi', sttFinalMs: 2650, error: 'The language model failed: out of memory' });
    const rep = turnReport(r, new TimelineOutput());
    assert.equal(rep.assistantText, '');
    assert.equal(rep.latency.voiceToVoiceMs, null);
    assert.equal(rep.engine.llmUntilFirstClauseMs, null);
    assert.equal(rep.error, 'The language model failed: out of memory');
  });
});
