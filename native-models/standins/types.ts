/** What every real-size stand-in generator gives: the same contract for the LLMs, recognizers, voices and the end-of-turn model. */
import type { ModelEntry } from '../types';

/** `full`: the real model's size (gigabytes, for the benchmark); `small`: the same code path shrunk, for CI. */
export type StandinScale = 'full' | 'small';

export interface StandinWritten {
  /** Parameters written (elements of every weight, whatever their type); null where the stand-in is the real file. */
  parameters: number | null;
  /** Each written file's name (as the catalog names it) and size in bytes. */
  files: { name: string; bytes: number }[];
}

export interface StandinGenerator {
  /** The catalog id of the model it stands in for. */
  id: string;
  /** The published parameter count of the real model (what `parameters` must be within 5 % of at full scale); null where the stand-in is the real file. */
  publishedParameters: number | null;
  /** Where the published count comes from, one line. */
  parametersSource: string;
  /** Writes the model's files into `dir` under the catalog entry's names. Deterministic for a given seed. */
  write(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): Promise<StandinWritten> | StandinWritten;
}
