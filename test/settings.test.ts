import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../electron/errors';
import {
  DEFAULT_SETTINGS,
  SETTINGS_RANGES,
  mergeSettings,
  validateSettings,
  type FieldError,
  type Settings,
} from '../electron/settings/schema';
import { SettingsStore, loadSettingsFile } from '../electron/settings/file';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'settings-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function errorsOf(input: unknown, base?: Settings): FieldError[] {
  const r = validateSettings(input, base);
  assert.equal(r.ok, false, 'expected validation to fail');
  return r.ok ? [] : r.errors;
}

function errorAt(errors: FieldError[], path: string): FieldError {
  const e = errors.find((x) => x.path === path);
  assert.ok(e, `no error for ${path}; got ${JSON.stringify(errors)}`);
  return e;
}

async function rejectsWithUserError(p: Promise<unknown>, ...fragments: (string | RegExp)[]): Promise<UserError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof UserError, `expected a UserError, got ${String(caught)}`);
  for (const f of fragments) {
    if (typeof f === 'string') assert.ok(caught.message.includes(f), `message lacks ${JSON.stringify(f)}: ${caught.message}`);
    else assert.match(caught.message, f);
  }
  return caught;
}

test('defaults are valid, in range and frozen', () => {
  const r = validateSettings({});
  assert.ok(r.ok);
  assert.deepEqual(r.value, DEFAULT_SETTINGS);
  assert.notEqual(r.value, DEFAULT_SETTINGS, 'a fresh copy, not the shared defaults');
  assert.equal(DEFAULT_SETTINGS.endpointing.silenceMs, 600);
  assert.ok(DEFAULT_SETTINGS.bargeIn.minSpeechMs > DEFAULT_SETTINGS.endpointing.minSpeechMs);
  for (const [path, range] of Object.entries(SETTINGS_RANGES)) {
    const value = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], DEFAULT_SETTINGS);
    if (value === 'auto') continue;
    assert.equal(typeof value, 'number', path);
    assert.ok((value as number) >= range.min && (value as number) <= range.max, `${path} default out of range`);
  }
  assert.throws(() => {
    (DEFAULT_SETTINGS.endpointing as { silenceMs: number }).silenceMs = 1;
  }, TypeError);
  assert.match(DEFAULT_SETTINGS.llm.systemPrompt, /markdown/i);
});

test('a partial object merges over the defaults without touching the base', () => {
  const r = validateSettings({ endpointing: { silenceMs: 300 }, llm: { gpuLayers: 20 }, models: { llm: 'qwen' } });
  assert.ok(r.ok);
  assert.equal(r.value.endpointing.silenceMs, 300);
  assert.equal(r.value.endpointing.minSpeechMs, DEFAULT_SETTINGS.endpointing.minSpeechMs);
  assert.equal(r.value.llm.gpuLayers, 20);
  assert.equal(r.value.llm.temperature, DEFAULT_SETTINGS.llm.temperature);
  assert.equal(r.value.models.llm, 'qwen');
  assert.equal(DEFAULT_SETTINGS.endpointing.silenceMs, 600);

  const merged = mergeSettings(r.value, { endpointing: { maxTurnMs: 10000 }, models: { llm: null } });
  assert.equal(merged.endpointing.silenceMs, 300, 'keeps the base values');
  assert.equal(merged.endpointing.maxTurnMs, 10000);
  assert.equal(merged.models.llm, null);
  assert.equal(r.value.endpointing.maxTurnMs, DEFAULT_SETTINGS.endpointing.maxTurnMs, 'base not modified');
});

test('each kind of invalid field is named, and all of them are reported', () => {
  const errors = errorsOf({
    mode: 'always-on',
    wakePhrase: 'hey computer!',
    endpointing: { silenceMs: 'abc', minSpeechMs: -3, vadThreshold: 1.5, maxTurnMs: 2500.5, silenceMS: 300 },
    bargeIn: { enabled: 'yes', backchannels: 1, acknowledgements: 'x'.repeat(1001) },
    llm: { temperature: 3, gpuLayers: 'max', gpu: 'rocm', temprature: 1 },
    tts: 'fast',
    models: { llm: '' },
    silenceMs: 200,
    colour: 'blue',
  });
  assert.match(errorAt(errors, 'mode').message, /one of "hands-free", "push-to-talk", "one-shot", "wake-phrase", got "always-on"/);
  assert.match(errorAt(errors, 'wakePhrase').message, /^must be one to six words of letters, at most 60 characters \(e\.g\. "hey computer"\), got "hey computer!"$/);
  assert.match(errorAt(errors, 'bargeIn.backchannels').message, /^must be true or false, got 1$/);
  assert.match(errorAt(errors, 'bargeIn.acknowledgements').message, /^must be acknowledgement phrases separated by commas/);
  assert.equal(errorAt(errors, 'endpointing.silenceMs').message, 'must be a whole number between 100 and 5000 (ms), got "abc"');
  assert.match(errorAt(errors, 'endpointing.minSpeechMs').message, /between 0 and 2000 \(ms\), got -3$/);
  assert.match(errorAt(errors, 'endpointing.vadThreshold').message, /between 0.05 and 0.95, got 1.5$/);
  assert.match(errorAt(errors, 'endpointing.maxTurnMs').message, /whole number.*got 2500.5$/);
  assert.match(errorAt(errors, 'endpointing.silenceMS').message, /unknown setting; did you mean "endpointing.silenceMs"\?/);
  assert.match(errorAt(errors, 'bargeIn.enabled').message, /true or false, got "yes"/);
  assert.match(errorAt(errors, 'llm.temperature').message, /between 0 and 2, got 3$/);
  assert.match(errorAt(errors, 'llm.gpuLayers').message, /"auto" or a whole number between 0 and 999/);
  assert.match(errorAt(errors, 'llm.gpu').message, /one of "auto", "cuda", "vulkan", "metal", "cpu", got "rocm"/);
  assert.match(errorAt(errors, 'llm.temprature').message, /unknown setting; did you mean "llm.temperature"\?/);
  assert.match(errorAt(errors, 'tts').message, /must be an object with the settings speakerId, speed, firstChunkWords, got "fast"/);
  assert.match(errorAt(errors, 'models.llm').message, /model id .* or null/);
  assert.match(errorAt(errors, 'silenceMs').message, /unknown setting; did you mean "endpointing.silenceMs"\?/);
  assert.equal(errorAt(errors, 'colour').message, 'is an unknown setting');
  assert.equal(errors.length, 18);
});

test('odd inputs are rejected cleanly', () => {
  assert.match(errorsOf([])[0]?.message ?? '', /must be an object/);
  assert.match(errorsOf(null)[0]?.message ?? '', /got null/);
  assert.equal(errorsOf({ toString: 1 })[0]?.path, 'toString');
  assert.equal(errorsOf(JSON.parse('{"__proto__": {"mode": "push-to-talk"}}'))[0]?.path, '__proto__');
  assert.match(errorAt(errorsOf({ llm: { threads: Number.NaN } }), 'llm.threads').message, /0 = auto/);
  assert.match(errorAt(errorsOf({ endpointing: [] }), 'endpointing').message, /got a list/);
  assert.match(errorAt(errorsOf({ llm: { systemPrompt: 5 } }), 'llm.systemPrompt').message, /must be a string/);
  // undefined counts as absent (optional properties of a DeepPartial patch)
  assert.ok(validateSettings({ mode: undefined }).ok);
  assert.throws(() => mergeSettings(DEFAULT_SETTINGS, { tts: { speed: 9 } }), (e: unknown) => e instanceof UserError && /tts.speed/.test(e.message));
});

test('loadSettingsFile: partial file merges over defaults', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 's.json');
  await writeFile(file, '\ufeff{"endpointing": {"silenceMs": 300}}');
  const s = await loadSettingsFile(file);
  assert.equal(s.endpointing.silenceMs, 300);
  assert.deepEqual({ ...s, endpointing: { ...s.endpointing, silenceMs: 600 } }, DEFAULT_SETTINGS);
});

test('loadSettingsFile: one UserError lists every invalid field', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 's.json');
  await writeFile(file, JSON.stringify({ endpointing: { silenceMs: -3 }, llm: { temperature: 'hot' }, tts: { sped: 1 } }));
  const e = await rejectsWithUserError(
    loadSettingsFile(file),
    `Invalid settings in ${file}: `,
    'endpointing.silenceMs must be a whole number between 100 and 5000 (ms), got -3',
    'llm.temperature must be a number between 0 and 2, got "hot"',
    'tts.sped is an unknown setting; did you mean "tts.speed"?',
  );
  assert.equal(e.code, 'invalid-settings');
});

test('loadSettingsFile: invalid JSON, empty and missing files give clear errors', async (t) => {
  const dir = await tempDir(t);
  const bad = join(dir, 'bad.json');
  await writeFile(bad, '{"endpointing": {"silenceMs": 300,}}');
  const e = await rejectsWithUserError(loadSettingsFile(bad), `Settings file ${bad} is not valid JSON (`);
  assert.equal(e.code, 'settings-invalid-json');

  const empty = join(dir, 'empty.json');
  await writeFile(empty, '  \n');
  await rejectsWithUserError(loadSettingsFile(empty), 'is empty');

  const missing = join(dir, 'nope.json');
  const m = await rejectsWithUserError(loadSettingsFile(missing), `Settings file not found: ${missing}`);
  assert.equal(m.code, 'settings-file-not-found');
});

test('SettingsStore: missing file -> defaults; updates persist and reload', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'nested', 'settings.json');
  const store = new SettingsStore(file);
  const first = await store.load();
  assert.deepEqual(first, { settings: DEFAULT_SETTINGS });

  const updated = await store.update({ endpointing: { silenceMs: 800 }, mode: 'push-to-talk' });
  assert.equal(updated.endpointing.silenceMs, 800);
  assert.equal(store.current, updated);
  assert.ok(Object.isFrozen(store.current.endpointing));

  const again = new SettingsStore(file);
  const { settings, notice } = await again.load();
  assert.equal(notice, undefined);
  assert.equal(settings.endpointing.silenceMs, 800);
  assert.equal(settings.mode, 'push-to-talk');
  assert.deepEqual(settings, updated);

  const reset = await again.reset();
  assert.deepEqual(reset, DEFAULT_SETTINGS);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), DEFAULT_SETTINGS);
  assert.deepEqual(await readdir(join(dir, 'nested')), ['settings.json'], 'no temp files left behind');
});

test('SettingsStore: corrupt file -> defaults, backup kept, notice', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  const broken = '{"endpointing": {"silenceMs": 300'; // truncated
  await writeFile(file, broken);
  const store = new SettingsStore(file);
  const { settings, notice } = await store.load();
  assert.deepEqual(settings, DEFAULT_SETTINGS);
  assert.ok(notice, 'a notice is returned');

  const files = await readdir(dir);
  const backup = files.find((f) => f.startsWith('settings.json.corrupt-'));
  assert.ok(backup, `backup exists among ${files.join(', ')}`);
  assert.equal(await readFile(join(dir, backup), 'utf8'), broken);
  assert.match(notice, /not valid JSON/);
  assert.ok(notice.includes(join(dir, backup)), 'notice says where the backup is');
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), DEFAULT_SETTINGS, 'file replaced by defaults');
  assert.equal(files.length, 2, 'no temp files left behind');
});

test('SettingsStore: hand-broken (invalid field) file -> defaults, notice names the field, backups never clobbered', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  await writeFile(file, '{"llm": {"temperature": 7}}');
  const first = await new SettingsStore(file).load();
  assert.match(first.notice ?? '', /llm.temperature must be a number between 0 and 2, got 7/);
  // Broken again within the same millisecond-ish: the second backup gets its own name.
  await writeFile(file, '{"llm": {"temperature": 8}}');
  const second = await new SettingsStore(file).load();
  assert.match(second.notice ?? '', /got 8/);
  const backups = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
  assert.equal(backups.length, 2);
});

test('SettingsStore: a key in a file it cannot use stays out of the backup, and is handed over for the key store', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  const key = 'sk-proj-Handwritten\\Key"0123456789';
  const cases = [
    // Invalid JSON (a trailing comma), the key written as JSON escapes it, and repeated in another field.
    { text: `{"llm": {"server": {"baseUrl": "http://10.0.0.2:8080/v1", "apiKey": ${JSON.stringify(key)}, "model": ${JSON.stringify(key)},}}}`, url: 'http://10.0.0.2:8080/v1' },
    // Valid JSON with an invalid field beside the key.
    { text: JSON.stringify({ llm: { temperature: 9, server: { apiKey: key } } }, null, 2), url: null },
  ];
  for (const c of cases) {
    await writeFile(file, c.text);
    const r = await new SettingsStore(file).load();
    assert.deepEqual(r.foundKey, { key, baseUrl: c.url });
    assert.match(r.notice ?? '', /The API key in it was taken out of the backup\./);
    const backups = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
    const last = await readFile(join(dir, backups.sort().at(-1)!), 'utf8');
    for (const form of [key, JSON.stringify(key).slice(1, -1), 'Handwritten']) assert.ok(!last.includes(form), `the backup holds "${form}": ${last}`);
    assert.match(last, /"apiKey": ?"\(taken out: the key is kept in the app's key store\)"/);
    for (const b of backups) await rm(join(dir, b));
  }
});

test('SettingsStore: a settings file over 1 MB is not used; it is kept aside without its key, and the defaults saved', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  const key = 'sk-padded-0123456789abcdef';
  const huge = `{"mode": "hands-free", "llm": {"server": {"apiKey": "${key}"}}, "pad": "${'x'.repeat(2 * 1024 * 1024)}"}`;
  await writeFile(file, huge);
  const r = await new SettingsStore(file).load();
  assert.deepEqual(r.settings, DEFAULT_SETTINGS);
  assert.match(r.notice ?? '', /is 2048 kB, far more than settings need \(at most 1024 kB\), so it was not used\. It was kept as .*settings\.json\.corrupt-/);
  assert.equal(r.foundKey?.key, key, 'its key is handed over for the key store');
  const backups = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
  const backup = await readFile(join(dir, backups[0]!), 'utf8');
  assert.ok(!backup.includes(key), 'the backup does not hold the key');
  assert.ok(backup.length > 2 * 1024 * 1024, 'the rest is kept whole');
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), DEFAULT_SETTINGS);
});

test('SettingsStore: invalid update -> UserError, file byte-identical, current unchanged', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  const store = new SettingsStore(file);
  await store.load();
  await store.update({ tts: { speed: 1.25 } });
  const before = await readFile(file);
  const current = store.current;

  const e = await rejectsWithUserError(
    store.update({ tts: { speed: 5 }, endpointing: { silenceMs: 1000, bogus: true } }),
    'tts.speed must be a number between 0.5 and 2 (x), got 5',
    'endpointing.bogus is an unknown setting',
  );
  assert.equal(e.code, 'invalid-settings');
  assert.deepEqual(await readFile(file), before);
  assert.equal(store.current, current);
  assert.equal(store.current.endpointing.silenceMs, 600, 'the valid part of an invalid patch is not applied either');

  // A failed update does not jam the queue.
  const ok = await store.update({ tts: { speakerId: 3 } });
  assert.equal(ok.tts.speakerId, 3);
  assert.equal(ok.tts.speed, 1.25);
});

test('SettingsStore: concurrent updates are serialized, none lost, no temp files', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'settings.json');
  const store = new SettingsStore(file);
  await store.load();
  const results = await Promise.all([
    store.update({ endpointing: { silenceMs: 700 } }),
    store.update({ llm: { temperature: 0.2 } }),
    store.update({ tts: { speed: 1.5 } }),
    store.update({ bargeIn: { enabled: false } }),
  ]);
  assert.equal(results[3], store.current);
  const reloaded = await new SettingsStore(file).load();
  for (const s of [store.current, reloaded.settings]) {
    assert.equal(s.endpointing.silenceMs, 700);
    assert.equal(s.llm.temperature, 0.2);
    assert.equal(s.tts.speed, 1.5);
    assert.equal(s.bargeIn.enabled, false);
  }
  assert.deepEqual(await readdir(dir), ['settings.json']);
});

test('SettingsStore: update before load is a programming error', async (t) => {
  const dir = await tempDir(t);
  const store = new SettingsStore(join(dir, 'settings.json'));
  await assert.rejects(store.update({ mode: 'push-to-talk' }), /before load/);
  assert.deepEqual(await readdir(dir), []);
});
