/**
 * `talk`'s memory: memory.json in `--memory DIR`, or beside the `--settings` file as the app keeps it
 * beside its settings, so two runs with the same settings folder share what was remembered. With
 * neither, the run keeps an empty memory of its own. The history it searches is `--log DIR`'s.
 */
import path from 'node:path';
import { MemoryBook } from '../memory/memory-book';
import { MEMORY_FILE, MemoryStore } from '../memory/memory-store';
import type { MemoryOptions } from '../pipeline/skills/memory';
import { prepareLogFolder } from './talk-paths';

export async function talkMemory(
  values: { memory?: string; settings?: string; log?: string },
  warn: (line: string) => void,
): Promise<{ options: MemoryOptions; where: string | null }> {
  const historyDir = values.log ?? null;
  const dir = values.memory ?? (values.settings === undefined ? null : path.dirname(path.resolve(values.settings)));
  if (dir === null) return { options: { book: new MemoryBook(), historyDir }, where: null };
  if (values.memory !== undefined) await prepareLogFolder(values.memory, '--memory');
  const store = new MemoryStore(dir);
  const loaded = await store.load();
  if (loaded.problem) warn(`warning: ${loaded.problem}`);
  return {
    options: { book: loaded.book, problem: loaded.problem, save: (b) => store.save(b), clearFile: () => store.clear(), historyDir },
    where: path.join(dir, MEMORY_FILE),
  };
}
