/** The version in this checkout's package.json, for what the commands log (the app asks Electron instead). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_JSON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');

export async function packageVersion(): Promise<string> {
  try {
    const { version } = JSON.parse(await readFile(PACKAGE_JSON, 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : '0.0.0-dev';
  } catch {
    return '0.0.0-dev';
  }
}
