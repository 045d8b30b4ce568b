/**
 * The assistant's voice, on the audio thread. Chunks are queued back to back at their own sample
 * rate and resampled (linear) to the context's rate. Pause and stop take effect at the next render
 * quantum (128 frames, under 3 ms), and the player reports its stream position (ms of the
 * assistant's audio actually rendered) so the main side knows what was heard.
 */
interface Chunk {
  samples: Float32Array;
  rate: number;
  /** Stream position of the first sample, ms. */
  from: number;
}

export type PlayerMessage =
  | { type: 'chunk'; samples: Float32Array; sampleRate: number; from: number }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'stop' }
  /** The volume to ramp to (1: full), as the main side's schedule does (DUCK_RAMP_MS). */
  | { type: 'duck'; gain: number };

export interface PlayerReport {
  type: 'progress';
  /** Stream position played, ms. */
  position: number;
  /** Whether audio is still queued. */
  playing: boolean;
}

/** Progress is reported about every 20 ms while playing. */
const REPORT_EVERY_MS = 20;
/** A volume change ramps over this long (electron/pipeline/speak/output.ts DUCK_RAMP_MS). */
const RAMP_MS = 20;

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly queue: Chunk[] = [];
  /** Read position inside queue[0], in its own samples (fractional). */
  private read = 0;
  private position = 0;
  private paused = false;
  private sinceReport = 0;
  private gain = 1;
  private targetGain = 1;

  constructor() {
    super();
    this.port.onmessage = (e: MessageEvent<PlayerMessage>) => this.onMessage(e.data);
  }

  private onMessage(m: PlayerMessage): void {
    switch (m.type) {
      case 'chunk':
        // After a flush the stream continues from where the main side says it does.
        if (this.queue.length === 0) this.position = m.from;
        this.queue.push({ samples: m.samples, rate: m.sampleRate, from: m.from });
        break;
      case 'pause':
        this.paused = true;
        this.report();
        break;
      case 'resume':
        this.paused = false;
        break;
      case 'stop':
        this.queue.length = 0;
        this.read = 0;
        this.paused = false;
        // What plays next is a new answer, at full volume.
        this.gain = this.targetGain = 1;
        this.report();
        break;
      case 'duck':
        this.targetGain = Math.min(1, Math.max(0, m.gain));
        break;
    }
  }

  private report(): void {
    const msg: PlayerReport = { type: 'progress', position: this.position, playing: this.queue.length > 0 };
    this.port.postMessage(msg);
    this.sinceReport = 0;
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]?.[0];
    if (!out) return true;
    out.fill(0);
    if (this.paused || this.queue.length === 0) return true;
    for (let i = 0; i < out.length; i++) {
      const c = this.queue[0];
      if (!c) break;
      const k = Math.floor(this.read);
      const frac = this.read - k;
      const a = c.samples[k] ?? 0;
      const b = c.samples[k + 1] ?? a;
      if (this.gain !== this.targetGain) {
        const step = 1000 / (RAMP_MS * sampleRate);
        this.gain = this.gain < this.targetGain ? Math.min(this.targetGain, this.gain + step) : Math.max(this.targetGain, this.gain - step);
      }
      out[i] = (a + (b - a) * frac) * this.gain;
      this.read += c.rate / sampleRate;
      if (this.read >= c.samples.length) {
        this.read -= c.samples.length;
        this.position = c.from + (c.samples.length / c.rate) * 1000;
        this.queue.shift();
        const next = this.queue[0];
        if (next) this.read = (this.read * next.rate) / c.rate;
        else this.read = 0;
      }
    }
    const c = this.queue[0];
    if (c) this.position = c.from + (this.read / c.rate) * 1000;
    for (let ch = 1; ch < (outputs[0]?.length ?? 0); ch++) outputs[0]![ch]!.set(out);
    this.sinceReport += (out.length / sampleRate) * 1000;
    if (this.sinceReport >= REPORT_EVERY_MS || this.queue.length === 0) this.report();
    return true;
  }
}

registerProcessor('playback', PlaybackProcessor);
