/** Words the window uses for models and backends, in one place. */
import type { ModelKind } from '../../electron/ipc-contract';

export const KIND_LABELS: Record<ModelKind, string> = { vad: 'Voice activity', stt: 'Speech to text', llm: 'Language model', tts: 'Text to speech' };

export function backendLabel(backend: string): string {
  return backend === 'cpu' ? 'CPU' : backend.toUpperCase();
}

/** The input gain shown beside the microphone meter ("+18 dB"); null when nothing is raised. */
export function inputGainLabel(gainDb: number): string | null {
  const db = Math.round(gainDb);
  return db >= 1 ? `+${db} dB` : null;
}
