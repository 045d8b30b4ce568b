/** `--help` and `-h` on every command print its usage and exit 0, whatever else is on the line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from './helpers';

const CLIS = {
  talk: 'electron/cli/talk.ts',
  models: 'electron/cli/models.ts',
  bench: 'electron/cli/bench.ts',
  'dev:web': 'electron/cli/dev-web.ts',
  log: 'electron/cli/log.ts',
};

describe('--help on every CLI', () => {
  for (const [name, script] of Object.entries(CLIS)) {
    it(`${name}: --help and -h print the usage and exit 0`, async () => {
      for (const flag of ['--help', '-h']) {
        const r = await runCli(script, [flag, '--not-an-option']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, new RegExp(`Usage: npm run ${name} --`));
        assert.match(r.stdout, /-h, --help/);
        assert.equal(r.stderr.replace(/npm warn.*\n/g, ''), '');
      }
    });
  }

  it('an unknown option is still one error line and status 1', async () => {
    const r = await runCli(CLIS.talk, ['--nope']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: Unknown option '--nope'.*Usage: npm run talk --/);
  });
});
