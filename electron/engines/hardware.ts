/** What this machine offers the LLM: the GPU backend llama.cpp would pick, its memory, and RAM. */
import os from 'node:os';
import type { Hardware } from '../../native-models/recommend';
import { pickBackend } from './llm';

const MiB = 1024 * 1024;

export async function detectHardware(): Promise<Hardware> {
  const ramMiB = Math.round(os.totalmem() / MiB);
  // The backend the engine will use: shared, so asking costs nothing when the model loads next.
  const { llama } = await pickBackend('auto');
  if (llama.gpu === false) return { backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB };
  const [names, vram] = await Promise.all([llama.getGpuDeviceNames(), llama.getVramState()]);
  return { backend: llama.gpu, gpuNames: names, vramMiB: Math.round(vram.total / MiB), unifiedMemory: vram.unifiedSize > 0, ramMiB };
}
