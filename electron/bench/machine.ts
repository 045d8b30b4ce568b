/** The machine a benchmark ran on, so results can be compared (both benchmarks write it). */
import { closeSync, openSync, readSync } from 'node:fs';
import os from 'node:os';
import type { LlmInfo } from '../engines/llm-types';

export interface MachineInfo {
  cpu: string;
  /**
   * What the CPU's name leaves out: "AMD EPYC" is any generation, and the widest vector unit decides
   * how fast the voices' convolutions run (three hosts named so differed by 2x in synthesis).
   */
  cpuDetail: CpuDetail;
  cores: number;
  memoryMiB: number;
  platform: string;
  node: string;
  gpuBackend: string;
  gpuDevices: string[];
  peakRssMiB: number;
}

export interface CpuDetail {
  /** x86 family and model numbers as /proc/cpuinfo gives them (AMD family 26 is Zen 5); null elsewhere. */
  family: number | null;
  model: number | null;
  /** The widest vector instructions the CPU has: 'avx512', 'avx2', 'avx', 'neon' or 'unknown'. */
  vector: string;
}

const CPUINFO_BYTES = 64 * 1024;

/** The first processor's block of /proc/cpuinfo (bounded: it repeats per core), or '' off Linux. */
function cpuinfoText(): string {
  if (process.platform !== 'linux') return '';
  try {
    const fd = openSync('/proc/cpuinfo', 'r');
    try {
      const buf = Buffer.alloc(CPUINFO_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8').split(/\n\s*\n/)[0] ?? '';
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Parses one /proc/cpuinfo processor block. */
export function parseCpuDetail(text: string, arch: string = process.arch): CpuDetail {
  const field = (name: string) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim();
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);
  const flags = new Set((field('flags') ?? field('Features') ?? '').split(/\s+/));
  const vector = flags.has('avx512f') ? 'avx512' : flags.has('avx2') ? 'avx2' : flags.has('avx') ? 'avx' : flags.has('asimd') || arch === 'arm64' ? 'neon' : 'unknown';
  return { family: num(field('cpu family')), model: num(field('model')), vector };
}

/** Read at the end of a run: peak RSS covers everything the run did. */
export function machineInfo(llm: Pick<LlmInfo, 'backend' | 'gpuDevices'>): MachineInfo {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cpuDetail: parseCpuDetail(cpuinfoText()),
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
  const d = m.cpuDetail;
  const detail = d.family !== null ? ` (family ${d.family} model ${d.model ?? '?'}, ${d.vector})` : d.vector !== 'unknown' ? ` (${d.vector})` : '';
  return `machine: ${m.cpu}${detail}, ${m.cores} cores, ${m.memoryMiB} MiB, ${m.platform}; LLM on ${m.gpuBackend}${m.gpuDevices.length ? ` (${m.gpuDevices.join(', ')})` : ''}; peak RSS ${m.peakRssMiB} MiB`;
}

/** Processing time over the audio it concerned; null when there was none. */
export function rtf(a: { ms: number; audioMs: number }): number | null {
  return a.audioMs > 0 ? Math.round((a.ms / a.audioMs) * 1000) / 1000 : null;
}
