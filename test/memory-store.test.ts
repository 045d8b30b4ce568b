import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBook } from '../electron/memory/memory-book';
import { MAX_MEMORY_FILE_BYTES, MEMORY_FILE, MemoryStore } from '../electron/memory/memory-store';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lva-memory-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const DAY = '2026-12-07T09:00:00.000Z';

test('no file is an empty memory; a save writes one fact a line, readable by the user only, and loads back', async (t) => {
  const dir = await tempDir(t);
  const store = new MemoryStore(dir);
  const first = await store.load();
  assert.equal(first.problem, null);
  assert.equal(first.book!.facts.length, 0);
  first.book!.remember('my sister is called Anna', DAY);
  first.book!.remember("I'm vegetarian", DAY);
  // Saves in quick succession: the last one called is on disk.
  const saves = [store.save(first.book!)];
  first.book!.remember('the trip is in May', DAY);
  saves.push(store.save(first.book!));
  await Promise.all(saves);
  const text = await readFile(join(dir, MEMORY_FILE), 'utf8');
  assert.equal(text.split('\n').filter((l) => l.includes('"said"')).length, 3);
  if (process.platform !== 'win32') assert.equal((await stat(join(dir, MEMORY_FILE))).mode & 0o777, 0o600);
  const again = await new MemoryStore(dir).load();
  assert.deepEqual(again.book!.facts.map((f) => f.text), ['my sister is called Anna', "I'm vegetarian", 'the trip is in May']);
  assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
});

for (const [what, content, why] of [
  ['not JSON', '{"version": 1, "facts": [{"text": "my sister is called Anna", ', /is not valid JSON \(line 1, column \d+/],
  ['invalid', '{"version": 1, "facts": "my sister is called Anna"}', /is invalid: "facts" must be a list/],
  ['from a newer version', '{"version": 7, "facts": []}', /newer version of the app \(format 7/],
  ['far too large', `{"version": 1, "facts": [], "x": "${'a'.repeat(MAX_MEMORY_FILE_BYTES)}"}`, /kB, far more than the app writes/],
] as const) {
  test(`a memory file ${what} is left untouched, named in one notice without its content, and never written over until cleared`, async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, MEMORY_FILE);
    await writeFile(file, content);
    const store = new MemoryStore(dir);
    const loaded = await store.load();
    assert.equal(loaded.book, null);
    assert.match(loaded.problem!, why);
    assert.match(loaded.problem!, /left as it is, and memory is off until you clear it/);
    assert.doesNotMatch(loaded.problem!, /Anna/);
    await assert.rejects(store.save(new MemoryBook()), /not written over/);
    assert.equal(await readFile(file, 'utf8'), content);
    // Clearing keeps the old file aside, whole, and starts afresh.
    const { keptAs } = await store.clear();
    assert.ok(keptAs?.startsWith(`${file}.unreadable-`));
    assert.equal(await readFile(keptAs!, 'utf8'), content);
    const fresh = await new MemoryStore(dir).load();
    assert.equal(fresh.problem, null);
    assert.equal(fresh.book!.facts.length, 0);
  });
}
