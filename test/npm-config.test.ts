/**
 * onnxruntime-node's postinstall must not fetch its CUDA libraries from NuGet (unused here, and
 * fatal offline), and `npm run` must not warn about the project's npm config: the setting that did
 * this in .npmrc was not an npm config, so npm 11 warned on every command.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers';

describe('npm configuration', () => {
  it('`npm run` prints no warning about the project config', async () => {
    const stderr = await new Promise<string>((resolve, reject) =>
      // `npm run` alone lists the scripts: the config is read, nothing runs.
      execFile('npm', ['run'], { cwd: ROOT, timeout: 60_000 }, (err, _stdout, stderr) => (err ? reject(err) : resolve(stderr))),
    );
    assert.doesNotMatch(stderr, /Unknown project config/, stderr);
  });

  it('skips onnxruntime-node\'s CUDA download: denied in allowScripts, and skipped by the variable in CI', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    assert.equal(pkg.allowScripts?.['onnxruntime-node'], false);
    assert.match(readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8'), /^ONNXRUNTIME_NODE_INSTALL=skip npm ci /m);
    // The variable is the package's own switch: still read by the installed version.
    assert.match(readFileSync(path.join(ROOT, 'node_modules', 'onnxruntime-node', 'script', 'install-utils.js'), 'utf8'), /process\.env\.ONNXRUNTIME_NODE_INSTALL\b/);
    const npmrc = path.join(ROOT, '.npmrc');
    if (existsSync(npmrc)) assert.doesNotMatch(readFileSync(npmrc, 'utf8'), /onnxruntime/);
  });
});
