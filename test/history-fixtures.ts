/** A made-up turn report for the history tests: numbers chosen so each stage is easy to work out. */
import type { TurnReport } from '../electron/pipeline/report';

export function sampleReport(patch: Partial<TurnReport> = {}): TurnReport {
  return {
    index: 0, userText: 'hi', assistantText: 'hello there', heardText: 'hello there', interrupted: false, startedBy: 'speech', endReason: 'silence', bargeIn: null, backchannels: [],
    holdingPhrase: false, mergedContinuation: false, inputGainDb: 0, turnDetector: null, command: null, llmUsed: true, llm: null, prepared: 'none', preparedLeadMs: null,
    timings: { speechStartMs: 0, speechEndMs: 1000, endOfTurnMs: 1600, sttFinalMs: 1650, llmFirstTokenMs: 1800, firstClauseMs: 1850, firstAudioMs: 1900, lastAudioMs: 3000 },
    latency: { endpointMs: 600, sttMs: 50, llmTtftMs: 150, ttsFirstAudioMs: 50, voiceToVoiceMs: 900 },
    engine: { sttFinalDecodeMs: 40, llmUntilFirstClauseMs: 190, ttsFirstClauseMs: 45 },
    echo: null,
    ...patch,
  };
}
