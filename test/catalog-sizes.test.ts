/**
 * One size per download: what `fetch` and the first-run screen show for a model (the plan's bytes),
 * what `list` shows, and the figure the LLM recommendation gives, all come from native-models/sizes.ts.
 * A memory need may appear beside it, but only said as memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { recommendLlm, type Hardware } from '../native-models/recommend';
import { optionalMissingLine, planSetup } from '../native-models/setup-plan';
import { bytesOrUnknown, downloadBytes, downloadSizeText } from '../native-models/sizes';
import { tempDir } from './helpers';

const hw = (h: Partial<Hardware>): Hardware => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 16384, ...h });

const MACHINES: [string, Hardware][] = [
  ['CPU only', hw({})],
  ['a 12 GB GPU', hw({ backend: 'cuda', gpuNames: ['NVIDIA GeForce RTX 4070'], vramMiB: 12282 })],
  ['a 4 GB GPU', hw({ backend: 'vulkan', gpuNames: ['iGPU'], vramMiB: 4096 })],
  ['a 1 GB GPU', hw({ backend: 'vulkan', vramMiB: 1024 })],
  ['Apple silicon, 8 GB', hw({ backend: 'metal', unifiedMemory: true, ramMiB: 8192, vramMiB: 5461 })],
];

/** Every "1.0 GB"-like figure in a text, with the words right after it. */
function figures(text: string): { size: string; after: string }[] {
  return [...text.matchAll(/(\d+(?:\.\d)? [KMGT]?B)([^;:,.)]*)/g)].map((m) => ({ size: m[1]!, after: m[2]!.trim() }));
}

describe('model sizes agree across fetch, recommend and the first-run screen', () => {
  for (const [what, machine] of MACHINES) {
    it(`${what}: the recommendation gives the download size every other view shows, and says memory as memory`, async () => {
      const rec = recommendLlm(machine);
      const entry = DEFAULT_CATALOG.find((e) => e.id === rec.id)!;
      assert.ok(rec.reason.includes(`${downloadSizeText(entry)} to download`), rec.reason);
      for (const f of figures(rec.reason)) {
        if (f.after.startsWith('to download')) assert.equal(f.size, downloadSizeText(entry), rec.reason);
        else assert.match(f.after, /^(of memory|on |\(|with its context)/, `"${f.size} ${f.after}" in: ${rec.reason}`);
      }
      // The first-run screen and `fetch` show the plan's bytes beside this reason: the same text.
      const plan = await planSetup(DEFAULT_CATALOG, [tempDir('lva-sizes-')], async () => machine);
      const llm = plan!.models.find((m) => m.kind === 'llm')!;
      assert.equal(llm.id, rec.id);
      assert.equal(plan!.recommendation?.reason, rec.reason);
      assert.ok(rec.reason.includes(`${bytesOrUnknown(llm.bytes)} to download`), `${bytesOrUnknown(llm.bytes)} beside: ${rec.reason}`);
    });
  }

  it('the plan and the optional-model line take every size from the catalog, the archive for archive models', () => {
    for (const e of DEFAULT_CATALOG) {
      const expected = e.archive ? e.archive.bytes : e.files.reduce((a, f) => a + f.bytes!, 0);
      assert.equal(downloadBytes(e), expected, e.id);
    }
    const turn = DEFAULT_CATALOG.find((e) => e.kind === 'turn')!;
    assert.ok(optionalMissingLine('turn', DEFAULT_CATALOG).includes(`(${downloadSizeText(turn)})`));
    assert.equal(bytesOrUnknown(null), 'size unknown');
  });
});
