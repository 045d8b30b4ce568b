/**
 * Microphone capture, on the audio thread: collects the context's 16 kHz mono input into 20 ms
 * frames and hands each one to the page as a transferred buffer (no copy, no JSON).
 */
const FRAME = 320;

class CaptureProcessor extends AudioWorkletProcessor {
  private frame = new Float32Array(FRAME);
  private filled = 0;

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input) return true;
    let o = 0;
    while (o < input.length) {
      const n = Math.min(FRAME - this.filled, input.length - o);
      this.frame.set(input.subarray(o, o + n), this.filled);
      this.filled += n;
      o += n;
      if (this.filled === FRAME) {
        this.port.postMessage(this.frame, [this.frame.buffer]);
        this.frame = new Float32Array(FRAME);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('capture', CaptureProcessor);
