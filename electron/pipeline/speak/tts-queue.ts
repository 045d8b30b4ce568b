import type { SpeechSynthesizer } from '../../engines/tts';

/**
 * The one queue all synthesis goes through: the voice engine runs one sentence at a time, so a
 * holding phrase being prepared, an answer's clause and (later) a notice never run side by side
 * and each waits its turn in the order asked. A failed request does not block the ones behind it.
 */
export function serialSynthesizer(engine: SpeechSynthesizer): SpeechSynthesizer {
  let chain: Promise<unknown> = Promise.resolve();
  return {
    sampleRate: engine.sampleRate,
    info: engine.info,
    synthesize: (text, opts) => {
      const run = chain.then(() => engine.synthesize(text, opts));
      chain = run.catch(() => undefined);
      return run;
    },
  };
}
