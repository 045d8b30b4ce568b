import type { SpeechSynthesizer } from '../../engines/tts';

/** Short, neutral, and different each time so they do not sound canned. */
export const HOLDING_PHRASES = ['One moment.', 'Let me think.', 'Just a second.'] as const;

export interface HoldingAudio {
  text: string;
  samples: Float32Array;
  sampleRate: number;
}

/**
 * Holding phrases, synthesized ahead of time so one can play the instant a turn runs over its
 * budget. `tts` is the serialized synthesizer the answers share (tts-queue.ts): a phrase being
 * prepared never runs alongside an answer's clause.
 */
export class HoldingPhrases {
  private ready: HoldingAudio[] = [];
  private key = '';
  private turn = 0;

  constructor(private readonly tts: SpeechSynthesizer) {}

  /** (Re)synthesizes the phrases for this voice if it changed. Call when the assistant is idle. */
  prepare(voice: { speakerId: number; speed: number }): void {
    const key = `${voice.speakerId}:${voice.speed}`;
    if (key === this.key) return;
    this.key = key;
    const made: HoldingAudio[] = [];
    void (async () => {
      for (const text of HOLDING_PHRASES) {
        try {
          const samples = await this.tts.synthesize(text, voice);
          if (samples && samples.length > 0) made.push({ text, samples, sampleRate: this.tts.sampleRate });
        } catch {
          // Without a holding phrase the turn simply waits; the answer itself reports any TTS error.
        }
      }
      if (this.key === key) this.ready = made;
    })();
  }

  /** The next phrase to say, or null if none is ready yet. */
  next(): HoldingAudio | null {
    if (this.ready.length === 0) return null;
    return this.ready[this.turn++ % this.ready.length]!;
  }
}
