/**
 * The assistant's voice in the app: scheduled on the pipeline clock like TimelineOutput and sent to
 * the renderer's player, which obeys pause, resume and stop and reports how far it has actually
 * played. That report, not the schedule's estimate, is what `heardText` is cut from.
 */
import { PlaybackSchedule, type ScheduledAudio } from './pipeline/speak/output';
import type { Clock } from './pipeline/clock';
import type { AssistantAudio, AssistantAudioControl } from './ipc-contract';

/** Where the audio goes (a window, a WebSocket client); null when nothing is connected. */
export interface AudioSink {
  audio(audio: AssistantAudio): void;
  control(control: AssistantAudioControl): void;
}

/** A progress report older than this no longer says where the player is (window closed, stalled). */
const STALE_MS = 500;

export class RendererOutput extends PlaybackSchedule {
  private reported: { position: number; atMs: number } | null = null;

  constructor(
    private readonly sink: () => AudioSink | null,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** The player has played up to stream position `position` (ms). */
  reportProgress(position: number): void {
    this.reported = { position, atMs: this.clock.now() };
  }

  /**
   * The schedule's estimate, held back to what the player reported (plus the time since): audio
   * reaches the speaker a little after it is scheduled, and only what was played was heard.
   */
  override position(atMs: number): number {
    const scheduled = super.position(atMs);
    const r = this.reported;
    if (!r || atMs - r.atMs > STALE_MS) return scheduled;
    return Math.min(scheduled, r.position + (this.paused ? 0 : Math.max(0, atMs - r.atMs)));
  }

  override enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio {
    const scheduled = super.enqueue(samples, sampleRate, atMs);
    this.sink()?.audio({ samples, sampleRate, from: scheduled.from, startMs: scheduled.startMs });
    return scheduled;
  }

  override pause(atMs: number): void {
    super.pause(atMs);
    this.sink()?.control({ action: 'pause', atMs });
  }

  override resume(atMs: number): void {
    super.resume(atMs);
    this.sink()?.control({ action: 'resume', atMs });
  }

  override duck(atMs: number, gain: number): void {
    super.duck(atMs, gain);
    this.sink()?.control({ action: 'duck', atMs, gain });
  }

  override stop(atMs: number): number {
    this.sink()?.control({ action: 'stop', atMs });
    const stopped = super.stop(atMs);
    // The player flushes: its earlier reports describe audio that no longer exists.
    this.reported = null;
    return stopped;
  }
}
