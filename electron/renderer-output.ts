/**
 * The assistant's voice in the app: scheduled on the pipeline clock exactly like TimelineOutput and
 * sent to the renderer, which plays it and obeys pause, resume and stop.
 */
import { PlaybackSchedule, type ScheduledAudio } from './pipeline/output';
import { IPC, type AssistantAudio, type AssistantAudioControl } from './ipc-contract';

/** The part of Electron's WebContents this needs (kept structural so it is testable without Electron). */
export interface AudioSink {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

export class RendererOutput extends PlaybackSchedule {
  constructor(private readonly sink: () => AudioSink | null) {
    super();
  }

  override enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio {
    const scheduled = super.enqueue(samples, sampleRate, atMs);
    const audio: AssistantAudio = { samples, sampleRate, startMs: scheduled.startMs };
    this.send(IPC.assistantAudio, audio);
    return scheduled;
  }

  override pause(atMs: number): void {
    super.pause(atMs);
    this.control('pause', atMs);
  }

  override resume(atMs: number): void {
    super.resume(atMs);
    this.control('resume', atMs);
  }

  override stop(atMs: number): number {
    this.control('stop', atMs);
    return super.stop(atMs);
  }

  private control(action: AssistantAudioControl['action'], atMs: number): void {
    this.send(IPC.assistantAudioControl, { action, atMs } satisfies AssistantAudioControl);
  }

  private send(channel: string, payload: unknown): void {
    const sink = this.sink();
    // No window (closed, reloading): the audio is dropped, the pipeline's timing stays the same.
    if (sink && !sink.isDestroyed()) sink.send(channel, payload);
  }
}
