/** The machine a benchmark ran on, so results can be compared (both benchmarks write it). */
import os from 'node:os';
import type { LlmInfo } from '../engines/llm-types';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryMiB: number;
  platform: string;
  node: string;
  gpuBackend: string;
  gpuDevices: string[];
  peakRssMiB: number;
}

/** Read at the end of a run: peak RSS covers everything the run did. */
export function machineInfo(llm: Pick<LlmInfo, 'backend' | 'gpuDevices'>): MachineInfo {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryMiB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${process.platform}-${process.arch}`,
    node: process.version,
    gpuBackend: llm.backend,
    gpuDevices: llm.gpuDevices,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

export function machineLine(m: MachineInfo): string {
  return `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryMiB} MiB, ${m.platform}; LLM on ${m.gpuBackend}${m.gpuDevices.length ? ` (${m.gpuDevices.join(', ')})` : ''}; peak RSS ${m.peakRssMiB} MiB`;
}

/** Processing time over the audio it concerned; null when there was none. */
export function rtf(a: { ms: number; audioMs: number }): number | null {
  return a.audioMs > 0 ? Math.round((a.ms / a.audioMs) * 1000) / 1000 : null;
}
