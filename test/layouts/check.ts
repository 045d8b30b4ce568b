/**
 * Loads a stand-in of each model's layout through the app's own path: the files are written to a
 * models folder, found by the resolver, then loaded and run once by the model check in its own
 * process (electron/model-check), exactly as `npm run models -- verify --load` does; a sherpa-onnx
 * that ends the process on a bad configuration is reported as that model's error. A language model
 * is checked for its architecture (see gguf.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkModel } from '../../electron/model-check/check';
import { modelDir, resolveModel } from '../../native-models/resolver';
import type { ModelEntry } from '../../native-models/types';
import { llamaCppKnows } from './gguf';
import type { Layout } from './index';

export interface LayoutResult {
  id: string;
  layout: string;
  ok: boolean;
  /** What it did (ok) or why it failed. */
  text: string;
}

/** The model the LLM check runs the one GGUF loader on (electron/model-check, test/model-check.test.ts). */
export const LLM_STAND_IN = 'test-llm-stories260k';

/**
 * The catalog entry without sizes and hashes: the stand-ins have the layout, not the bytes. Every
 * other part of resolution (names, folders, the voice's data folder) is the catalog's.
 */
function withoutSizes(entry: ModelEntry): ModelEntry {
  return { ...entry, files: entry.files.map(({ name }) => ({ name })), archive: undefined };
}

async function checkOne(entry: ModelEntry, layout: Layout | undefined, root: string, timeoutMs: number): Promise<LayoutResult> {
  const result = (ok: boolean, text: string): LayoutResult => ({ id: entry.id, layout: layout?.name ?? 'no layout', ok, text });
  if (!layout) return result(false, 'there is no stand-in of its layout (add one to test/layouts/index.ts)');
  try {
    if ('architecture' in layout) {
      const arch = await llamaCppKnows(layout.architecture);
      const how = `not built here: every GGUF goes through node-llama-cpp's one loader, which the model check runs on the stand-in ${LLM_STAND_IN}`;
      return arch.known ? result(true, `${how}; the bundled llama.cpp knows ${layout.architecture} (${arch.evidence})`) : result(false, `the bundled llama.cpp does not know the architecture ${layout.architecture} (${arch.evidence})`);
    }
    const sizeless = withoutSizes(entry);
    const dir = modelDir(root, sizeless);
    mkdirSync(dir, { recursive: true });
    layout.write(dir, entry);
    const check = await checkModel(await resolveModel(sizeless, [root]), { timeoutMs });
    return check.ok ? result(true, check.detail) : result(false, check.reason);
  } catch (e) {
    return result(false, `the stand-in could not be made or found: ${(e as Error).message}`);
  }
}

/**
 * Checks each entry's layout in a temporary models folder (in `tmpDir`, default the OS's; deleted
 * afterwards), `concurrency` model checks at a time, results in the entries' order.
 */
export async function checkLayouts(
  entries: readonly ModelEntry[],
  layouts: Readonly<Record<string, Layout>>,
  opts: { concurrency?: number; timeoutMs?: number; tmpDir?: string } = {},
): Promise<LayoutResult[]> {
  const root = mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), 'lva-layouts-'));
  try {
    const results: LayoutResult[] = new Array(entries.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < entries.length; i = next++) results[i] = await checkOne(entries[i]!, layouts[entries[i]!.id], root, opts.timeoutMs ?? 120_000);
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The report line: `loads  ID  [LAYOUT]  what it did`, or `FAILED ID  [LAYOUT]  why`. */
export function layoutLine(r: LayoutResult): string {
  return `${r.ok ? 'loads ' : 'FAILED'} ${r.id}  [${r.layout}]  ${r.text}`;
}
