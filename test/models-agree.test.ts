/**
 * `models list` and `models verify` agree on what is installed: on the shared test models, on an
 * empty folder, and on a folder with a damaged model. `list` has a header, says `missing`, marks this
 * machine's defaults and lists test models only with `--all`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { listLines, type ListedModel } from '../electron/cli/models-list';
import { detectHardware } from '../electron/engines/hardware';
import { ALL_MODELS, DEFAULT_CATALOG, TEST_CATALOG } from '../native-models/catalog';
import { planSetup } from '../native-models/setup-plan';
import { bytesOrUnknown } from '../native-models/sizes';
import { MODELS, runCli, tempDir } from './helpers';

const models = (args: string[]) => runCli('electron/cli/models.ts', args, 300_000);

/** The ids `verify` checked, and whether each passed. */
function verified(stdout: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const m of stdout.matchAll(/^(ok|FAILED) +(\S+)/gm)) out.set(m[2]!, m[1] === 'ok');
  return out;
}

function notMissing(rows: ListedModel[]): string[] {
  return rows.filter((r) => r.state !== 'missing').map((r) => r.id);
}

describe('models list and verify agree', () => {
  it('on the shared test models: the same seven are installed, and verify passes each', async () => {
    const [all, verify] = await Promise.all([models(['list', '--all', '--json', '--dir', MODELS]), models(['verify', '--dir', MODELS])]);
    for (const r of [all, verify]) assert.equal(r.code, 0, r.stdout + r.stderr);
    const rows = JSON.parse(all.stdout) as ListedModel[];
    // The table `list` prints without --json, from the same rows (hardware detection makes each CLI run slow).
    const table = listLines(rows, MODELS, false).join('\n');
    const installed = rows.filter((r) => r.state === 'installed').map((r) => r.id);
    assert.deepEqual(installed, TEST_CATALOG.map((e) => e.id));
    assert.deepEqual([...verified(verify.stdout)], installed.map((id) => [id, true]), verify.stdout);

    // The table: a header, `missing` rather than a blank, no test model without --all, but a line saying they are there.
    const lines = table.split('\n');
    assert.match(lines[1]!, /^STATUS +KIND +DOWNLOAD +ID +LICENCE$/);
    const body = lines.filter((l) => /^(installed|missing|damaged|unfinished) /.test(l));
    assert.equal(body.length, DEFAULT_CATALOG.length, table);
    assert.ok(body.every((l) => l.startsWith('missing ')), table);
    assert.ok(!body.some((l) => / test-/.test(l)), 'test models are listed only with --all');
    assert.match(table, /^7 test model\(s\) are installed here too \(test-vad-silero, .*\): `--all` lists them\.$/m);

    // One default per kind, the same as --json says, and all of them models this machine can download.
    // STATUS KIND SIZE UNIT ID: the size is a number and a unit.
    const starred = body.filter((l) => / \* /.test(l)).map((l) => l.split(/ +/)[4]!);
    assert.deepEqual(starred, rows.filter((r) => r.default).map((r) => r.id));
    assert.deepEqual(
      rows.filter((r) => r.default).map((r) => r.kind),
      ['vad', 'stt', 'llm', 'tts', 'turn'],
    );
    for (const r of rows.filter((x) => x.default && x.kind !== 'llm')) assert.equal(r.id, DEFAULT_CATALOG.find((e) => e.kind === r.kind)!.id);
    // The first-run screen agrees: every kind has a model here, so there is nothing to download.
    const noHardware = async () => assert.fail('no LLM choice to make');
    assert.equal(await planSetup(ALL_MODELS, [MODELS], noHardware, { optionalAlone: true }), null);
  });

  it('on an empty folder: nothing is installed, and both say so', async () => {
    const dir = tempDir('lva-agree-empty-');
    const [list, verify] = await Promise.all([models(['list', '--all', '--json', '--dir', dir]), models(['verify', '--dir', dir])]);
    for (const r of [list, verify]) assert.equal(r.code, 0, r.stdout + r.stderr);
    const rows = JSON.parse(list.stdout) as ListedModel[];
    assert.deepEqual(notMissing(rows), []);
    const table = listLines(rows, dir, false).join('\n');
    assert.match(table, /^No model is installed in this folder\.$/m);
    assert.equal(verified(verify.stdout).size, 0);
    assert.match(verify.stdout, /^No model is installed in /m);
    // The first-run screen would download exactly the models list marks as this machine's defaults, at the sizes list shows.
    const plan = await planSetup(ALL_MODELS, [dir], detectHardware, { optionalAlone: true });
    const defaults = rows.filter((r) => r.default);
    assert.deepEqual(plan!.models.map((m) => [m.id, bytesOrUnknown(m.bytes)]), defaults.map((r) => [r.id, bytesOrUnknown(r.bytes)]));
    for (const r of defaults) assert.match(table, new RegExp(`^missing +${r.kind} +${bytesOrUnknown(r.bytes).replace('.', '\\.')} +${r.id.replace(/\./g, '\\.')} \\*`, 'm'));
  });

  it('on a folder with a damaged model: list says damaged, verify fails that one and passes the good one', async () => {
    const dir = tempDir('lva-agree-damaged-');
    const catalogFile = path.join(dir, 'catalog.json');
    writeFileSync(catalogFile, JSON.stringify(TEST_CATALOG.filter((e) => e.kind === 'vad' || e.kind === 'llm')));
    const root = path.join(dir, 'models');
    mkdirSync(path.join(root, 'vad'), { recursive: true });
    writeFileSync(path.join(root, 'vad', 'silero_vad.onnx'), 'not the model');
    mkdirSync(path.join(root, 'llm'));
    copyFileSync(path.join(MODELS, 'llm', 'stories260K.gguf'), path.join(root, 'llm', 'stories260K.gguf'));
    const args = ['--dir', root, '--catalog', catalogFile];
    const [list, verify] = await Promise.all([models(['list', '--all', '--json', ...args]), models(['verify', ...args])]);
    assert.equal(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as ListedModel[];
    assert.deepEqual(rows.map((r) => [r.id, r.state]), [['test-vad-silero', 'damaged'], ['test-llm-stories260k', 'installed']]);
    assert.equal(verify.code, 1);
    assert.deepEqual([...verified(verify.stdout)], [['test-vad-silero', false], ['test-llm-stories260k', true]], verify.stdout);
    assert.match(verify.stderr, /^error: 1 model\(s\) failed verification/m);
  });
});
