/**
 * One `talk --fast` run in process, on engines a test file loads once: the same feed, fast clock,
 * timeline output, timer book, echo simulation and push-to-talk key as electron/cli/talk.ts, without
 * a subprocess that loads every model again. Not a test file itself.
 */
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import type { LoadedEngines } from '../electron/pipeline/load-engines';
import type { TurnReport } from '../electron/pipeline/report';
import { EchoSimulator } from '../electron/pipeline/run/echo';
import { feedAudio } from '../electron/pipeline/run/feed';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import type { Settings } from '../electron/settings/schema';
import { TimerBook } from '../electron/timers/timer-book';

export interface TalkRun {
  reports: TurnReport[];
  events: PipelineEvent[];
  output: TimelineOutput;
}

export interface TalkOptions {
  /** As `--echo GAIN:DELAY_MS`. */
  echo?: { gain: number; delayMs: number };
  /** As `--ptt`, in ms: the key is held over these spans (the settings' mode should be push-to-talk). */
  ptt?: [number, number][];
  /** Each event as it is emitted (for a wall-clock time; `events` has them all afterwards). */
  onEvent?: (e: PipelineEvent) => void;
}

/** talk's silence tail after the input (DEFAULT_TAIL_MS). */
const TAIL_MS = 30_000;

export async function talkInProcess(engines: LoadedEngines, samples: Float32Array, settings: Settings, opts: TalkOptions = {}): Promise<TalkRun> {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline(engines, output, clock, () => settings, { timers: new TimerBook(), epochBase: Date.now() });
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => {
    events.push(e);
    opts.onEvent?.(e);
  });
  const speakers = opts.echo ? new EchoSimulator(output, opts.echo.gain, opts.echo.delayMs) : null;
  let held = false;
  await feedAudio(pipeline, samples, clock, output, {
    fast: true,
    wakeWithinMs: TAIL_MS,
    recordInto: (frame, startMs) => speakers?.mixInto(frame, startMs),
    beforeFrame: (_frame, startMs) => {
      if (!opts.ptt) return;
      const down = opts.ptt.some(([a, b]) => startMs >= a && startMs < b);
      if (down !== held) pipeline.pushToTalk((held = down));
    },
  });
  await pipeline.drain();
  pipeline.settle();
  return { reports: pipeline.reports, events, output };
}
