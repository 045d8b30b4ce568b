import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  const args = withDashValues(argv, options);
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UserError(parseError(e as Error & { code?: string }, args, usage), 'usage');
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `--tail -5`, `--ptt -1-2`: a value after a string option that begins with one dash is taken as its
 * value (parseArgs calls it ambiguous), so the option's own check can say what is wrong with it.
 * One beginning with two dashes is an option, and the value is missing.
 */
function withDashValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    const name = /^--([^=]+)$/.exec(a)?.[1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-(?!-)/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** parseArgs's error as one sentence about the argument that is wrong. */
function parseError(e: Error & { code?: string }, args: string[], usage: string): string {
  const first = e.message.split('\n')[0]!;
  const flag = /^Option '(-{1,2}[^' =]+)/.exec(first)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    if (/argument missing/.test(first)) return `${flag} needs a value`;
    if (/does not take an argument/.test(first)) return `${flag} takes no value, got "${args.find((a) => a.startsWith(`${flag}=`)) ?? flag}"`;
    if (/ambiguous/.test(first)) return `${flag} needs a value, got the option ${args[args.indexOf(flag) + 1] ?? ''} (a value that begins with "--" is written ${flag}=VALUE)`;
  }
  // An unknown option: the usage lists the ones there are.
  return `${first.replace(/\. To specify a positional.*$/, '')}. Usage: ${usage}`;
}

/** What a CLI prints for a main's failure, and its exit status: a user error is one line; anything else is a bug and shows its stack. */
export function cliFailure(e: unknown): { code: number; stdout?: string; stderr?: unknown } {
  if (e instanceof HelpRequested) return { code: 0, stdout: e.text };
  if (e instanceof UserError) return { code: 1, stderr: `error: ${e.message}` };
  return { code: 1, stderr: e };
}

/**
 * Runs a CLI main: user errors print one line and exit 1; anything else is a bug and shows its
 * stack. A main may return its exit status (a run stopped by a signal says so).
 */
export function runCli(main: () => Promise<void | number>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (e: unknown) => {
      const failure = cliFailure(e);
      if (failure.stdout !== undefined) console.log(failure.stdout);
      if (failure.stderr !== undefined) console.error(failure.stderr);
      process.exit(failure.code);
    },
  );
}

/** Whether the module at `moduleUrl` is the script node was started with (not imported by a test). */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(path.resolve(script)) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
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
