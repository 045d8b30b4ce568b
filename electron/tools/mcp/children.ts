/**
 * The stdio servers' processes still running: each is ended when this process exits, however it
 * exits (a quit that ran out of time, an uncaught error), not only when the app closes them. Their
 * stdin closes then too, which ends a well-behaved server anyway; this ends the others.
 */
const live = new Set<number>();
let hooked = false;

function endAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

/** Tracks `pid` until the returned function is called (the process was closed or ended). */
export function trackChild(pid: number): () => void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', endAll);
  }
  return () => void live.delete(pid);
}
