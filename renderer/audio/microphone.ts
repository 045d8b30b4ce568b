/**
 * The microphone: the browser's echo cancellation and noise suppression, captured at 16 kHz (the
 * browser resamples) in an AudioWorklet, and sent to the assistant in 20 ms frames.
 */
import type { AssistantApi } from '../../electron/ipc-contract';
import { MIC_SAMPLE_RATE } from '../../electron/ipc-contract';

export interface Microphone {
  /** Resumes a context the autoplay policy held (needs a user gesture in a plain browser). */
  resume(): Promise<void>;
  readonly running: boolean;
  stop(): Promise<void>;
}

export async function startMicrophone(api: AssistantApi, onLevel: (rms: number) => void): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser gives no microphone access here (it needs http://127.0.0.1 or https).');
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
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
  return {
    resume: () => ctx.resume(),
    get running() {
      return ctx.state === 'running';
    },
    async stop() {
      source.disconnect();
      node.port.onmessage = null;
      for (const t of stream.getTracks()) t.stop();
      await ctx.close();
    },
  };
}
