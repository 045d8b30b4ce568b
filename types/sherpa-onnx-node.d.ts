// sherpa-onnx-node ships JavaScript only; these are the parts of its API this project uses.
declare module 'sherpa-onnx-node' {
  export interface SileroVadConfig {
    model: string;
    threshold?: number;
    minSilenceDuration?: number;
    minSpeechDuration?: number;
    maxSpeechDuration?: number;
    windowSize?: number;
  }
  export interface VadConfig {
    sileroVad: SileroVadConfig;
    sampleRate?: number;
    numThreads?: number;
    provider?: string;
    debug?: boolean | number;
  }
  export interface SpeechSegment {
    start: number;
    samples: Float32Array;
  }
  export class Vad {
    constructor(config: VadConfig, bufferSizeInSeconds: number);
    acceptWaveform(samples: Float32Array): void;
    isEmpty(): boolean;
    isDetected(): boolean;
    pop(): void;
    clear(): void;
    front(enableExternalBuffer?: boolean): SpeechSegment;
    reset(): void;
    flush(): void;
  }

  export interface FeatureConfig {
    sampleRate: number;
    featureDim: number;
  }
  export interface Waveform {
    samples: Float32Array;
    sampleRate: number;
  }

  export interface OnlineModelConfig {
    transducer?: { encoder: string; decoder: string; joiner: string };
    zipformer2Ctc?: { model: string };
    paraformer?: { encoder: string; decoder: string };
    tokens: string;
    numThreads?: number;
    provider?: string;
    debug?: boolean | number;
    modelType?: string;
  }
  export interface OnlineRecognizerConfig {
    featConfig: FeatureConfig;
    modelConfig: OnlineModelConfig;
    decodingMethod?: string;
    maxActivePaths?: number;
    enableEndpoint?: boolean | number;
    rule1MinTrailingSilence?: number;
    rule2MinTrailingSilence?: number;
    rule3MinUtteranceLength?: number;
  }
  export interface OnlineRecognizerResult {
    text: string;
    tokens?: string[];
    timestamps?: number[];
  }
  export class OnlineStream {
    acceptWaveform(w: Waveform): void;
    inputFinished(): void;
  }
  export class OnlineRecognizer {
    constructor(config: OnlineRecognizerConfig);
    createStream(): OnlineStream;
    isReady(stream: OnlineStream): boolean;
    decode(stream: OnlineStream): void;
    isEndpoint(stream: OnlineStream): boolean;
    reset(stream: OnlineStream): void;
    getResult(stream: OnlineStream): OnlineRecognizerResult;
  }

  export interface OfflineModelConfig {
    transducer?: { encoder: string; decoder: string; joiner: string };
    zipformerCtc?: { model: string };
    nemoCtc?: { model: string };
    whisper?: { encoder: string; decoder: string; language?: string; task?: string; tailPaddings?: number };
    moonshine?: {
      preprocessor?: string;
      encoder: string;
      uncachedDecoder?: string;
      cachedDecoder?: string;
      mergedDecoder?: string;
    };
    senseVoice?: { model: string; language?: string; useInverseTextNormalization?: number };
    tokens: string;
    numThreads?: number;
    provider?: string;
    debug?: boolean | number;
    modelType?: string;
  }
  export interface OfflineRecognizerConfig {
    featConfig: FeatureConfig;
    modelConfig: OfflineModelConfig;
    decodingMethod?: string;
  }
  export interface OfflineRecognizerResult {
    text: string;
    tokens?: string[];
    timestamps?: number[];
  }
  export class OfflineStream {
    acceptWaveform(w: Waveform): void;
  }
  export class OfflineRecognizer {
    constructor(config: OfflineRecognizerConfig);
    static createAsync(config: OfflineRecognizerConfig): Promise<OfflineRecognizer>;
    createStream(): OfflineStream;
    decode(stream: OfflineStream): void;
    decodeAsync(stream: OfflineStream): Promise<OfflineRecognizerResult>;
    getResult(stream: OfflineStream): OfflineRecognizerResult;
  }

  export interface OfflineTtsModelConfig {
    vits?: {
      model: string;
      tokens: string;
      lexicon?: string;
      dataDir?: string;
      noiseScale?: number;
      noiseScaleW?: number;
      lengthScale?: number;
    };
    kokoro?: {
      model: string;
      voices: string;
      tokens: string;
      dataDir?: string;
      lexicon?: string;
      lengthScale?: number;
    };
    matcha?: {
      acousticModel: string;
      vocoder: string;
      tokens: string;
      lexicon?: string;
      dataDir?: string;
      lengthScale?: number;
    };
    kitten?: {
      model: string;
      voices: string;
      tokens: string;
      dataDir?: string;
      lengthScale?: number;
    };
    numThreads?: number;
    provider?: string;
    debug?: boolean | number;
  }
  export interface OfflineTtsConfig {
    model: OfflineTtsModelConfig;
    maxNumSentences?: number;
    silenceScale?: number;
  }
  export interface GeneratedAudio {
    samples: Float32Array;
    sampleRate: number;
  }
  export interface TtsRequest {
    text: string;
    sid?: number;
    speed?: number;
    enableExternalBuffer?: boolean;
    onProgress?: (info: { samples: Float32Array; progress: number }) => number | boolean | void;
  }
  export class OfflineTts {
    constructor(config: OfflineTtsConfig);
    static createAsync(config: OfflineTtsConfig): Promise<OfflineTts>;
    readonly numSpeakers: number;
    readonly sampleRate: number;
    generate(req: TtsRequest): GeneratedAudio;
    generateAsync(req: TtsRequest): Promise<GeneratedAudio>;
  }

  const sherpa: {
    Vad: typeof Vad;
    OnlineRecognizer: typeof OnlineRecognizer;
    OfflineRecognizer: typeof OfflineRecognizer;
    OfflineTts: typeof OfflineTts;
    version: string;
  };
  export default sherpa;
}
