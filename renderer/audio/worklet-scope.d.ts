/** The AudioWorkletGlobalScope names the worklets use (TypeScript's DOM lib does not declare them). */
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
  abstract process(inputs: Float32Array[][], outputs: Float32Array[][], parameters: Record<string, Float32Array>): boolean;
}
declare function registerProcessor(name: string, ctor: new (options?: unknown) => AudioWorkletProcessor): void;
/** The context's sample rate. */
declare const sampleRate: number;
