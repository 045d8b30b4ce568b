/**
 * `npm run models -- list [--json] | fetch ID... | verify | recommend` [--dir DIR] [--catalog FILE]
 *
 * The model catalog from a terminal: what there is and what is installed, download with a progress
 * bar (resumable, verified), check installed files, and which LLM size suits this machine.
 */
import path from 'node:path';
import { ALL_MODELS, DEFAULT_CATALOG } from '../../native-models/catalog';
import { loadCatalogFile } from '../../native-models/catalog-file';
import { fetchModel, verifyModel, type FileProgress } from '../../native-models/downloader';
import { formatBytes, progressLine } from '../../native-models/progress-bar';
import { recommendLlm } from '../../native-models/recommend';
import { defaultUserModelsDir, downloadBytes, resolveModel } from '../../native-models/resolver';
import type { ModelEntry } from '../../native-models/types';
import { UserError } from '../errors';
import { parseCli, runCli } from './args';

const USAGE = 'npm run models -- list [--json] | fetch ID... | verify [ID...] | recommend [--json]   [--dir DIR] [--catalog FILE]';

export interface ListedModel {
  id: string;
  kind: string;
  name: string;
  licence: string;
  installed: boolean;
  bytes: number | null;
  files: { name: string; url: string | null; bytes: number | null; sha256: string | null }[];
  archive?: { url: string; bytes: number | null; sha256: string | null };
}

async function installed(e: ModelEntry, dir: string): Promise<boolean> {
  try {
    await resolveModel(e, [dir]);
    return true;
  } catch {
    return false;
  }
}

/** A bar on a terminal (redrawn in place); on a pipe or log, a line at each tenth and at each phase. */
function progressPrinter(): (p: FileProgress) => void {
  const tty = process.stderr.isTTY === true;
  const lastStep = new Map<string, string>();
  return (p) => {
    const key = `${p.modelId}/${p.file}`;
    if (tty) {
      process.stderr.write(`\r\x1b[2K${progressLine(p, 30)}${p.phase === 'done' ? '\n' : ''}`);
      return;
    }
    const step = p.phase === 'downloading' && p.totalBytes ? `${p.phase}${Math.floor((p.receivedBytes / p.totalBytes) * 10)}` : p.phase;
    if (lastStep.get(key) === step) return;
    lastStep.set(key, step);
    process.stderr.write(`${progressLine(p, 30)}\n`);
  };
}

runCli(async () => {
  const { values, positionals } = parseCli(
    process.argv.slice(2),
    { json: { type: 'boolean', default: false }, dir: { type: 'string' }, catalog: { type: 'string' } },
    USAGE,
  );
  const [command, ...ids] = positionals;
  const dir = path.resolve(values.dir ?? defaultUserModelsDir());
  const catalog = values.catalog ? await loadCatalogFile(values.catalog) : ALL_MODELS;
  const find = (id: string) => {
    const e = catalog.find((x) => x.id === id);
    if (!e) throw new UserError(`Unknown model "${id}". Known: ${catalog.filter((x) => !x.local).map((x) => x.id).join(', ')}.`, 'model-unknown');
    return e;
  };

  switch (command) {
    case 'list': {
      const rows: ListedModel[] = [];
      for (const e of catalog) {
        rows.push({
          id: e.id,
          kind: e.kind,
          name: e.name,
          licence: e.licence,
          installed: await installed(e, dir),
          bytes: downloadBytes(e),
          files: e.files.map((f) => ({ name: f.name, url: f.url ?? null, bytes: f.bytes ?? null, sha256: f.sha256 ?? null })),
          ...(e.archive ? { archive: { url: e.archive.url, bytes: e.archive.bytes ?? null, sha256: e.archive.sha256 ?? null } } : {}),
        });
      }
      if (values.json) {
        console.log(JSON.stringify(rows, null, 2));
        return;
      }
      console.log(`models folder: ${dir}`);
      for (const r of rows) {
        const size = r.bytes === null ? '   size ?' : formatBytes(r.bytes).padStart(9);
        console.log(`${r.installed ? 'installed' : '         '}  ${r.kind.padEnd(3)}  ${size}  ${r.id}  (${r.licence})`);
      }
      return;
    }
    case 'fetch': {
      if (ids.length === 0) throw new UserError(`fetch needs at least one model id. Usage: ${USAGE}`, 'usage');
      const entries = ids.map(find);
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      const onProgress = progressPrinter();
      for (const e of entries) {
        const r = await fetchModel(e, { root: dir, signal: controller.signal, onProgress });
        console.log(`${e.id}: installed and verified in ${r.dir}${r.downloaded.length ? '' : ' (already there)'}`);
      }
      return;
    }
    case 'verify': {
      const entries = ids.length ? ids.map(find) : catalog.filter((e) => !e.local);
      let bad = 0;
      let checked = 0;
      for (const e of entries) {
        if (!ids.length && !(await installed(e, dir))) continue;
        checked++;
        const r = await verifyModel(e, dir);
        console.log(`${r.ok ? 'ok     ' : 'FAILED '} ${e.id}${r.ok ? '' : `: ${r.problems.join('; ')}`}`);
        if (!r.ok) bad++;
      }
      if (checked === 0) console.log(`No catalog model is installed in ${dir}.`);
      if (bad) throw new UserError(`${bad} model(s) failed verification; fetch them again with \`npm run models -- fetch ID\`.`, 'verify-failed');
      return;
    }
    case 'recommend': {
      const { detectHardware } = await import('../engines/hardware');
      const hw = await detectHardware();
      const rec = recommendLlm(hw, catalog === ALL_MODELS ? DEFAULT_CATALOG : catalog);
      if (values.json) console.log(JSON.stringify({ hardware: hw, recommendation: rec }, null, 2));
      else console.log(`${rec.id}: ${rec.reason}`);
      return;
    }
    default:
      throw new UserError(`${command ? `Unknown command "${command}"` : 'A command is needed'}. Usage: ${USAGE}`, 'usage');
  }
});
