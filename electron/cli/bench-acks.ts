/**
 * `npm run bench -- --acks [--split held-out|tuning|all] [--ack-corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json]`:
 * the acknowledgement benchmark (electron/bench/acks.ts) over the generated corpus
 * (electron/bench/ack-corpus.ts), its table and JSON.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ackTable, runAckBench, summarizeAcks } from '../bench/acks';
import { defaultAckCorpusDir, ensureAckCorpus, type Split } from '../bench/ack-corpus';
import { busyLine } from '../bench/busy-work';
import { machineInfo, machineLine } from '../bench/machine';
import { UserError } from '../errors';
import { mergeSettings, type Settings } from '../settings/schema';

export const ACKS_USAGE = 'npm run bench -- --acks [--split held-out|tuning|all] [--ack-corpus DIR] [--models DIR] [--settings FILE] [--json OUT.json]';

/** Answers long enough to outlast three acknowledgements 3 s apart, and the same answer every run. */
const ACK_LLM = { maxTokens: 160, temperature: 0 };

export async function benchAcks(base: Settings, values: { split?: string; 'ack-corpus'?: string; models?: string; json?: string }, busy = 0): Promise<void> {
  const split = values.split ?? 'held-out';
  if (split !== 'held-out' && split !== 'tuning' && split !== 'all') throw new UserError(`--split must be held-out, tuning or all, got "${split}". Usage: ${ACKS_USAGE}`, 'usage');
  const dir = path.resolve(values['ack-corpus'] ?? defaultAckCorpusDir());
  const corpus = await ensureAckCorpus(dir, (line) => process.stderr.write(`${line}\n`));
  const names = Object.keys(corpus.clips).filter((n) => split === 'all' || corpus.clips[n]!.split === (split as Split));
  const settings = mergeSettings(base, { llm: ACK_LLM });
  const { loadEnginesFor } = await import('./engines-for');
  const engines = await loadEnginesFor(settings, values.models);
  const t0 = performance.now();
  let items;
  try {
    items = await runAckBench(engines, corpus, dir, names, settings, (done) => {
      if (done % 20 === 0 || done === names.length) process.stderr.write(`${done}/${names.length} clips\n`);
    });
  } finally {
    await engines.dispose();
  }
  const result = { ...summarizeAcks(split, names.length, items), machine: machineInfo(engines.llm.info), busy, tookS: Math.round((performance.now() - t0) / 1000) };
  console.log(ackTable(result));
  console.log(machineLine(result.machine));
  console.log(busyLine(busy));
  console.log(`took ${result.tookS} s after loading the models`);
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
}
