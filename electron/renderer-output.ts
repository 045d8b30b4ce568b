/**
 * The assistant's voice in the app: audio is scheduled on the pipeline clock exactly like
 * TimelineOutput (back to back from when it is queued) and sent to the renderer, which plays it.
 */
import type { AudioOutput, ScheduledAudio } from './pipeline/output';
import { IPC, type AssistantAudio, type AssistantAudioStop } from './ipc-contract';

/** The part of Electron's WebContents this needs (kept structural so it is testable without Electron). */
export interface AudioSink {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

export class RendererOutput implements AudioOutput {
  private queueEnd = 0;

  constructor(private readonly sink: () => AudioSink | null) {}

  get endMs(): number {
    return this.queueEnd;
  }

  enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio {
    const startMs = Math.max(atMs, this.queueEnd);
    const endMs = startMs + (samples.length / sampleRate) * 1000;
    this.queueEnd = endMs;
    const audio: AssistantAudio = { samples, sampleRate, startMs };
    this.send(IPC.assistantAudio, audio);
    return { startMs, endMs };
  }

  stop(atMs: number): number {
    this.queueEnd = Math.min(this.queueEnd, atMs);
    const stop: AssistantAudioStop = { atMs };
    this.send(IPC.assistantAudioStop, stop);
    return atMs;
  }

  private send(channel: string, payload: unknown): void {
    const sink = this.sink();
    // No window (closed, reloading): the audio is dropped, the pipeline's timing stays the same.
    if (sink && !sink.isDestroyed()) sink.send(channel, payload);
  }
}
