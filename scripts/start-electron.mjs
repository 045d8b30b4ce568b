/**
 * `npm start`: builds the app, then runs it with the Electron binary from node_modules/electron.
 * Since Electron 42 that binary is downloaded on first use, not at install; without it (offline, as
 * in some CI or sandboxed machines) this prints one line saying so and exits non-zero.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll } from './build-electron.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/**
 * The Electron executable's path, or an Error saying why there is none. `require('electron')` tries
 * to download a missing binary and prints the failure's stack, so the first attempt runs in a child
 * whose output is kept; only its last line is shown.
 */
function electronBinary() {
  let pkgDir;
  try {
    pkgDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return new Error('the electron package is not installed (run npm install)');
  }
  const probe = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("electron"))'], {
    cwd: pkgDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (probe.status !== 0) {
    const lines = `${probe.stderr ?? ''}`.split('\n').map((l) => l.trim()).filter(Boolean);
    const cause = lines.find((l) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|fetch failed|HTTPError/i.test(l)) ?? lines.at(-1) ?? 'unknown error';
    return new Error(`it could not be downloaded (${cause.slice(0, 200)})`);
  }
  // Downloaded (or already there): now require() returns the path without side effects.
  const bin = require('electron');
  return typeof bin === 'string' && existsSync(bin) ? bin : new Error(`${String(bin)} does not exist`);
}

// Electron 45's own tools (@electron/get, which downloads the binary) declare Node >= 22.12.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.warn(`npm start: Electron 45's tools need Node 22.12 or newer; this is Node ${process.versions.node}. If starting fails, install Node 22 LTS.`);
}

try {
  await buildAll();
} catch (err) {
  if (!err?.errors) console.error(err);
  console.error('npm start: the build failed.');
  process.exit(1);
}

const bin = electronBinary();
if (bin instanceof Error) {
  console.error(
    `npm start: Electron's binary is not available: ${bin.message}. Run "npx install-electron" with internet access (or set ELECTRON_OVERRIDE_DIST_PATH), then npm start again.`,
  );
  process.exit(1);
}

const child = spawn(bin, [root, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
