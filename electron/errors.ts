/**
 * An error the user can fix (bad file, missing model, invalid settings).
 * Its message is one line that says what is wrong and what to do; callers
 * print it without a stack trace.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(message: string, readonly code: string = 'user-error') {
    super(message);
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}

/** What the window shows for a failure: a UserError's own words, else `what` and the error (logged, as it is a bug). */
export function messageOf(err: unknown, what: string): string {
  if (isUserError(err)) return err.message;
  console.error(err);
  return `${what}: ${err instanceof Error ? err.message : String(err)}`;
}
