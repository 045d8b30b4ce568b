import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserError } from '../errors';

/** `--help` / `-h` was given: the usage goes to stdout and the command exits 0. */
export class HelpRequested extends Error {
  constructor(readonly text: string) {
    super('help requested');
  }
}

/**
 * parseArgs with its errors turned into one user-facing line. `--help` or `-h` anywhere prints
 * `help` (or the one-line usage) instead of running the command.
 */
export function parseCli<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, usage: string, help = usage) {
  // Before parsing: `--help` must work even beside an invalid or incomplete command line.
  if (argv.some((a) => a === '--help' || a === '-h')) throw new HelpRequested(help);
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
      if (e instanceof HelpRequested) {
        console.log(e.text);
        process.exit(0);
      }
      if (e instanceof UserError) console.error(`error: ${e.message}`);
      else console.error(e);
      process.exit(1);
    },
  );
}

/** `--ptt 0.4-2.3,5-6.5`: key-held intervals in seconds, returned in ms, sorted and disjoint. */
export function parsePttSchedule(spec: string): [number, number][] {
  const intervals = spec.split(',').map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    const start = m ? Number(m[1]) : NaN;
    const end = m ? Number(m[2]) : NaN;
    if (!m || !(end > start)) {
      throw new UserError(`--ptt: "${part}" is not START-END in seconds with END after START (example: --ptt 0.4-2.3,5-6.5)`, 'usage');
    }
    return [start * 1000, end * 1000] as [number, number];
  });
  intervals.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < intervals.length; i++) {
    if (intervals[i]![0] < intervals[i - 1]![1]) throw new UserError(`--ptt: intervals overlap (${spec})`, 'usage');
  }
  return intervals;
}
