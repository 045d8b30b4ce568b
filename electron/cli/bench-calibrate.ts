/**
 * `npm run bench -- --calibrate [--standins DIR] [--small] [--all] [--json OUT.json] [ID...]`: each
 * real-size stand-in alone against its published speed (electron/bench/calibrate.ts).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveModel } from '../../native-models/resolver';
import { STANDIN_GENERATORS, writeStandins } from '../../native-models/standins/index';
import { readWavFile } from '../audio/wav';
import { toMono16k } from '../audio/resample';
import { calibrate, calibrationTable, PUBLISHED, type Calibration } from '../bench/calibrate';
import { machineInfo, machineLine } from '../bench/machine';
import { defaultStandinsDir } from '../bench/real-size';
import { UserError } from '../errors';
import { prng } from '../seeded-random';
import { parseCli } from './args';

export const CALIBRATE_USAGE = 'npm run bench -- --calibrate [--standins DIR] [--small] [--all] [--json OUT.json] [ID...]';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Speech for the recognizers (their cost hardly depends on the words): the shared corpus's, when there. */
const SPEECH = path.resolve(here, '../../../shared/speech/turns/turn_03.wav');
/** Too big for an everyday run (2.5 GB and 650 MB); --all or naming them adds them. */
const LARGE = new Set(['qwen3-4b-instruct-2507-q4_k_m', 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8']);

async function speechClip(): Promise<{ samples: Float32Array; what: string }> {
  if (existsSync(SPEECH)) return { samples: toMono16k(await readWavFile(SPEECH)), what: path.relative(process.cwd(), SPEECH) };
  // Deterministic low noise, 8 s: what a recognizer costs is what it decodes, not what was said.
  const random = prng(7);
  const samples = new Float32Array(8 * 16000).map(() => (random() - 0.5) * 0.02);
  return { samples, what: '8 s of low noise (no speech corpus beside the project)' };
}

export async function benchCalibrate(argv: string[]): Promise<void> {
  const { values, positionals } = parseCli(
    argv.filter((a) => a !== '--calibrate'),
    { standins: { type: 'string' }, small: { type: 'boolean' }, all: { type: 'boolean' }, json: { type: 'string' } },
    CALIBRATE_USAGE,
    `Runs each real-size stand-in alone, configured as the app runs it, on one thread, and sets its
speed beside the figure published for the real model (docs/benchmarks.md). Stand-ins measured
against the same reference machine must come out the same number of times faster here.

  --standins DIR  where the stand-ins are kept (default ${defaultStandinsDir()}); missing ones are written
  --small         the small versions (as CI writes them): checks the command, measures nothing real
  --all           also the large ones (Qwen3 4B, Parakeet TDT 0.6B)
  --json OUT      the rows as JSON
  ID...           only these stand-ins

Usage: ${CALIBRATE_USAGE}`,
  );
  const known = STANDIN_GENERATORS.map((g) => g.id).filter((id) => id in PUBLISHED);
  for (const id of positionals) if (!known.includes(id)) throw new UserError(`no stand-in "${id}" to calibrate; there are: ${known.join(', ')}`, 'usage');
  const ids = positionals.length ? positionals : known.filter((id) => values.all || !LARGE.has(id));
  const root = path.resolve(values.standins ?? defaultStandinsDir());
  const { catalog } = await writeStandins(root, { ids, scale: values.small ? 'small' : 'full', log: (line) => process.stderr.write(`${line}\n`) });
  const clip = await speechClip();
  process.stderr.write(`recognizers decode ${clip.what}\n`);
  const rows: Calibration[] = [];
  for (const entry of catalog) {
    rows.push(await calibrate(await resolveModel(entry, [root]), clip.samples));
    process.stderr.write(`measured ${entry.id}\n`);
  }
  const machine = machineInfo({ backend: 'cpu', gpuDevices: [] });
  console.log(`${values.small ? 'SMALL stand-ins (the command checked, nothing measured that means anything)\n' : ''}${calibrationTable(rows)}`);
  console.log(machineLine(machine));
  if (values.json) {
    await writeFile(values.json, `${JSON.stringify({ scale: values.small ? 'small' : 'full', rows, machine }, null, 2)}\n`);
    console.log(`wrote ${values.json}`);
  }
}
