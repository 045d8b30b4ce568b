/** Words the window uses for models and backends, in one place. */
import type { ModelKind, ModelStatus } from '../../electron/ipc-contract';

export const KIND_LABELS: Record<ModelKind, string> = {
  vad: 'Voice activity',
  stt: 'Speech to text',
  llm: 'Language model',
  tts: 'Text to speech',
  turn: 'End of turn',
};

/** A kind's label in the first-run list, saying when the assistant works without it. */
export function plannedKindLabel(kind: ModelKind, optional: boolean): string {
  return optional ? `${KIND_LABELS[kind]} (optional)` : KIND_LABELS[kind];
}

/** The models panel's words for one model: its name, its state. */
export function modelLine(m: ModelStatus): { name: string; state: string } {
  const name = m.name ?? (m.state === 'loading' ? 'loading…' : m.state === 'waiting' ? 'waiting' : m.state === 'missing' ? 'none installed' : '—');
  const state = m.state === 'ready' ? `loaded in ${m.loadMs !== undefined ? Math.round(m.loadMs) : '?'} ms` : m.state === 'missing' ? 'optional' : m.state;
  return { name, state };
}

export function backendLabel(backend: string): string {
  return backend === 'cpu' ? 'CPU' : backend === 'server' ? 'a server' : backend.toUpperCase();
}

/** The host (and port) of a server address, as a short label ("localhost:11434"); the address itself when it is no URL. */
export function serverHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return baseUrl;
  }
}

/** Where the language model runs, for the status bar: "LLM on CUDA · 33/33 layers", "LLM llama3.2:3b on localhost:11434". */
export function llmLine(llm: { backend: string; gpuLayers: number; totalLayers: number; server?: { baseUrl: string; model: string } }): string {
  if (llm.backend === 'server' && llm.server) return `LLM ${llm.server.model} on ${serverHost(llm.server.baseUrl)}`;
  return `LLM on ${backendLabel(llm.backend)}${llm.backend !== 'cpu' ? ` · ${llm.gpuLayers}/${llm.totalLayers} layers` : ''}`;
}

/** The input gain shown beside the microphone meter ("+18 dB"); null when nothing is raised. */
export function inputGainLabel(gainDb: number): string | null {
  const db = Math.round(gainDb);
  return db >= 1 ? `+${db} dB` : null;
}
