/**
 * node-llama-cpp checks a prebuilt binary (always, on Linux) by forking a plain JavaScript probe of
 * it, and a fork inherits this process's Node flags. Under `talk`, `bench` and the tests those name
 * the TypeScript loader, which costs the probe about 2 s of CPU to start for nothing it uses. While
 * `work` runs, forks get the flags without any preloaded module; everything else is kept.
 * (Electron's utility processes take no such flags: in the app this changes nothing.)
 */
const PRELOAD_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

export function withoutPreloads(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (PRELOAD_FLAGS.has(arg)) i++;
    else if (![...PRELOAD_FLAGS].some((f) => f.startsWith('--') && arg.startsWith(`${f}=`))) kept.push(arg);
  }
  return kept;
}

export async function withPlainForks<T>(work: () => Promise<T>): Promise<T> {
  const saved = process.execArgv;
  process.execArgv = withoutPreloads(saved);
  try {
    return await work();
  } finally {
    process.execArgv = saved;
  }
}
