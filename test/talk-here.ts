/**
 * `talk` run in the test's own process (talkMain, the command's code), printing into strings: what
 * runCli gives for `electron/cli/talk.ts`, without a process, the TypeScript loader and every
 * import started again for each run. Errors become the exit status and the stderr text the command
 * prints for them (cliFailure). talk.test.ts and talk-live.test.ts still run the command itself.
 */
import { format } from 'node:util';
import { cliFailure } from '../electron/cli/args';
import { talkMain } from '../electron/cli/talk';
import type { CliResult } from './helpers';

export async function talkHere(args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: { write: (text: string) => out.push(text) }, err: (line: string) => err.push(`${line}\n`) };
  let code: number;
  try {
    code = await talkMain(args, io);
  } catch (e) {
    const failure = cliFailure(e);
    code = failure.code;
    if (failure.stdout !== undefined) out.push(`${failure.stdout}\n`);
    // As console.error prints it: an error with its stack.
    if (failure.stderr !== undefined) err.push(`${format(failure.stderr)}\n`);
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}
