/**
 * Proves that one installed model works: loads it in its own engine and runs it once (the VAD over a
 * second of speech, the recognizer over a short spoken sentence, the voice on a short sentence, the
 * LLM for one token, the end-of-turn model on a second of speech). Runs inside the checker process (child.ts): a native engine that rejects a
 * file may end the whole process, which must not be the app's. Each check imports only its own
 * engine: the others' native libraries (node-llama-cpp above all) take a second or more to load.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ResolvedModel } from '../../native-models/types';
import { toMono16k } from '../audio/resample';
import { parseWav } from '../audio/wav';
import { VAD_WINDOW } from '../engines/vad-window';
import { DEFAULT_SETTINGS } from '../settings/schema';

/** What a model did when it was run once. */
export interface RunCheck {
  loadMs: number;
  /** What it produced, for the user to see ("heard: what is the weather like today"). */
  detail: string;
}

/** A short spoken sentence shipped with the app ("what is the weather like today", 16 kHz). */
export const SPEECH_SAMPLE = fileURLToPath(new URL('./speech-sample.wav', import.meta.url));

async function speechSample(): Promise<Float32Array> {
  return toMono16k(parseWav(await readFile(SPEECH_SAMPLE), SPEECH_SAMPLE));
}

const round = (ms: number) => Math.round(ms);

async function checkVad(model: ResolvedModel): Promise<RunCheck> {
  const { SileroVad } = await import('../engines/vad');
  const vad = await SileroVad.load(model, 0.5);
  try {
    const audio = await speechSample();
    let max = 0;
    // One second of audio, window by window, as the pipeline feeds it.
    for (let o = 0; o + VAD_WINDOW <= Math.min(audio.length, 16000 + VAD_WINDOW); o += VAD_WINDOW) {
      const { probability } = await vad.accept(audio.subarray(o, o + VAD_WINDOW));
      if (!Number.isFinite(probability) || probability < 0 || probability > 1) throw new Error(`it gave a speech probability of ${probability}`);
      max = Math.max(max, probability);
    }
    return { loadMs: round(vad.info.loadMs), detail: `speech probability up to ${max.toFixed(2)} on the sample` };
  } finally {
    await vad.dispose();
  }
}

async function checkStt(model: ResolvedModel): Promise<RunCheck> {
  const { loadRecognizer } = await import('../engines/stt');
  const stt = await loadRecognizer(model, () => DEFAULT_SETTINGS.stt.partialIntervalMs);
  try {
    const session = stt.createSession(() => {});
    session.accept(await speechSample());
    const text = await session.finish();
    if (!text) throw new Error('it recognized nothing in a spoken sample sentence');
    return { loadMs: round(stt.info.loadMs), detail: `heard "${text}"` };
  } finally {
    // A streaming recognizer runs in a thread of its own, which would otherwise outlive the check.
    await stt.dispose();
  }
}

async function checkTts(model: ResolvedModel): Promise<RunCheck> {
  const { SherpaTts } = await import('../engines/tts');
  const tts = await SherpaTts.load(model);
  const samples = await tts.synthesize('Hello, I am ready.', { speakerId: 0, speed: 1 });
  if (!samples || samples.length === 0) throw new Error('it produced no audio for a short sentence');
  if (!samples.every(Number.isFinite)) throw new Error('it produced invalid audio (not-a-number samples)');
  const seconds = samples.length / tts.sampleRate;
  return { loadMs: round(tts.info.loadMs), detail: `spoke ${seconds.toFixed(1)} s at ${tts.sampleRate} Hz` };
}

async function checkLlm(model: ResolvedModel): Promise<RunCheck> {
  // A small context: this proves the weights load and generate, it is not a conversation.
  const { LlamaEngine } = await import('../engines/llm');
  const llm = await LlamaEngine.load(model, { ...DEFAULT_SETTINGS.llm, contextSize: 512 });
  try {
    let text = '';
    const r = await llm.generate([{ role: 'system', text: DEFAULT_SETTINGS.llm.systemPrompt }, { role: 'user', text: 'Say hello.' }], { maxTokens: 1, temperature: 0, onText: (d) => (text += d) });
    if (r.stopReason !== 'maxTokens' && r.stopReason !== 'eogToken') throw new Error(`generation stopped with "${r.stopReason}"`);
    return { loadMs: round(llm.info.loadMs), detail: `first token "${text.trim() || text}" on ${llm.info.backend}` };
  } finally {
    await llm.dispose();
  }
}

async function checkTurn(model: ResolvedModel): Promise<RunCheck> {
  const { loadTurnDetector } = await import('../engines/turn-detector');
  const turn = await loadTurnDetector(model);
  try {
    // About a second of the sample, as one end-of-turn check in a pause would see it.
    const { probability } = await turn.score((await speechSample()).subarray(0, 16000));
    if (!Number.isFinite(probability) || probability < 0 || probability > 1) throw new Error(`it gave an end-of-turn probability of ${probability}`);
    return { loadMs: round(turn.info.loadMs), detail: `end-of-turn probability ${probability.toFixed(2)} on a second of the sample` };
  } finally {
    await turn.dispose();
  }
}

export function runCheck(model: ResolvedModel): Promise<RunCheck> {
  switch (model.entry.kind) {
    case 'vad':
      return checkVad(model);
    case 'stt':
      return checkStt(model);
    case 'tts':
      return checkTts(model);
    case 'llm':
      return checkLlm(model);
    case 'turn':
      return checkTurn(model);
  }
}
