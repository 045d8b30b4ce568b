/**
 * `--busy N`: N threads of unrelated CPU work beside the pipeline for a whole benchmark run, as a
 * user's laptop has (a browser, a video call, an indexer). Each thread spins on arithmetic until
 * told to stop; nothing it computes is used.
 */
import { Worker } from 'node:worker_threads';
import { UserError } from '../errors';

/** More than this many threads measures the scheduler, not the pipeline. */
const MAX_BUSY = 64;

/** The worker: arithmetic in slices of about a millisecond, checking the stop flag between them. */
const SPIN = `
const { workerData } = require('node:worker_threads');
const stop = new Int32Array(workerData);
let x = 0;
while (Atomics.load(stop, 0) === 0) {
  for (let i = 0; i < 20000; i++) x = Math.sqrt(x + i) * 1.0000001;
}
`;

/** `--busy` as given: a whole number from 0 to MAX_BUSY. */
export function parseBusy(spec: string | undefined): number {
  if (spec === undefined) return 0;
  const n = /^\s*\d+\s*$/.test(spec) ? Number(spec) : NaN;
  if (!(Number.isInteger(n) && n >= 0 && n <= MAX_BUSY)) throw new UserError(`--busy must be a whole number of threads from 0 to ${MAX_BUSY}, got "${spec}"`, 'usage');
  return n;
}

/** Starts `n` spinning threads; the returned function stops them and resolves once they have ended. */
export function startBusyWork(n: number): () => Promise<void> {
  if (n === 0) return async () => {};
  const flag = new SharedArrayBuffer(4);
  const workers = Array.from({ length: n }, () => new Worker(SPIN, { eval: true, workerData: flag }));
  return async () => {
    Atomics.store(new Int32Array(flag), 0, 1);
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.threadId < 0 ? resolve(undefined) : w.once('exit', resolve)))));
  };
}

/** The line a benchmark prints about it. */
export function busyLine(n: number): string {
  return n === 0 ? 'busy: none (the machine otherwise idle)' : `busy: ${n} thread${n === 1 ? '' : 's'} of unrelated CPU work beside the pipeline for the whole run`;
}
