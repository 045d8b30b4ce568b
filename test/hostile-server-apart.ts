/**
 * The hostile server (hostile-server.ts) in a process of its own, for tests that measure the
 * memory of the client in theirs: a 20 MB answer must count against the server that made it, not
 * against the client it was sent to. Run as a script, it serves until its parent goes away.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isEntryPoint } from '../electron/cli/args';
import { startHostileServer, type HostileMode } from './hostile-server';

export interface HostileServerApart {
  url(mode: HostileMode): string;
  close(): Promise<void>;
}

export async function startHostileServerApart(): Promise<HostileServerApart> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const base = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(String(m)));
    child.once('exit', (code) => reject(new Error(`the hostile server exited (${code}) before it listened`)));
  });
  return {
    url: (mode) => base.replace('MODE', mode),
    close: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill();
      await gone;
    },
  };
}

if (isEntryPoint(import.meta.url)) {
  const server = await startHostileServer();
  process.send?.(server.url('MODE' as HostileMode));
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
}
