/**
 * What to do when the window's page process dies (a crash, the OS killing it for memory): reload it,
 * so listening resumes, unless it died 3 times within a minute, when a reload would only loop; then
 * the user is told. Pure: the caller keeps the times.
 */
export const CRASH_WINDOW_MS = 60_000;
export const MAX_CRASHES = 3;

/** `recent`: the times of earlier deaths; returns whether to reload, and the times to keep. */
export function afterRendererGone(recent: readonly number[], now: number, reason: string): { reload: boolean; recent: number[] } {
  if (reason === 'clean-exit') return { reload: false, recent: [...recent] };
  const kept = [...recent.filter((t) => now - t < CRASH_WINDOW_MS), now];
  return { reload: kept.length < MAX_CRASHES, recent: kept };
}
