import { isUserError } from '../errors';

/** What the window shows for a failure: a UserError's own words, else `what` and the error (logged, as it is a bug). */
export function messageOf(err: unknown, what: string): string {
  if (isUserError(err)) return err.message;
  console.error(err);
  return `${what}: ${err instanceof Error ? err.message : String(err)}`;
}
