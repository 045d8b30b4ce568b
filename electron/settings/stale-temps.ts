/** Temp files a save left behind when its process died (writeFileAtomic names them). */
import { readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Deletes `.<name>.<pid>.<id>.tmp` files beside `file` (as writeFileAtomic names them) whose process is gone:
 * a save cut short by a kill or a crash. A live process's, another instance mid-save, is left alone.
 */
export async function removeStaleTemps(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? Number(name.slice(prefix.length).split('.')[0]) : NaN;
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) await unlink(join(dir, name)).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is just not ours to signal.
    return (e as { code?: string }).code === 'EPERM';
  }
}
