/**
 * The app's memory across pipelines (electron/app/memory-keeper.ts): memory.json loaded once, the
 * same book handed to each pipeline, the window's Delete and Clear all with or without a running
 * pipeline, a file that could not be used left alone until cleared and then replaced for the next
 * pipeline, and no fact in any notice. The last test runs the real controller (without models).
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryKeeper, type MemoryHolder } from '../electron/app/memory-keeper';
import type { AppEvent } from '../electron/ipc-contract';
import { MemoryBook } from '../electron/memory/memory-book';
import { MEMORY_FILE } from '../electron/memory/memory-store';
import { EventHub, type PipelineEvent } from '../electron/pipeline/events';
import { PipelineMemory } from '../electron/pipeline/skills/memory';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { controllerWithoutModels } from './controller-fixture';
import { tempDir, until } from './helpers';

const FACTS = ['my sister is called Anna', 'I am vegetarian', 'my car is a blue Fiat'];
const clock = { now: () => 0 };

async function seed(dir: string, facts = FACTS): Promise<void> {
  const book = new MemoryBook();
  facts.forEach((f, i) => book.remember(f, new Date(Date.UTC(2026, 11, 5 + i)).toISOString()));
  await writeFile(path.join(dir, MEMORY_FILE), book.toFileText());
}

const onDisk = async (dir: string) => (JSON.parse(await readFile(path.join(dir, MEMORY_FILE), 'utf8')) as { facts: { text: string }[] }).facts.map((f) => f.text);

/** A keeper over `dir` whose "pipeline" is a PipelineMemory built from its options, as VoicePipeline builds one. */
function keeperIn(dir: string, settings: { current: Settings } = { current: DEFAULT_SETTINGS }) {
  const events: PipelineEvent[] = [];
  const notices: { message: string; keep: boolean }[] = [];
  const solved: string[] = [];
  let running: (MemoryHolder & { prompts: number }) | null = null;
  const keeper = new MemoryKeeper(dir, path.join(dir, 'history'), clock, {
    running: () => running,
    settings: () => settings.current,
    event: (e) => events.push(e),
    notice: (message, keep) => notices.push({ message, keep }),
    solved: (message) => solved.push(message),
  });
  const startPipeline = () => {
    const hub = new EventHub();
    hub.on((e) => events.push(e));
    const holder = { memory: new PipelineMemory(keeper.options(), () => settings.current, clock, hub), prompts: 0, refreshSystemPrompt: () => void holder.prompts++ };
    running = holder;
    return holder;
  };
  const stopPipeline = () => void (running = null);
  const lastView = () => events.filter((e) => e.type === 'memory').at(-1);
  return { keeper, events, notices, solved, settings, startPipeline, stopPipeline, lastView };
}

describe('the memory across pipelines', () => {
  it('lists, deletes and clears the facts while no pipeline runs, and stores each change', async () => {
    const dir = tempDir('lva-memory-');
    await seed(dir);
    const k = keeperIn(dir);
    await k.keeper.load();
    const view = k.keeper.view();
    assert.deepEqual(view.facts.map((f) => f.text), FACTS);
    assert.equal(view.problem, null);
    assert.equal(view.enabled, true);
    assert.ok(k.lastView(), 'the loaded memory is sent to a window that connected meanwhile');
    k.keeper.forget(view.facts[1]!.id);
    k.keeper.forget('f999');
    await k.keeper.flush();
    assert.deepEqual(await onDisk(dir), [FACTS[0], FACTS[2]]);
    const after = k.lastView();
    assert.ok(after?.type === 'memory');
    assert.deepEqual(after.memory.facts.map((f) => f.text), [FACTS[0], FACTS[2]]);
    await k.keeper.clear();
    await k.keeper.flush();
    assert.deepEqual(await onDisk(dir), []);
    assert.deepEqual(k.keeper.view().facts, []);
    assert.deepEqual(k.notices, []);
  });

  it('gives every pipeline the same book: what one learns, the next one has; Delete refreshes the prompt', async () => {
    const dir = tempDir('lva-memory-');
    await seed(dir);
    const k = keeperIn(dir);
    await k.keeper.load();
    const first = k.startPipeline();
    first.memory.remember('my dog is called Rex', Date.UTC(2026, 11, 9));
    await first.memory.settled();
    k.stopPipeline();
    const second = k.startPipeline();
    assert.deepEqual(second.memory.view().facts.map((f) => f.text), [...FACTS, 'my dog is called Rex']);
    const rex = second.memory.view().facts.at(-1)!;
    k.keeper.forget(rex.id);
    assert.equal(second.prompts, 1, 'the system prompt is rebuilt without the fact');
    await second.memory.settled();
    await k.keeper.flush();
    assert.deepEqual(await onDisk(dir), FACTS);
    assert.equal(k.keeper.options().historyDir, path.join(dir, 'history'));
  });

  it('leaves a file it could not use alone, says so once, and after Clear all the next pipeline gets the new book', async () => {
    const dir = tempDir('lva-memory-');
    const corrupt = '{"version": 1, "facts": [ {"text": "my PIN is 1234"'; // cut off mid-write
    await writeFile(path.join(dir, MEMORY_FILE), corrupt);
    const k = keeperIn(dir);
    await k.keeper.load();
    assert.equal(k.notices.length, 1);
    assert.equal(k.notices[0]!.keep, true);
    assert.match(k.notices[0]!.message, /is not valid JSON/);
    assert.equal(k.keeper.options().book, null);
    const p = k.startPipeline();
    assert.match(p.memory.view().problem ?? '', /memory is off until you clear it/);
    k.keeper.forget('f1');
    assert.equal(await readFile(path.join(dir, MEMORY_FILE), 'utf8'), corrupt, 'untouched until cleared');

    await k.keeper.clear();
    assert.deepEqual(k.solved, [k.notices[0]!.message], 'the kept notice is withdrawn');
    assert.match(k.notices.at(-1)!.message, /kept as .*memory\.json\.unreadable-/);
    assert.equal(p.prompts, 1);
    const files = await readdir(dir);
    const aside = files.find((f) => f.startsWith(`${MEMORY_FILE}.unreadable-`));
    assert.ok(aside, files.join(', '));
    assert.equal(await readFile(path.join(dir, aside), 'utf8'), corrupt, 'moved aside, never deleted');
    assert.deepEqual(await onDisk(dir), []);

    const book = k.keeper.options().book;
    assert.ok(book instanceof MemoryBook, 'the next pipeline gets the new book, not null');
    p.memory.remember('my sister is called Anna', Date.UTC(2026, 11, 9));
    assert.deepEqual(book.facts.map((f) => f.text), ['my sister is called Anna'], 'the one the pipeline works on');
    for (const n of k.notices) assert.ok(!/PIN|Anna/.test(n.message), `no fact in a notice: ${n.message}`);
  });

  it('switched off: Delete and Clear all still act on the book, and a file it could not use is moved aside', async () => {
    const dir = tempDir('lva-memory-');
    await seed(dir);
    const off = { current: mergeSettings(DEFAULT_SETTINGS, { memory: { enabled: false } }) };
    const k = keeperIn(dir, off);
    await k.keeper.load();
    const p = k.startPipeline();
    await k.keeper.clear();
    await k.keeper.flush();
    assert.deepEqual(await onDisk(dir), []);
    const cleared = k.lastView();
    assert.ok(cleared?.type === 'memory' && cleared.memory.facts.length === 0 && !cleared.memory.enabled);
    assert.equal(p.prompts, 1);

    const bad = tempDir('lva-memory-');
    await writeFile(path.join(bad, MEMORY_FILE), 'not json');
    const k2 = keeperIn(bad, off);
    await k2.keeper.load();
    k2.startPipeline();
    await k2.keeper.clear();
    const kept = /kept as (\S+); memory starts afresh/.exec(k2.notices.at(-1)!.message)?.[1];
    assert.ok(kept, k2.notices.at(-1)!.message);
    assert.equal(await readFile(kept, 'utf8'), 'not json');
    assert.deepEqual(await onDisk(bad), []);
  });

  it('a change of memory.enabled or memory.maxTokens rebuilds the prompt and sends the view; the system prompt rebuilds it too', async () => {
    const dir = tempDir('lva-memory-');
    const k = keeperIn(dir);
    await k.keeper.load();
    const p = k.startPipeline();
    const before = DEFAULT_SETTINGS;
    const events = () => k.events.filter((e) => e.type === 'memory').length;
    const n = events();
    k.settings.current = mergeSettings(before, { memory: { enabled: false } });
    k.keeper.settingsChanged(before, k.settings.current);
    assert.equal(p.prompts, 1);
    assert.equal(events(), n + 1);
    const view = k.lastView();
    assert.ok(view?.type === 'memory' && view.memory.enabled === false);
    k.keeper.settingsChanged(before, mergeSettings(before, { memory: { maxTokens: 100 } }));
    k.keeper.settingsChanged(before, mergeSettings(before, { llm: { systemPrompt: 'Be brief.' } }));
    assert.equal(p.prompts, 3);
    k.keeper.settingsChanged(before, mergeSettings(before, { llm: { temperature: 0.2 } }));
    assert.equal(p.prompts, 3, 'other settings leave the prompt alone');
  });
});

describe('the controller keeps the memory', () => {
  it('shows it in the snapshot and acts on forget-fact and clear-memory without models', async () => {
    const dir = tempDir('lva-memory-app-');
    await seed(dir);
    const { controller, events } = controllerWithoutModels(dir);
    try {
      await controller.start();
      const snap = controller.snapshot();
      assert.deepEqual(snap.memory.facts.map((f) => f.text), FACTS);
      const memoryEvents = () => events.filter((e): e is Extract<AppEvent, { type: 'pipeline' }> => e.type === 'pipeline' && e.event.type === 'memory');
      const n = memoryEvents().length;
      controller.command({ type: 'forget-fact', id: snap.memory.facts[0]!.id });
      await until('the memory event', () => memoryEvents().length > n);
      for (let i = 0; (await onDisk(dir)).length !== 2 && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await onDisk(dir), FACTS.slice(1));
      const r = await controller.request({ type: 'update-settings', patch: { memory: { enabled: false } } });
      assert.equal(r.ok, true);
      assert.equal(controller.snapshot().memory.enabled, false);
      controller.command({ type: 'clear-memory' });
      await until('the memory to be empty', () => controller.snapshot().memory.facts.length === 0);
      controller.command({ type: 'forget-fact', id: '' });
      assert.ok(events.some((e) => e.type === 'notice' && /"id" must be a fact id/.test(e.message)));
      for (const e of events) {
        if (e.type === 'notice') assert.ok(!FACTS.some((f) => e.message.includes(f)), `no fact in a notice: ${e.message}`);
      }
    } finally {
      await controller.dispose();
    }
    assert.deepEqual(await onDisk(dir), []);
  });
});
