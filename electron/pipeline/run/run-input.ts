import type { Clock } from '../clock';
import { feedAudio, type FeedOptions } from './feed';
import type { AudioOutput } from '../speak/output';
import type { TurnReport } from '../report';
import type { VoicePipeline } from '../voice-pipeline';

export interface RunInputOptions extends FeedOptions {
  /**
   * End a turn still in progress when feeding stops, as 'input-ended' (default true). Feeding goes on
   * until the pipeline is quiet, so only a turn still open when maxTailMs runs out is affected.
   */
  endTurn?: boolean;
}

/**
 * Plays a whole recording through the pipeline as its microphone, waits for every reply, and
 * returns the turns' reports (the pipeline's own list).
 */
export async function runInput(pipeline: VoicePipeline, samples: Float32Array, clock: Clock, output: AudioOutput, opts: RunInputOptions): Promise<TurnReport[]> {
  const { endTurn = true, ...feed } = opts;
  await feedAudio(pipeline, samples, clock, output, feed);
  if (endTurn) pipeline.endTurnNow('input-ended');
  await pipeline.drain();
  // drain only waits for the replies to be produced: this reports the turns that are now complete.
  pipeline.settle();
  return pipeline.reports;
}
