/**
 * A catalog from a JSON file (`--catalog FILE`): the same schema as catalog.ts, checked field by
 * field so a typo is one clear error instead of a confusing failure halfway through a download.
 */
import { readFile } from 'node:fs/promises';
import { UserError } from '../electron/errors';
import type { ModelEntry } from './types';

const KINDS = ['vad', 'stt', 'llm', 'tts', 'turn'];

function check(ok: boolean, where: string, what: string, problems: string[]): void {
  if (!ok) problems.push(`${where} ${what}`);
}

function checkFile(f: unknown, where: string, problems: string[]): void {
  if (typeof f !== 'object' || f === null) return void problems.push(`${where} must be an object`);
  const x = f as Record<string, unknown>;
  check(typeof x.name === 'string' && x.name.length > 0, `${where}.name`, 'must be a file name', problems);
  check(x.url === undefined || (typeof x.url === 'string' && /^https?:\/\//.test(x.url)), `${where}.url`, 'must be an http(s) URL', problems);
  check(x.bytes === undefined || (Number.isSafeInteger(x.bytes) && (x.bytes as number) >= 0), `${where}.bytes`, 'must be a whole number of bytes', problems);
  check(x.sha256 === undefined || (typeof x.sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(x.sha256)), `${where}.sha256`, 'must be 64 hex digits', problems);
}

function parseCatalog(json: unknown, source: string): ModelEntry[] {
  const problems: string[] = [];
  if (!Array.isArray(json)) throw new UserError(`Catalog ${source} must be a JSON array of models, like [{"id": "...", "kind": "vad", "files": [...]}].`, 'catalog-invalid');
  json.forEach((e, i) => {
    const where = `[${i}]`;
    if (typeof e !== 'object' || e === null) return void problems.push(`${where} must be an object`);
    const x = e as Record<string, unknown>;
    check(typeof x.id === 'string' && /^[\w.-]+$/.test(x.id), `${where}.id`, 'must be a name of letters, digits, "-", "_" or "."', problems);
    check(typeof x.kind === 'string' && KINDS.includes(x.kind), `${where}.kind`, `must be one of ${KINDS.join(', ')}`, problems);
    check(typeof x.name === 'string', `${where}.name`, 'must be text', problems);
    check(typeof x.licence === 'string', `${where}.licence`, 'must be text', problems);
    check(typeof x.engine === 'object' && x.engine !== null, `${where}.engine`, 'must describe how the engine loads it', problems);
    if (!Array.isArray(x.files)) problems.push(`${where}.files must be a list`);
    else x.files.forEach((f, j) => checkFile(f, `${where}.files[${j}]`, problems));
    check(x.defaultFor === undefined || x.defaultFor === 'cpu' || x.defaultFor === 'gpu', `${where}.defaultFor`, 'must be "cpu" or "gpu"', problems);
    if (x.archive !== undefined) checkFile({ name: 'archive', ...(x.archive as object) }, `${where}.archive`, problems);
  });
  if (problems.length) throw new UserError(`Catalog ${source} is invalid: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`, 'catalog-invalid');
  return json as ModelEntry[];
}

export async function loadCatalogFile(file: string): Promise<ModelEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UserError(`Cannot read catalog ${file}: ${(e as Error).message}`, 'catalog-unreadable');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UserError(`Catalog ${file} is not valid JSON (${(e as Error).message})`, 'catalog-invalid');
  }
  return parseCatalog(json, file);
}
