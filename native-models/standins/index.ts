/**
 * Writes the real-size stand-ins of the default models into a models folder, each under its
 * catalog id, and a catalog (`standins-catalog.json`) in the catalog's schema with the stand-ins'
 * own sizes and sha256, so `npm run models -- verify --load --dir DIR --catalog DIR/standins-catalog.json`
 * and the app's resolver take them as they would the real files. A model folder whose
 * `standin.json` says it was written by the same generator version, scale and seed is kept, so the
 * benchmark makes the gigabytes once.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CATALOG } from '../catalog';
import { sha256File } from '../download-file';
import { modelDir } from '../resolver';
import type { ModelEntry } from '../types';
import { KOKORO_EN_V0_19_STANDIN } from './kokoro';
import { NEMO_PARAKEET_TDT_V2_STANDIN } from './nemo-tdt-transducer';
import { PIPER_LIBRITTS_R_FP32, PIPER_LIBRITTS_R_INT8 } from './piper-vits';
import { QWEN25_1_5B_STANDIN, QWEN3_4B_STANDIN } from './qwen-llm';
import { SMART_TURN_V3_2_STANDIN } from './smart-turn';
import { ZIPFORMER2_EN_2023_06_26_STANDIN } from './zipformer2-transducer';
import type { StandinGenerator, StandinScale } from './types';

/** Bumped whenever a generator's output changes, so cached stand-ins are written again. */
export const STANDINS_VERSION = 1;

const here = path.dirname(fileURLToPath(import.meta.url));
/** The real Silero VAD file (2.3 MB, shipped with the tests): its stand-in is itself. */
const SILERO_FILE = path.resolve(here, '../../../shared/models/vad/silero_vad.onnx');

const SILERO_VAD: StandinGenerator = {
  id: 'silero-vad',
  publishedParameters: null,
  parametersSource: 'none needed: the stand-in is the real Silero VAD v5 file',
  write(dir, entry) {
    const spec = entry.engine;
    if (spec.engine !== 'silero-vad') throw new Error(`${entry.id} is not a Silero VAD`);
    if (!existsSync(SILERO_FILE)) throw new Error(`the real Silero VAD is not at ${SILERO_FILE} (../shared/models/vad)`);
    copyFileSync(SILERO_FILE, path.join(dir, spec.model));
    return { parameters: null, files: [{ name: spec.model, bytes: statSync(SILERO_FILE).size }] };
  },
};

export const STANDIN_GENERATORS: readonly StandinGenerator[] = [SILERO_VAD, ZIPFORMER2_EN_2023_06_26_STANDIN, QWEN25_1_5B_STANDIN, QWEN3_4B_STANDIN, NEMO_PARAKEET_TDT_V2_STANDIN, PIPER_LIBRITTS_R_FP32, PIPER_LIBRITTS_R_INT8, KOKORO_EN_V0_19_STANDIN, SMART_TURN_V3_2_STANDIN];

export interface StandinRecord {
  version: number;
  id: string;
  scale: StandinScale;
  seed: number;
  parameters: number | null;
  publishedParameters: number | null;
  files: { name: string; bytes: number; sha256: string }[];
  writeMs: number;
}

export const STANDIN_CATALOG_FILE = 'standins-catalog.json';

function recordFile(dir: string): string {
  return path.join(dir, 'standin.json');
}

function cached(dir: string, id: string, scale: StandinScale, seed: number): StandinRecord | null {
  try {
    const r = JSON.parse(readFileSync(recordFile(dir), 'utf8')) as StandinRecord;
    const whole = r.files.every((f) => existsSync(path.join(dir, f.name)));
    return r.version === STANDINS_VERSION && r.id === id && r.scale === scale && r.seed === seed && whole ? r : null;
  } catch {
    return null;
  }
}

/** The catalog entry for a stand-in: the real entry's names and engine, the stand-in's sizes and hashes, no download. */
export function standinEntry(entry: ModelEntry, record: StandinRecord): ModelEntry {
  const written = new Map(record.files.map((f) => [f.name, f]));
  return {
    ...entry,
    description: `Real-size stand-in (random weights, ${record.scale} scale) of: ${entry.description}`,
    archive: undefined,
    files: entry.files.map((f) => {
      const w = written.get(f.name);
      return w ? { name: f.name, bytes: w.bytes, sha256: w.sha256 } : { name: f.name };
    }),
  };
}

export interface WriteStandinsOptions {
  ids?: readonly string[];
  scale: StandinScale;
  seed?: number;
  log?: (line: string) => void;
}

/** Writes (or keeps) each stand-in under `root`, then the stand-ins' catalog; returns the records and the catalog. */
export async function writeStandins(root: string, opts: WriteStandinsOptions): Promise<{ records: StandinRecord[]; catalog: ModelEntry[] }> {
  const seed = opts.seed ?? 1;
  const log = opts.log ?? (() => {});
  const ids = opts.ids ?? STANDIN_GENERATORS.map((g) => g.id);
  const records: StandinRecord[] = [];
  const catalog: ModelEntry[] = [];
  for (const id of ids) {
    const generator = STANDIN_GENERATORS.find((g) => g.id === id);
    const entry = DEFAULT_CATALOG.find((e) => e.id === id);
    if (!generator || !entry) throw new Error(`no stand-in generator for ${id}; there are: ${STANDIN_GENERATORS.map((g) => g.id).join(', ')}`);
    const dir = modelDir(root, entry);
    let record = cached(dir, id, opts.scale, seed);
    if (record) log(`kept    ${id} (${dir})`);
    else {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const t0 = performance.now();
      const written = await generator.write(dir, entry, { scale: opts.scale, seed });
      const writeMs = Math.round(performance.now() - t0);
      const files = await Promise.all(written.files.map(async (f) => ({ ...f, sha256: await sha256File(path.join(dir, f.name)) })));
      record = { version: STANDINS_VERSION, id, scale: opts.scale, seed, parameters: written.parameters, publishedParameters: generator.publishedParameters, files, writeMs };
      writeFileSync(recordFile(dir), `${JSON.stringify(record, null, 2)}\n`);
      log(`wrote   ${id} in ${(writeMs / 1000).toFixed(1)} s`);
    }
    records.push(record);
    catalog.push(standinEntry(entry, record));
  }
  writeFileSync(path.join(root, STANDIN_CATALOG_FILE), `${JSON.stringify(catalog, null, 2)}\n`);
  return { records, catalog };
}

/** One line per stand-in: parameters and bytes against the published model's and the catalog's. */
export function standinLine(r: StandinRecord, entry: ModelEntry | undefined): string {
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)} %`;
  const bytes = r.files.reduce((n, f) => n + f.bytes, 0);
  const catalogBytes = entry?.files.reduce((n, f) => n + (f.bytes ?? 0), 0) ?? 0;
  const sizes = catalogBytes > 0 ? `${bytes.toLocaleString('en-US')} B (catalog ${catalogBytes.toLocaleString('en-US')}, ${pct(bytes, catalogBytes)})` : `${bytes.toLocaleString('en-US')} B (catalog gives no size)`;
  const params = r.parameters === null || r.publishedParameters === null ? 'the real file' : `${r.parameters.toLocaleString('en-US')} params (published ${r.publishedParameters.toLocaleString('en-US')}, ${pct(r.parameters, r.publishedParameters)})`;
  return `${r.id}  ${params}  ${sizes}`;
}
