/** Words the window uses for models and backends, in one place. */
import type { ModelKind } from '../../electron/ipc-contract';

export const KIND_LABELS: Record<ModelKind, string> = { vad: 'Voice activity', stt: 'Speech to text', llm: 'Language model', tts: 'Text to speech' };

export function backendLabel(backend: string): string {
  return backend === 'cpu' ? 'CPU' : backend.toUpperCase();
}
