/**
 * `npm run bench -- --turns`: the turn-taking benchmark (electron/bench/turns.ts), its table, JSON
 * and chart.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { busyLine } from '../bench/busy-work';
import { machineLine } from '../bench/machine';
import { readTurnCorpus } from '../bench/turn-corpus';
import { tradeoffSvg } from '../bench/turn-svg';
import { chartSeries, policySweep, runTurnBench, turnTable } from '../bench/turns';
import { UserError } from '../errors';
import type { Settings } from '../settings/schema';

/** `--turns`: the turn-taking benchmark (electron/bench/turns.ts), its table, JSON and chart. */
export async function benchTurns(settings: Settings, values: { models?: string; corpus?: string; json?: string; svg?: string; quick?: boolean }, defaultCorpus: string, busy: number): Promise<void> {
  const clips = await readTurnCorpus(path.resolve(values.corpus ?? defaultCorpus));
  const { loadEnginesFor } = await import('./engines-for');
  const engines = await loadEnginesFor(settings, values.models);
  const t0 = performance.now();
  let result;
  try {
    if (!engines.turn) {
      const why = engines.turnError ? engines.turnError.message : 'none is installed';
      throw new UserError(`The turn-taking benchmark needs an end-of-turn model, and ${why}. Fetch one with: npm run models -- fetch smart-turn-v3.2-cpu (or use --models DIR)`, 'model-none-installed');
    }
    result = await runTurnBench(engines, clips, settings, { quick: values.quick, progress: (line) => process.stderr.write(`${line}\n`) });
  } finally {
    await engines.dispose();
  }
  console.log(turnTable(result));
  console.log(machineLine(result.machine));
  console.log(busyLine(busy));
  console.log(`took ${((performance.now() - t0) / 1000).toFixed(0)} s after loading the models`);
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify({ ...result, busy }, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
  if (values.svg) {
    const p0 = result.policies[0];
    const about = `${result.clips} clips, ${p0?.holds ?? 0} holds, ${p0?.ends ?? 0} end pauses; end-of-turn model ${result.models.turn.id}, VAD ${result.models.vad.id}; ${result.machine.cpu}, ${result.machine.cores} cores`;
    await writeFile(values.svg, tradeoffSvg(chartSeries(policySweep(values.quick), result.policies), undefined, about));
    console.log(`wrote ${values.svg}`);
  }
}
