/**
 * The microphone: raw capture at 16 kHz (the browser resamples) in an AudioWorklet, sent to the
 * assistant in 20 ms frames. The browser's echo cancellation, gain control and noise suppression are
 * asked to be off: the app cancels its own echo (it knows exactly what it played) and sets its own
 * input gain, and a browser canceller or gain in front of them would keep changing the echo path the
 * app's canceller learns. What the browser actually applied is reported to the assistant.
 */
import type { AssistantApi } from '../../electron/ipc-contract';
import { MIC_SAMPLE_RATE } from '../../electron/ipc-contract';
import { readTrackSettings, REQUESTED_CHANNELS, REQUESTED_PROCESSING, type MicrophoneSettings } from '../../electron/microphone-settings';

export interface Microphone {
  /** Resumes a context the autoplay policy held (needs a user gesture in a plain browser). */
  resume(): Promise<void>;
  readonly running: boolean;
  /** The device is gone (unplugged, taken by the system): only a new capture can help. */
  readonly ended: boolean;
  stop(): Promise<void>;
}

/**
 * Opens the microphone. `onLost` is called when it stops by itself: the track ended (device
 * unplugged), or a running audio context was suspended or interrupted by the system.
 */
export async function startMicrophone(api: AssistantApi, onLevel: (rms: number) => void, onLost: (why: string) => void = () => undefined): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser gives no microphone access here (it needs http://127.0.0.1 or https).');
  let stream: MediaStream;
  try {
    // Ideal values, not `exact`: a device that cannot turn its processing off still opens, and the
    // window then says what stayed on.
    stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: REQUESTED_CHANNELS, ...REQUESTED_PROCESSING } });
  } catch (e) {
    const name = (e as DOMException).name;
    if (name === 'NotAllowedError') throw new Error('Microphone access was denied. Allow it for this app, then reload.');
    if (name === 'NotFoundError') throw new Error('No microphone was found. Connect one, then reload.');
    throw new Error(`The microphone could not be opened (${(e as Error).message}).`);
  }
  const ctx = new AudioContext({ sampleRate: MIC_SAMPLE_RATE, latencyHint: 'interactive' });
  await ctx.audioWorklet.addModule('./capture-worklet.js');
  const source = ctx.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(ctx, 'capture', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1 });
  node.port.onmessage = (e: MessageEvent<Float32Array>) => {
    const frame = e.data;
    api.sendAudio(frame);
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
    onLevel(Math.sqrt(sum / frame.length));
  };
  source.connect(node);
  const applied = appliedSettings(stream);
  if (applied) api.send({ type: 'microphone-settings', settings: applied });
  let stopping = false;
  let wasRunning = ctx.state === 'running';
  const track = stream.getAudioTracks()[0];
  track?.addEventListener('ended', () => {
    if (!stopping) onLost('the microphone was disconnected');
  });
  // A context that never ran is the autoplay policy's (the "Start talking" gate), not a lost microphone.
  ctx.addEventListener('statechange', () => {
    if (ctx.state === 'running') wasRunning = true;
    else if (wasRunning && !stopping && ctx.state !== 'closed') onLost(`the system ${ctx.state === 'suspended' ? 'suspended' : 'interrupted'} the audio`);
  });
  return {
    resume: () => ctx.resume(),
    get running() {
      return ctx.state === 'running';
    },
    get ended() {
      return track?.readyState === 'ended';
    },
    async stop() {
      stopping = true;
      source.disconnect();
      node.port.onmessage = null;
      for (const t of stream.getTracks()) t.stop();
      await ctx.close();
    },
  };
}

/** What the browser says it applied to the captured track; null when it has no track or cannot say. */
function appliedSettings(stream: MediaStream): MicrophoneSettings | null {
  const track = stream.getAudioTracks()[0];
  if (!track || typeof track.getSettings !== 'function') return null;
  return readTrackSettings({ ...track.getSettings() }, track.label);
}
