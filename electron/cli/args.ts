import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../errors';

/** parseArgs with its errors turned into one user-facing line. */
export function parseCli<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UserError(`${(e as Error).message.split('\n')[0]}. Usage: ${usage}`, 'usage');
  }
}

/** Runs a CLI main: user errors print one line and exit 1; anything else is a bug and shows its stack. */
export function runCli(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      if (e instanceof UserError) console.error(`error: ${e.message}`);
      else console.error(e);
      process.exit(1);
    },
  );
}
