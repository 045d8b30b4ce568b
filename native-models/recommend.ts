/**
 * Which LLM size to offer on this machine, and why. Pure: the hardware comes from
 * electron/engines/hardware.ts (or a test).
 */
import { DEFAULT_CATALOG } from './catalog';
import { downloadSizeText, memoryText } from './sizes';
import type { ModelEntry } from './types';

export interface Hardware {
  /** The backend llama.cpp would use ('cpu' when only a software GPU exists). */
  backend: 'cuda' | 'vulkan' | 'metal' | 'cpu';
  gpuNames: string[];
  /** Dedicated GPU memory; null when there is none or it is unknown. */
  vramMiB: number | null;
  /** GPU memory shared with the system (Apple silicon): the GPU may use part of RAM. */
  unifiedMemory: boolean;
  ramMiB: number;
}

export interface Recommendation {
  id: string;
  name: string;
  reason: string;
}

/** Free room left for the desktop, the other models and the driver. */
const VRAM_HEADROOM = 0.85;
/** macOS lets the GPU wire about two thirds of unified memory by default... */
const UNIFIED_GPU_SHARE = 0.65;
/** ...and the system, the app and the speech models live in the same memory. */
const UNIFIED_RESERVED_MIB = 2048;

/** A model as the reason names it: its download (the figure every other view shows) and, labelled, its memory need. */
function sized(e: ModelEntry): string {
  return `${downloadSizeText(e)} to download, about ${memoryText(e.memoryMiB!)} of memory with its context`;
}

export function recommendLlm(hw: Hardware, catalog: readonly ModelEntry[] = DEFAULT_CATALOG): Recommendation {
  const all = catalog.filter((e) => e.kind === 'llm' && !e.local && e.memoryMiB !== undefined).sort((a, b) => a.memoryMiB! - b.memoryMiB!);
  // A catalog that marks defaults offers only them; one that marks none offers every size.
  const llms = all.some((e) => e.defaultFor) ? all.filter((e) => e.defaultFor) : all;
  const smallest = llms.find((e) => e.defaultFor === 'cpu') ?? llms[0];
  if (!smallest) throw new Error('The catalog has no downloadable LLM');
  const pick = (e: ModelEntry, reason: string): Recommendation => ({ id: e.id, name: e.name, reason });
  const gpu = hw.gpuNames[0] ?? 'the GPU';

  if (hw.backend === 'cpu') {
    return pick(smallest, `No usable GPU was found, so the language model runs on the CPU: the smallest model (${sized(smallest)}) keeps answers quick.`);
  }
  const budget = hw.unifiedMemory ? hw.ramMiB * UNIFIED_GPU_SHARE - UNIFIED_RESERVED_MIB : (hw.vramMiB ?? 0) * VRAM_HEADROOM;
  const fits = llms.filter((e) => e.memoryMiB! <= budget);
  const best = fits[fits.length - 1];
  const memory = hw.unifiedMemory ? `${memoryText(hw.ramMiB)} of memory shared with ${gpu}` : `${memoryText(hw.vramMiB ?? 0)} on ${gpu}`;
  if (!best) {
    return pick(smallest, `${gpu} (${hw.backend}) has ${memory}, less than even the smallest model needs (${memoryText(smallest.memoryMiB!)} of memory; ${downloadSizeText(smallest)} to download): it is offered, and runs partly on the CPU.`);
  }
  const larger = llms.find((e) => e.memoryMiB! > best.memoryMiB!);
  return pick(
    best,
    `${memory} (${hw.backend}) fits this model (${sized(best)})` +
      (larger ? `; the next size up needs about ${memoryText(larger.memoryMiB!)} of memory.` : `, the largest ${llms === all ? 'in the catalog' : 'default'}.`),
  );
}
