/**
 * The MCP servers setting (issue 27): `tools.mcpServers` checked with one clear error per mistake,
 * and the servers' environment values kept as secrets: moved out of settings.json into their own
 * store (owner-only here, encrypted in the app), never in the window's settings, events or a backup
 * of a broken file; "" in a patch keeps the stored value.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import { MCP_ENV_LABEL, mergeEnv } from '../electron/app/mcp-env';
import type { AppEvent } from '../electron/ipc-contract';
import { EncryptedFile, type Cipher } from '../electron/secrets/secret-store';
import { SettingsStore } from '../electron/settings/file';
import { DEFAULT_SETTINGS, validateSettings, withoutSecrets, type FieldError } from '../electron/settings/schema';
import { takeSecrets } from '../electron/settings/secrets-in-text';
import { tempDir } from './helpers';
import { controllerWithoutModels } from './controller-fixture';

const SECRET = 'ghp_Secret0123456789abcdef';
const OTHER = 'other-secret-value-42';

function errors(servers: unknown): FieldError[] {
  const r = validateSettings({ tools: { mcpServers: servers } });
  assert.equal(r.ok, false, 'expected validation to fail');
  return r.ok ? [] : r.errors;
}

describe('tools.mcpServers in settings', () => {
  it('takes stdio and HTTP servers, with defaults for what is left out, trimmed', () => {
    const r = validateSettings({
      tools: {
        mcpServers: [
          { name: ' files ', command: ' npx ', args: ['-y', 'server'], env: { TOKEN: SECRET } },
          { name: 'search.v2', url: 'https://example.com/mcp', enabled: false, disabledTools: ['a', 'a', 'b'] },
        ],
      },
    });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
    assert.deepEqual(r.value.tools.mcpServers, [
      { name: 'files', command: 'npx', args: ['-y', 'server'], env: { TOKEN: SECRET }, enabled: true },
      { name: 'search.v2', url: 'https://example.com/mcp', enabled: false, disabledTools: ['a', 'b'] },
    ]);
    assert.deepEqual(DEFAULT_SETTINGS.tools.mcpServers, []);
  });

  it('names each mistake once, at its place, and never repeats an environment value', () => {
    const e = errors([
      { name: 'Files', command: 'a' },
      { name: 'files', command: 'b' },
      { name: 'bad/name', command: 'c' },
      { name: 'x'.repeat(65), command: 'd' },
      { name: 'e', command: '  ' },
      { name: 'f', url: 'ftp://example.com' },
      { name: 'g', url: 'http://me:hunter2pass@example.com/mcp' },
      { name: 'h', command: 'x', url: 'http://example.com' },
      { name: 'i' },
      { name: 'j', command: 'x', colour: 'blue', url2: 1 },
      { name: 'k', url: 'http://example.com', args: [] },
      { name: 'l', command: 'x', args: 'one two' },
      { name: 'm', command: 'x', env: { TOKEN: 42, 'NOT OK': SECRET } },
      { name: 'n', command: 'x', enabled: 'yes', disabledTools: [''] },
      'a server',
    ]);
    const at = (p: string) => e.filter((x) => x.path === `tools.mcpServers${p}`).map((x) => x.message);
    assert.deepEqual(at('[1].name'), ['repeats the name "files" of tools.mcpServers[0]; each server needs a name of its own']);
    assert.match(at('[2].name')[0]!, /^must be a name of letters, digits, spaces and _ \. - \(at most 64 characters\), got "bad\/name"$/);
    assert.equal(at('[3].name').length, 1);
    assert.match(at('[4].command')[0]!, /^must be the program that starts the server/);
    assert.match(at('[5].url')[0]!, /^must be an http\(s\) address .*got "ftp:\/\/example\.com"$/);
    assert.match(at('[6].url')[0]!, /must not hold a user name or password/);
    assert.match(at('[7]')[0]!, /has both a command and a url/);
    assert.match(at('[8]')[0]!, /needs a command .* or a url/);
    assert.deepEqual(at('[9].colour'), ['is an unknown setting']);
    assert.deepEqual(at('[9].url2'), ['is an unknown setting']);
    assert.deepEqual(at('[10].args'), ['is only for a server started by a command']);
    assert.match(at('[11].args')[0]!, /^must be a list of at most 64 arguments/);
    assert.deepEqual(at('[12].env.TOKEN'), ['must be text of at most 4096 characters (the value is not shown)']);
    assert.match(at('[12].env')[0]!, /has a variable name that is not one .*: "NOT OK"/);
    assert.deepEqual(at('[13].enabled'), ['must be true or false, got "yes"']);
    assert.match(at('[13].disabledTools')[0]!, /^must be a list of at most 256 tool names/);
    assert.match(at('[14]')[0]!, /^must be a server such as/);
    assert.equal(e.length, 17, JSON.stringify(e, null, 1));
    const text = JSON.stringify(e);
    for (const secret of [SECRET, 'hunter2pass']) assert.ok(!text.includes(secret), `an error repeats ${secret}`);
  });

  it('bounds the list: at most 16 servers, and not something else', () => {
    const many = Array.from({ length: 17 }, (_, i) => ({ name: `s${i}`, command: 'x' }));
    assert.deepEqual(errors(many), [{ path: 'tools.mcpServers', message: 'must list at most 16 servers, got 17' }]);
    assert.match(errors({ name: 'x' })[0]!.message, /^must be a list of servers such as/);
    assert.match(errors([{ name: 'a', command: 'x', args: Array(65).fill('a') }])[0]!.message, /at most 64 arguments.*got 65 of them/);
    assert.match(errors([{ name: 'a', command: 'x', env: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`V${i}`, ''])) }])[0]!.message, /at most 32 variables, got 33/);
  });

  it('withoutSecrets keeps the variables\' names and blanks their values', () => {
    const r = validateSettings({ tools: { mcpServers: [{ name: 'a', command: 'x', env: { TOKEN: SECRET, EMPTY: '' } }, { name: 'b', url: 'http://localhost:1/mcp' }] } });
    assert.ok(r.ok);
    const shown = withoutSecrets(r.value);
    assert.deepEqual(shown.tools.mcpServers[0], { name: 'a', command: 'x', args: [], env: { TOKEN: '', EMPTY: '' }, enabled: true });
    assert.ok(!JSON.stringify(shown).includes(SECRET));
    assert.equal(r.value.tools.mcpServers[0] && 'env' in r.value.tools.mcpServers[0] && r.value.tools.mcpServers[0].env.TOKEN, SECRET, 'the settings themselves are untouched');
  });

  it('mergeEnv: a value given replaces the stored one, "" keeps it, what is no longer named goes', () => {
    const stored = { a: { KEEP: 'k1', CHANGE: 'c1', DROP: 'd1' }, gone: { X: 'x' } };
    const servers = [
      { name: 'a', command: 'x', args: [], env: { KEEP: '', CHANGE: 'c2', NEW: 'n', UNSET: '' }, enabled: true },
      { name: 'web', url: 'http://localhost/mcp', enabled: true },
    ];
    assert.deepEqual(mergeEnv(servers, stored), { a: { KEEP: 'k1', CHANGE: 'c2', NEW: 'n' } });
  });

  it('a broken settings file set aside keeps no environment value in its backup', async () => {
    const text = `{"tools": {"mcpServers": [{"name": "a", "command": "x", "env": {"TOKEN": "${SECRET}", "B": "x}y{z-${OTHER}"}}]}, "note": "x}y{z-${OTHER}",}`;
    const taken = takeSecrets(text);
    assert.equal(taken.envTaken, true);
    for (const s of [SECRET, OTHER]) assert.ok(!taken.text.includes(s), taken.text);
    assert.match(taken.text, /"env": \{"TOKEN": "", "B": ""\}/);

    const dir = tempDir('lva-mcp-set-');
    const file = path.join(dir, 'settings.json');
    await writeFile(file, text);
    const r = await new SettingsStore(file).load();
    assert.match(r.notice ?? '', /The MCP servers' environment values in it were taken out of the backup: enter them again\./);
    const backup = (await readdir(dir)).find((f) => f.includes('.corrupt-'))!;
    const kept = await readFile(path.join(dir, backup), 'utf8');
    for (const s of [SECRET, OTHER]) assert.ok(!kept.includes(s), kept);
  });
});

function controllerIn(dir: string, mcpSecrets?: EncryptedFile): { controller: AssistantController; events: AppEvent[] } {
  // No models: the settings and their secrets are what is tested here.
  return controllerWithoutModels(dir, mcpSecrets ? { mcpSecrets } : {});
}

/** A server that needs no process: these tests never connect. */
const server = (env: Record<string, string>) => ({ name: 'files', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 1)'], env, enabled: false });

describe('the MCP servers\' environment values in the app', () => {
  it('written into settings.json by hand, they move to their owner-only store; the file, snapshot and events keep only the names', async () => {
    const dir = tempDir('lva-mcp-env-');
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ tools: { mcpServers: [server({ TOKEN: SECRET, OTHER })] } }));
    const { controller, events } = controllerIn(dir);
    try {
      await controller.start();
      const file = await readFile(path.join(dir, 'settings.json'), 'utf8');
      assert.deepEqual(JSON.parse(file).tools.mcpServers[0].env, { TOKEN: '', OTHER: '' });
      const store = await readFile(path.join(dir, 'mcp-env'), 'utf8');
      assert.deepEqual(JSON.parse(store), { files: { TOKEN: SECRET, OTHER } });
      if (process.platform !== 'win32') assert.equal((await stat(path.join(dir, 'mcp-env'))).mode & 0o777, 0o600);
      assert.ok(events.some((e) => e.type === 'notice' && e.level === 'info' && /environment values found in settings\.json were moved out of it/.test(e.message)));
      const seen = JSON.stringify([controller.snapshot(), events]);
      for (const s of [SECRET, OTHER]) assert.ok(!seen.includes(s), 'a value reached the window');
    } finally {
      await controller.dispose();
    }
  });

  it('from the window: a new value is stored, "" keeps the stored one, a removed variable or server is forgotten, reset forgets all', async () => {
    const dir = tempDir('lva-mcp-env-');
    const { controller, events } = controllerIn(dir);
    const stored = async () => JSON.parse(await readFile(path.join(dir, 'mcp-env'), 'utf8').catch(() => '{}')) as unknown;
    try {
      await controller.start();
      const set = await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [server({ TOKEN: SECRET, OTHER })] } } });
      assert.ok(set.ok, !set.ok ? set.error : '');
      assert.deepEqual(set.settings.tools.mcpServers[0], { ...server({ TOKEN: '', OTHER: '' }) });
      assert.deepEqual(await stored(), { files: { TOKEN: SECRET, OTHER } });
      // The window sends the servers back as it sees them ("" values), with one tool switched off.
      const back = await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [{ ...server({ TOKEN: '', OTHER: '' }), disabledTools: ['echo'] }] } } });
      assert.ok(back.ok);
      assert.deepEqual(await stored(), { files: { TOKEN: SECRET, OTHER } }, '"" keeps the stored value');
      await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [server({ TOKEN: 'new-value-123' })] } } });
      assert.deepEqual(await stored(), { files: { TOKEN: 'new-value-123' } }, 'OTHER is no longer named');
      const file = await readFile(path.join(dir, 'settings.json'), 'utf8');
      for (const s of [SECRET, OTHER, 'new-value-123']) assert.ok(!file.includes(s), file);
      await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [] } } });
      assert.deepEqual(await stored(), {}, 'the server is gone, and its values with it');
      await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [server({ TOKEN: SECRET })] } } });
      await controller.request({ type: 'reset-settings' });
      assert.deepEqual(await stored(), {});
      const seen = JSON.stringify([controller.snapshot(), events]);
      for (const s of [SECRET, OTHER, 'new-value-123']) assert.ok(!seen.includes(s), 'a value reached the window');
    } finally {
      await controller.dispose();
    }
  });

  it('a store that cannot encrypt refuses the values: one clear error, nothing saved', async () => {
    const dir = tempDir('lva-mcp-env-');
    const noKeyring: Cipher = {
      protection: 'encrypted by nothing',
      unavailable: async () => 'no desktop keyring is running',
      encrypt: async () => new Uint8Array(),
      decrypt: async () => ({ text: '', reEncrypt: false }),
    };
    const { controller } = controllerIn(dir, new EncryptedFile(path.join(dir, 'mcp-env.enc'), noKeyring, MCP_ENV_LABEL));
    try {
      await controller.start();
      const r = await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [server({ TOKEN: SECRET })] } } });
      assert.deepEqual(r, { ok: false, error: "The MCP servers' environment values cannot be stored encrypted here: no desktop keyring is running. The settings were not saved." });
      await assert.rejects(readFile(path.join(dir, 'settings.json'), 'utf8'), 'nothing was written');
      assert.deepEqual(controller.settings.tools.mcpServers, []);
      // Names alone need no store.
      const names = await controller.request({ type: 'update-settings', patch: { tools: { mcpServers: [server({ TOKEN: '' })] } } });
      assert.ok(names.ok, !names.ok ? names.error : '');
    } finally {
      await controller.dispose();
    }
  });
});
