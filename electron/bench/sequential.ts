/**
 * THE BASELINE, NOT THE APP'S CODE PATH. A classic sequential voice cascade built from the same
 * engines, to measure what the streaming pipeline saves: the turn ends after 600 ms of silence
 * (the app's turn taking with the end-of-turn model off), then the whole final transcript, then the
 * WHOLE answer from the LLM (a fresh conversation: system prompt and the user's words), then the
 * whole answer synthesized in one TTS call, then playback. Each stage waits for the one before.
 * Runs on the same fast clock as the app in the benchmark: engine work at wall speed.
 */
import type { LanguageModel } from '../engines/llm-types';
import type { SpeechSynthesizer } from '../engines/tts';
import { FastForwardClock } from '../pipeline/clock';
import { mergeSettings, type Settings } from '../settings/schema';
import { toSpeakable } from '../text/speakable';
import { runTurnTaking, type TurnEngines } from './turn-run';

export interface SequentialEngines extends TurnEngines {
  llm: LanguageModel;
  tts: SpeechSynthesizer;
}

/** The cascade's end of turn: silence alone, 600 ms. */
export const SEQUENTIAL_SILENCE_MS = 600;

export interface SequentialTurn {
  /** First audio minus the end of the user's speech (ms, pipeline clock). */
  v2vMs: number;
  /** How long the answer's audio is (ms). */
  answerAudioMs: number;
}

/** Every turn the cascade answered in this clip, one at a time, in order (one LLM, as in any cascade). */
export async function sequentialClip(engines: SequentialEngines, samples: Float32Array, base: Settings, clock = new FastForwardClock()): Promise<SequentialTurn[]> {
  const settings = mergeSettings(base, { endpointing: { turnModel: false, silenceMs: SEQUENTIAL_SILENCE_MS } });
  const { llm, tts } = engines;
  const answered: SequentialTurn[] = [];
  let queue: Promise<void> = Promise.resolve();
  let pending = 0;
  let failure: Error | undefined;
  await runTurnTaking(engines, samples, settings, {
    clock,
    // While an answer is being made the clock runs at wall speed, so its engine time is real.
    busy: () => pending > 0,
    onEnd: (turn) => {
      pending++;
      queue = queue
        .then(async () => {
          const { text } = await turn.transcript;
          if (!text) return;
          const answer = await llm.generate(
            [
              { role: 'system', text: settings.llm.systemPrompt },
              { role: 'user', text },
            ],
            { maxTokens: settings.llm.maxTokens, temperature: settings.llm.temperature, onText: () => {} },
          );
          const speakable = toSpeakable(answer.text).trim();
          if (!speakable) return;
          const audio = await tts.synthesize(speakable, { speakerId: settings.tts.speakerId, speed: settings.tts.speed });
          // Playback would start now: the whole answer is ready.
          if (audio && audio.length > 0) answered.push({ v2vMs: clock.now() - turn.speechEndMs, answerAudioMs: (audio.length / tts.sampleRate) * 1000 });
        })
        // Kept, not left unhandled while the clip plays on: thrown once the clip is done.
        .catch((e: unknown) => void (failure ??= e as Error))
        .finally(() => pending--);
    },
  });
  await queue;
  if (failure) throw failure;
  return answered;
}
