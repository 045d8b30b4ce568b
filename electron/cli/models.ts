/**
 * `npm run models -- list [--json] | fetch ID... | verify | recommend` [--dir DIR] [--catalog FILE]
 *
 * The model catalog from a terminal: what there is and what is installed, download with a progress
 * bar (resumable, verified), check installed files, and which LLM size suits this machine.
 */
import path from 'node:path';
import { ALL_MODELS, DEFAULT_CATALOG } from '../../native-models/catalog';
import { loadCatalogFile } from '../../native-models/catalog-file';
import { lockCatalog } from '../../native-models/catalog-lock';
import { fetchModel, type FileProgress } from '../../native-models/downloader';
import { progressLine } from '../../native-models/progress-bar';
import { recommendLlm } from '../../native-models/recommend';
import { BUNDLED_MODELS_DIR, defaultUserModelsDir, resolveModel, searchOrder } from '../../native-models/resolver';
import { alternativeFor, isReplaceableDownloadError, planSetup } from '../../native-models/setup-plan';
import { bytesOrUnknown, downloadSizeText } from '../../native-models/sizes';
import { checkModel, failureLine } from '../model-check/check';
import type { ModelEntry } from '../../native-models/types';
import { isUserError, UserError } from '../errors';
import { parseCli, runCli } from './args';
import { listedModels, listLines, verifyInstalled } from './models-list';

const USAGE = 'npm run models -- list [--all] [--json] | fetch [ID...] | verify [--load] [ID...] | recommend [--json] | lock [ID...] [--write] | standins [--small] [--seed N] [ID...]   [--dir DIR] [--catalog FILE]';

const TURN_DEFAULT = DEFAULT_CATALOG.find((e) => e.kind === 'turn');
const TURN_SIZE = TURN_DEFAULT ? downloadSizeText(TURN_DEFAULT) : 'small';

const HELP = `The model catalog from a terminal.

Usage: ${USAGE}

  list [--all] [--json]    the catalog: installed, damaged, unfinished or missing; download size; licence; * marks
                           this machine's defaults (--all: the test models too; --json: every file's url, bytes, sha256)
  fetch                    download what this machine is missing: the set the app's first-run screen chooses,
                           with the optional end-of-turn model (${TURN_SIZE}; without it, silence alone ends a turn)
  fetch ID...              download these models; resumable, size and sha256 checked
                           (every fetched model is then loaded and run once to prove it works)
  verify [ID...]           check sizes and sha256 of what is installed (every model \`list\` does not call missing)
  verify --load [ID...]    also load each model in its engine and run it once
  recommend [--json]       which language model suits this machine, and why
  lock [ID...] [--write]   maintainers: download each model (default: all) to a temporary folder, measure
                           size and sha256, print every difference from the catalog (exit 1 if any);
                           --write puts the measured values into the --catalog FILE
  standins [ID...]         developers: write real-size stand-ins of the default models into --dir (required): the
                           real architecture, size, quantization and metadata with random weights, for benchmarks
                           (gigabytes; kept when already there), and DIR/standins-catalog.json to load them with
                           (\`verify --load --dir DIR --catalog DIR/standins-catalog.json\`); --small: the same code,
                           shrunk (megabytes, what the tests write); --seed N (default 1)

  --dir DIR                the models folder (default: ${defaultUserModelsDir()})
  --catalog FILE           a catalog JSON in the same schema
  -h, --help               this help`;

/** A bar on a terminal (redrawn in place); on a pipe or log, a line at each tenth and at each phase. */
function progressPrinter(): (p: FileProgress) => void {
  const tty = process.stderr.isTTY === true;
  const lastStep = new Map<string, string>();
  return (p) => {
    const key = `${p.modelId}/${p.file}`;
    if (tty) {
      process.stderr.write(`\r\x1b[2K${progressLine(p, 30)}${p.phase === 'done' || p.phase === 'failed' ? '\n' : ''}`);
      return;
    }
    const step = p.phase === 'downloading' && p.totalBytes ? `${p.phase}${Math.floor((p.receivedBytes / p.totalBytes) * 10)}` : `${p.phase}${p.message ?? ''}`;
    if (lastStep.get(key) === step) return;
    lastStep.set(key, step);
    process.stderr.write(`${progressLine(p, 30)}\n`);
  };
}

/** `fetch` with no ids: what the first-run screen would download here, shown before it starts. */
async function planForThisMachine(catalog: readonly ModelEntry[], dir: string): Promise<ModelEntry[]> {
  const { detectHardware } = await import('../engines/hardware');
  // The optional end-of-turn model too, even when it is all that is missing: it is small and makes turn-taking better.
  const plan = await planSetup(catalog, searchOrder({ user: dir, bundled: BUNDLED_MODELS_DIR }), detectHardware, { optionalAlone: true });
  if (!plan) return [];
  console.log(`To fetch into ${dir}:`);
  for (const m of plan.models) console.log(`  ${m.kind.padEnd(4)}  ${bytesOrUnknown(m.bytes).padStart(12)}  ${m.id}  (${m.licence})${m.optional ? '  optional' : ''}`);
  console.log(`  total ${bytesOrUnknown(plan.totalBytes)}`);
  if (plan.recommendation) console.log(`  language model: ${plan.recommendation.reason}`);
  return plan.models.map((m) => catalog.find((e) => e.id === m.id)!);
}

/** A model whose published file changed (or is gone): name another of its kind to fetch instead. */
function withAlternative(err: unknown, failed: ModelEntry, catalog: readonly ModelEntry[]): unknown {
  if (!isUserError(err) || !isReplaceableDownloadError(err.code)) return err;
  const other = alternativeFor(catalog, failed.kind, new Set([failed.id]));
  if (!other) return err;
  return new UserError(`${err.message} Another ${failed.kind} model works instead: \`npm run models -- fetch ${other.id}\`.`, err.code);
}

/** Loads and runs each model once, each in its own process; one line per model, exit 1 if any fails. */
async function loadCheck(entries: readonly ModelEntry[], dir: string): Promise<void> {
  const failed: string[] = [];
  for (const e of entries) {
    const model = await resolveModel(e, searchOrder({ user: dir }));
    const c = await checkModel(model);
    if (c.ok) {
      console.log(`loads  ${e.id}: ${c.detail} (loaded in ${c.loadMs} ms)`);
      continue;
    }
    const fix = e.local
      ? 'Replace it with a good copy, or choose another model.'
      : `Delete ${model.dir} and fetch it again (\`npm run models -- fetch ${e.id}\`); if it fails again, the published files are not what the catalog expects: choose another ${e.kind} model (\`npm run models -- list\`).`;
    console.log(`FAILED ${e.id}`);
    failed.push(failureLine(c, model, fix));
  }
  // One line per model that does not work, each saying what failed and what to do.
  if (failed.length) throw new UserError(failed.join('\nerror: '), 'load-check-failed');
}

runCli(async () => {
  const { values, positionals } = parseCli(
    process.argv.slice(2),
    {
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      load: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      dir: { type: 'string' },
      catalog: { type: 'string' },
      small: { type: 'boolean', default: false },
      seed: { type: 'string' },
    },
    USAGE,
    HELP,
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
      const { detectHardware } = await import('../engines/hardware');
      const rows = await listedModels(catalog, dir, detectHardware);
      const shown = rows.filter((r) => values.all || !r.test);
      if (values.json) console.log(JSON.stringify(shown, null, 2));
      else for (const line of listLines(rows, dir, values.all)) console.log(line);
      return;
    }
    case 'fetch': {
      const entries = ids.length ? ids.map(find) : await planForThisMachine(catalog, dir);
      if (entries.length === 0) {
        console.log(`Every kind of model is already installed (${dir}): nothing to fetch.`);
        return;
      }
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      const onProgress = progressPrinter();
      for (const e of entries) {
        const r = await fetchModel(e, { root: dir, signal: controller.signal, onProgress }).catch((err: unknown) => {
          throw withAlternative(err, e, catalog);
        });
        console.log(`${e.id}: downloaded and verified in ${r.dir}${r.downloaded.length ? '' : ' (already there)'}`);
      }
      // Right size and hash is not yet "works": each model is run once before it is called ready.
      await loadCheck(entries, dir);
      return;
    }
    case 'verify': {
      const verified = await verifyInstalled(ids.length ? ids.map(find) : catalog, dir, ids.length > 0, (l) => console.log(l));
      if (values.load) await loadCheck(verified, dir);
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
    case 'lock': {
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      const run = { catalog, entries: ids.length ? ids.map(find) : undefined, catalogFile: values.catalog, write: values.write, log: (l: string) => console.log(l) };
      await lockCatalog(run, { signal: controller.signal, onProgress: progressPrinter() });
      return;
    }
    case 'standins': {
      if (!values.dir) throw new UserError(`standins needs --dir DIR: a folder for gigabytes of generated models, never your models folder. Usage: ${USAGE}`, 'usage');
      const seed = Number(values.seed ?? '1');
      if (!Number.isSafeInteger(seed) || seed < 0) throw new UserError(`--seed must be a whole number, got "${values.seed}"`, 'usage');
      const { STANDIN_GENERATORS, standinLine, writeStandins } = await import('../../native-models/standins/index');
      const known = STANDIN_GENERATORS.map((g) => g.id);
      const unknown = ids.filter((id) => !known.includes(id));
      if (unknown.length) throw new UserError(`No stand-in for ${unknown.join(', ')}. Stand-ins: ${known.join(', ')}.`, 'model-unknown');
      const { records } = await writeStandins(dir, { ids: ids.length ? ids : undefined, scale: values.small ? 'small' : 'full', seed, log: (l) => console.log(l) });
      for (const r of records) console.log(standinLine(r, DEFAULT_CATALOG.find((e) => e.id === r.id)));
      return;
    }
    default:
      throw new UserError(`${command ? `Unknown command "${command}"` : 'A command is needed'}. Usage: ${USAGE}`, 'usage');
  }
});
