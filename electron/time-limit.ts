/**
 * Waits for `work` at most `ms`: true when it settled (resolved or rejected) in time, false when
 * the time ran out first. The work is not cancelled, only no longer waited for.
 */
export function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(done, done);
  });
}
