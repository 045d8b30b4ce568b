/** The assistant's voice: feeds the playback worklet and reports how far it has played. */
import type { AssistantApi } from '../../electron/ipc-contract';
import type { PlayerMessage, PlayerReport } from './playback-worklet';

export interface Player {
  resume(): Promise<void>;
  readonly running: boolean;
  stop(): Promise<void>;
}

export async function startPlayer(api: AssistantApi): Promise<Player> {
  const ctx = new AudioContext({ latencyHint: 'interactive' });
  await ctx.audioWorklet.addModule('./playback-worklet.js');
  const node = new AudioWorkletNode(ctx, 'playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
  node.connect(ctx.destination);
  const post = (m: PlayerMessage, transfer: Transferable[] = []) => node.port.postMessage(m, transfer);
  node.port.onmessage = (e: MessageEvent<PlayerReport>) => {
    // The output device adds its own latency after the worklet: subtract it, so "played" means heard.
    const outputLatencyMs = ((ctx.outputLatency || 0) + (ctx.baseLatency || 0)) * 1000;
    api.send({ type: 'playback-progress', position: Math.max(0, e.data.position - (e.data.playing ? outputLatencyMs : 0)) });
  };
  const offAudio = api.onAudio((a) => {
    // The samples may be a view on a shared IPC buffer: copy once, then transfer to the audio thread.
    const samples = new Float32Array(a.samples);
    post({ type: 'chunk', samples, sampleRate: a.sampleRate, from: a.from }, [samples.buffer]);
  });
  const offControl = api.onAudioControl((c) => post(c.action === 'duck' ? { type: 'duck', gain: c.gain } : { type: c.action }));
  return {
    resume: () => ctx.resume(),
    get running() {
      return ctx.state === 'running';
    },
    async stop() {
      offAudio();
      offControl();
      await ctx.close();
    },
  };
}
