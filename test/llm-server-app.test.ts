/**
 * The LLM server in the app's controller, through its typed contract: the API key is kept out of
 * settings.json (an owner-only file here, safeStorage in Electron) and never reaches the window or
 * an event; the model list and "test connection" go through main; with the server chosen, a local
 * language model is no longer required, and the status says where the model runs.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import { API_KEY_FILE } from '../electron/app/server-access';
import type { AppEvent } from '../electron/ipc-contract';
import { MODELS_DIR } from './engine-fixtures';
import { runCli, SPEECH, tempDir } from './helpers';
import { startHostileServer } from './hostile-server';
import { startOpenAiServer, type OpenAiTestServer } from './openai-server';

const KEY = 'sk-test-4f1d2c9a7e';

let server: OpenAiTestServer;
before(async () => {
  server = await startOpenAiServer({ apiKey: KEY });
});
after(async () => {
  await server?.close();
});

async function until<T>(what: string, get: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function controllerIn(dir: string, modelRoots: string[]): { controller: AssistantController; events: AppEvent[] } {
  const controller = new AssistantController({
    settingsFile: path.join(dir, 'settings.json'),
    modelRoots: () => modelRoots,
    downloadRoot: path.join(dir, 'downloads'),
    audioSink: () => null,
    detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
  });
  const events: AppEvent[] = [];
  controller.on((e) => events.push(e));
  return { controller, events };
}

describe('the API key', () => {
  const dir = tempDir('lva-key-');
  const { controller, events } = controllerIn(dir, [path.join(dir, 'no-models')]);
  after(() => controller.dispose());

  it('written into settings.json by hand, is moved to an owner-only file and out of settings.json', async () => {
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ llm: { server: { baseUrl: server.baseUrl, model: server.model, apiKey: KEY } } }));
    await controller.start();
    const settingsText = await readFile(path.join(dir, 'settings.json'), 'utf8');
    assert.ok(!settingsText.includes(KEY), 'settings.json no longer holds the key');
    assert.equal(JSON.parse(settingsText).llm.server.baseUrl, server.baseUrl, 'and keeps the rest');
    const keyFile = path.join(dir, API_KEY_FILE);
    assert.equal(await readFile(keyFile, 'utf8'), `${server.baseUrl}\n${KEY}`, 'kept for the server in that file');
    if (process.platform !== 'win32') assert.equal((await stat(keyFile)).mode & 0o777, 0o600, 'readable by its owner only');
    assert.deepEqual(controller.snapshot().status.apiKey, { stored: true, protection: 'kept in a file only your user account can read', for: server.baseUrl });
  });

  it('the model list and the connection test use the stored key, through main', async () => {
    const listed = await controller.request({ type: 'llm-server-models' });
    assert.deepEqual(listed, { ok: true, models: [server.model] });
    const tested = await controller.request({ type: 'llm-server-test', baseUrl: server.baseUrl, model: server.model });
    assert.equal(tested.ok, true, JSON.stringify(tested));
    if (tested.ok) assert.ok(tested.firstTokenMs > 0 && tested.firstTokenMs < 30_000);
    const wrong = await controller.request({ type: 'llm-server-test', model: 'no-such-model' });
    assert.equal(wrong.ok, false);
    if (!wrong.ok) assert.match(wrong.error, /The LLM server has no model 'no-such-model' \(404\)/);
  });

  it('the stored key goes only to the server it was entered for: a typed new address gets none, and is told why', async () => {
    const other = await startHostileServer();
    try {
      const elsewhere = other.url('echo-key');
      const listed = await controller.request({ type: 'llm-server-models', baseUrl: elsewhere });
      const tested = await controller.request({ type: 'llm-server-test', baseUrl: other.url('ok'), model: 'm' });
      assert.equal(tested.ok, true, JSON.stringify(tested));
      assert.deepEqual(other.authorizations, ['', '', ''], 'no request to the new address carried the key');
      assert.equal(listed.ok, false);
      if (!listed.ok) assert.match(listed.error, new RegExp(`wants an API key, and none is set \\(401\\).* The stored key is for ${server.baseUrl.replace(/[./]/g, '\\$&')} and is sent only there`));
      // A key entered for the new address is kept for it, and the first server no longer gets one.
      assert.deepEqual(await controller.request({ type: 'set-api-key', key: 'sk-second-server-key', baseUrl: `${other.url('ok')}/` }), { ok: true, stored: true });
      assert.equal(controller.snapshot().status.apiKey.for, other.url('ok'));
      await controller.request({ type: 'llm-server-models', baseUrl: other.url('ok') });
      assert.equal(other.authorizations.at(-1), 'Bearer sk-second-server-key');
      const first = await controller.request({ type: 'llm-server-models' });
      assert.equal(first.ok, false, 'the settings\' server is not sent the new key');
      // No address at all: the key is refused, not kept for whatever comes next.
      const nowhere = await controller.request({ type: 'set-api-key', key: 'sk-nowhere-0000', baseUrl: 'not a url' });
      assert.equal(nowhere.ok, false);
      if (!nowhere.ok) assert.match(nowhere.error, /^Enter the server's address first/);
    } finally {
      await other.close();
      assert.deepEqual(await controller.request({ type: 'set-api-key', key: KEY }), { ok: true, stored: true });
    }
    assert.deepEqual(await controller.request({ type: 'llm-server-models' }), { ok: true, models: [server.model] });
  });

  it('a patch with an invalid field stores nothing, the key included', async () => {
    const r = await controller.request({ type: 'update-settings', patch: { llm: { server: { apiKey: 'sk-other', baseUrl: 'ftp://x' } } } });
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, /llm\.server\.baseUrl must be an http\(s\) address/);
    assert.equal(await readFile(path.join(dir, API_KEY_FILE), 'utf8'), `${server.baseUrl}\n${KEY}`);
  });

  it('a key of the wrong type is refused without being echoed', async () => {
    const r = await controller.request({ type: 'update-settings', patch: { llm: { server: { apiKey: 12345678 } } } });
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.match(r.error, /llm\.server\.apiKey must be the API key as text/);
      assert.ok(!r.error.includes('12345678'));
    }
    const bad = await controller.request({ type: 'set-api-key', key: 42 } as never);
    assert.equal(bad.ok, false);
  });

  it('a key no HTTP header can carry, or 10 kB of one, is refused in one sentence, by either path; nothing changes', async () => {
    const before = await readFile(path.join(dir, 'settings.json'), 'utf8');
    for (const key of ['sk-new\nline', 'sk-nul\u0000', 'sk-ümlaut', 'sk-'.padEnd(10_000, 'k')]) {
      const patched = await controller.request({ type: 'update-settings', patch: { llm: { server: { apiKey: key } }, turnBudgetMs: 3000 } });
      assert.equal(patched.ok, false, JSON.stringify(key.slice(0, 12)));
      if (!patched.ok) assert.match(patched.error, /^The API key (may only have letters, digits and punctuation|is 10000 characters long)/);
      const direct = await controller.request({ type: 'set-api-key', key });
      assert.equal(direct.ok, false);
      for (const r of [patched, direct]) if (!r.ok) assert.ok(!r.error.includes(key.slice(0, 8)), r.error);
    }
    assert.equal(await readFile(path.join(dir, 'settings.json'), 'utf8'), before, 'an invalid patch changes nothing');
    assert.deepEqual(await controller.request({ type: 'llm-server-models' }), { ok: true, models: [server.model] }, 'the stored key still works');
  });

  it('removed, the server refuses; stored again from a settings patch, it works', async () => {
    assert.deepEqual(await controller.request({ type: 'set-api-key', key: null }), { ok: true, stored: false });
    const refused = await controller.request({ type: 'llm-server-models' });
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.match(refused.error, /wants an API key, and none is set \(401\)/);
    const saved = await controller.request({ type: 'update-settings', patch: { llm: { server: { apiKey: KEY } } } });
    assert.equal(saved.ok, true);
    assert.deepEqual(await controller.request({ type: 'llm-server-models' }), { ok: true, models: [server.model] });
    assert.ok(!(await readFile(path.join(dir, 'settings.json'), 'utf8')).includes(KEY));
  });

  it('never reaches the window: not in the snapshot, the settings, any event or answer', () => {
    assert.ok(!JSON.stringify(controller.snapshot()).includes(KEY));
    assert.ok(!JSON.stringify(events).includes(KEY));
    assert.ok(!('apiKey' in controller.snapshot().settings.llm.server));
  });
});

describe('a key in a settings.json the app cannot use', () => {
  it('goes to the key store for the address beside it, and nowhere in the backup', async () => {
    const dir = tempDir('lva-key-corrupt-');
    const { controller } = controllerIn(dir, [path.join(dir, 'no-models')]);
    try {
      await writeFile(path.join(dir, 'settings.json'), `{"llm": {"server": {"baseUrl": "${server.baseUrl}", "apiKey": "${KEY}"}}, "turnBudgetMs": "soon"}`);
      await controller.start();
      assert.equal(await readFile(path.join(dir, API_KEY_FILE), 'utf8'), `${server.baseUrl}\n${KEY}`);
      const backups = (await readdir(dir)).filter((f) => f.startsWith('settings.json.corrupt-'));
      assert.equal(backups.length, 1);
      assert.ok(!(await readFile(path.join(dir, backups[0]!), 'utf8')).includes(KEY), 'the backup does not hold the key');
      assert.deepEqual(await controller.request({ type: 'llm-server-models', baseUrl: server.baseUrl }), { ok: true, models: [server.model] }, 'the key works for its server');
    } finally {
      await controller.dispose();
    }
  });
});

describe('with the server chosen', () => {
  it('no local language model is needed: the assistant loads without one, and says where the model runs', async () => {
    const dir = tempDir('lva-srv-');
    // The shared models, the language model left out.
    const roots = path.join(dir, 'models');
    await mkdir(roots);
    for (const kind of ['vad', 'stt', 'tts-synthetic', 'turn']) await symlink(path.join(MODELS_DIR, kind), path.join(roots, kind));
    await writeFile(
      path.join(dir, 'settings.json'),
      JSON.stringify({ llm: { provider: 'openai-compatible', server: { baseUrl: server.baseUrl, model: server.model } } }),
    );
    await writeFile(path.join(dir, API_KEY_FILE), KEY, { mode: 0o600 });
    const { controller } = controllerIn(dir, [roots]);
    try {
      await controller.start();
      const status = await until('ready', () => (controller.snapshot().status.phase === 'ready' ? controller.snapshot().status : undefined));
      assert.equal(status.setup, null, 'no download was offered');
      assert.equal(status.llm?.backend, 'server');
      assert.deepEqual(status.llm?.server, { baseUrl: server.baseUrl, model: server.model, fallback: null });
      const llm = status.models.find((m) => m.kind === 'llm');
      assert.equal(llm?.state, 'ready');
      assert.equal(llm?.name, `${server.model} on ${server.baseUrl}`);
      // Back to this computer: with no local model installed, first run offers one.
      const r = await controller.request({ type: 'update-settings', patch: { llm: { provider: 'local' } } });
      assert.equal(r.ok, true);
      const setup = await until('setup', () => controller.snapshot().status.setup ?? undefined);
      assert.deepEqual(
        setup.models.map((m) => m.kind),
        ['llm'],
      );
    } finally {
      await controller.dispose();
    }
  });

  it('choosing the server with no address is refused in words, and the window says what to set', async () => {
    const dir = tempDir('lva-srv-');
    const { controller } = controllerIn(dir, [MODELS_DIR]);
    try {
      await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ llm: { provider: 'openai-compatible' } }));
      await controller.start();
      const status = controller.snapshot().status;
      assert.equal(status.phase, 'error');
      assert.match(status.error ?? '', /set to an OpenAI-compatible server, but its address \(llm\.server\.baseUrl\) and model \(llm\.server\.model\) are not set/);
    } finally {
      await controller.dispose();
    }
  });
});

describe('talk with the server', () => {
  it('answers through it with the key from the settings file, which the report leaves out', async () => {
    const dir = tempDir('lva-talk-srv-');
    const settingsFile = path.join(dir, 'settings.json');
    await writeFile(
      settingsFile,
      JSON.stringify({ prepareAnswers: false, llm: { maxTokens: 24, temperature: 0, provider: 'openai-compatible', server: { baseUrl: server.baseUrl, model: server.model, apiKey: KEY } } }),
    );
    const reportFile = path.join(dir, 'report.json');
    const r = await runCli('electron/cli/talk.ts', ['--input', path.join(SPEECH, 'weather.wav'), '--fast', '--quiet', '--models', MODELS_DIR, '--settings', settingsFile, '--report', reportFile]);
    assert.equal(r.code, 0, r.stderr);
    const text = await readFile(reportFile, 'utf8');
    assert.ok(!text.includes(KEY), 'no key in the report');
    assert.ok(!(r.stdout + r.stderr).includes(KEY), 'nor in the output');
    const report = JSON.parse(text) as { turns: { llm: unknown; assistantText: string }[]; models: { llm: { id: string } } };
    assert.deepEqual(report.turns[0]!.llm, { provider: 'openai-compatible', fallback: false, error: null });
    assert.ok(report.turns[0]!.assistantText.length > 0);
    assert.equal(report.models.llm.id, `openai-compatible:${server.model}`);
  });
});

