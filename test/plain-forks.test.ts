import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutPreloads, withPlainForks } from '../electron/engines/plain-forks';

describe('forks without preloaded modules (node-llama-cpp binary probe)', () => {
  it('drops --import, --require and --loader with their values, keeps every other flag', () => {
    const argv = ['--import', 'tsx', '--max-old-space-size=512', '-r', 'x.cjs', '--import=y.mjs', '--experimental-loader', 'z', '--loader=w', '--enable-source-maps'];
    assert.deepEqual(withoutPreloads(argv), ['--max-old-space-size=512', '--enable-source-maps']);
  });

  it('restores the flags after the work, also when it fails', async () => {
    const before = process.execArgv;
    process.execArgv = ['--import', 'tsx', '--trace-warnings'];
    try {
      const seen = await withPlainForks(async () => process.execArgv);
      assert.deepEqual(seen, ['--trace-warnings']);
      assert.deepEqual(process.execArgv, ['--import', 'tsx', '--trace-warnings']);
      await assert.rejects(withPlainForks(async () => Promise.reject(new Error('no binary'))), /no binary/);
      assert.deepEqual(process.execArgv, ['--import', 'tsx', '--trace-warnings']);
    } finally {
      process.execArgv = before;
    }
  });
});
