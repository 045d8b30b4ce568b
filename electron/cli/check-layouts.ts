/**
 * `npm run check:layouts [-- ID...]`
 *
 * Proves that the app configures its engines right for each default model's layout without
 * downloading gigabytes: writes a small stand-in of each (the same files, names, tensor interface
 * and the metadata the engine reads; test/layouts/) into a temporary folder, and loads and runs it
 * once through the resolver and the model check, as the app does. One line per default model;
 * exit status 1 when any does not load.
 */
import os from 'node:os';
import { DEFAULT_CATALOG } from '../../native-models/catalog';
import { checkLayouts, layoutLine } from '../../test/layouts/check';
import { DEFAULT_LAYOUTS } from '../../test/layouts/index';
import { UserError } from '../errors';
import { parseCli, runCli } from './args';

const USAGE = 'npm run check:layouts -- [ID...]';

const HELP = `Loads a small stand-in of each default model's layout through the app's loading path.

Usage: ${USAGE}

  ID...        only these default models (default: every one)
  -h, --help   this help

Each stand-in has the model's files, tensor names and shapes and the metadata its engine reads,
not its weights: a line says "loads" when the app's configuration of the engine loads and runs it.
A language model's line says whether the bundled llama.cpp knows its architecture.`;

runCli(async () => {
  const { positionals: ids } = parseCli(process.argv.slice(2), {}, USAGE, HELP);
  const unknown = ids.filter((id) => !DEFAULT_CATALOG.some((e) => e.id === id));
  if (unknown.length) throw new UserError(`Not a default model: ${unknown.join(', ')}. Default models: ${DEFAULT_CATALOG.map((e) => e.id).join(', ')}.`, 'usage');
  const entries = ids.length ? DEFAULT_CATALOG.filter((e) => ids.includes(e.id)) : DEFAULT_CATALOG;
  const results = await checkLayouts(entries, DEFAULT_LAYOUTS, { concurrency: Math.min(4, os.availableParallelism()) });
  for (const r of results) console.log(layoutLine(r));
  const failed = results.filter((r) => !r.ok);
  if (failed.length === 0) return 0;
  console.error(`error: ${failed.length} of ${results.length} default models do not load as laid out: ${failed.map((r) => `${r.id} (${r.text})`).join('; ')}`);
  return 1;
});
