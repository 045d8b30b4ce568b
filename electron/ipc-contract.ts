/**
 * The contract between the main process, the preload and the renderer: channel names and the
 * narrow API the preload exposes as `window.assistant`. Types only plus string constants, so the
 * sandboxed preload and the renderer can import it without pulling in Node code.
 */
import type { PipelineEvent } from './pipeline/events';
import type { Settings } from './settings/schema';

export const IPC = {
  /** renderer -> main (send): one frame of 16 kHz mono microphone audio, a Float32Array. */
  micAudio: 'mic-audio',
  /** main -> renderer: a PipelineEvent. */
  pipelineEvent: 'pipeline-event',
  /** main -> renderer: assistant speech to play (AssistantAudio). */
  assistantAudio: 'assistant-audio',
  /** main -> renderer: pause, resume or stop-and-flush playback (AssistantAudioControl). */
  assistantAudioControl: 'assistant-audio-control',
  /** renderer -> main (invoke): the settings in effect. */
  settingsGet: 'settings:get',
  /** renderer -> main (invoke): apply a partial settings object. */
  settingsUpdate: 'settings:update',
} as const;

/** The most samples one mic-audio message may carry (1 s at 16 kHz); larger frames are dropped. */
export const MAX_MIC_FRAME_SAMPLES = 16000;

/** A chunk of the assistant's voice; `startMs` is when it should start, on the pipeline clock. */
export interface AssistantAudio {
  samples: Float32Array;
  sampleRate: number;
  startMs: number;
}

/** Nothing queued may play after `atMs` (pipeline clock). */
export interface AssistantAudioControl {
  action: 'pause' | 'resume' | 'stop';
  atMs: number;
}

/** `settings:update` answers with the new settings, or why the patch was refused (nothing saved). */
export type SettingsUpdateResult = Settings | { error: string };

/** What the preload exposes to the page as `window.assistant`. */
export interface AssistantApi {
  /** Sends one frame of 16 kHz mono audio (at most MAX_MIC_FRAME_SAMPLES samples). */
  sendAudio(frame: Float32Array): void;
  /** Calls `cb` for each pipeline event; returns a function that unsubscribes. */
  onEvent(cb: (event: PipelineEvent) => void): () => void;
  onAudio(cb: (audio: AssistantAudio) => void): () => void;
  onAudioControl(cb: (control: AssistantAudioControl) => void): () => void;
  getSettings(): Promise<Settings>;
  updateSettings(patch: unknown): Promise<SettingsUpdateResult>;
}
