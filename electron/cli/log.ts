/**
 * `npm run log -- summary [--since DATE] [--dir DIR] [--json]`: what the conversation history says
 * about how turns went (electron/history/): per-stage p50/p95, rates, answer length, and where the
 * models, settings or app changed, with the figures before and after.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { defaultUserDataDir } from '../../native-models/resolver';
import { UserError } from '../errors';
import { listLogFiles, readLogFiles, type FileSkip } from '../history/log-files';
import { summarize } from '../history/summary';
import { formatSummary } from '../history/summary-text';
import { parseCli, runCli } from './args';

const USAGE = 'npm run log -- summary [--since DATE] [--dir DIR] [--json]';

/** The app's history folder: history/ beside settings.json. */
const DEFAULT_DIR = path.join(defaultUserDataDir(), 'history');

function parseSince(text: string): Date {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim()) || Number.isNaN(t)) {
    throw new UserError(`--since: "${text}" is not a date; give one such as 2026-12-01 (UTC midnight) or 2026-12-01T08:00:00Z`, 'usage');
  }
  return new Date(t);
}

async function requireDir(dir: string): Promise<void> {
  try {
    if ((await stat(dir)).isDirectory()) return;
  } catch {
    // reported below
  }
  throw new UserError(`No conversation history folder at ${dir}. The app writes one beside its settings (history/); \`npm run talk -- --log DIR\` writes one in DIR.`, 'history-no-dir');
}

function skippedLines(skipped: readonly FileSkip[]): string[] {
  if (skipped.length === 0) return [];
  return [`skipped ${skipped.length} unreadable line${skipped.length === 1 ? '' : 's'}:`, ...skipped.map((s) => `  ${s.file}${s.line > 0 ? ` line ${s.line}` : ''}: ${s.reason}`)];
}

runCli(async () => {
  const { values, positionals } = parseCli(
    process.argv.slice(2),
    { since: { type: 'string' }, dir: { type: 'string' }, json: { type: 'boolean', default: false } },
    USAGE,
    `Summarizes the conversation history: per-stage latency (p50, p95, keyed as npm run bench), how often
answers were interrupted or needed a holding phrase, empty transcripts, local commands, answer
length, and where the models, settings or app version changed, with the figures before and after.

Usage: ${USAGE}

  --since DATE   only turns that ended at or after DATE (2026-12-01 is UTC midnight; or an ISO time)
  --dir DIR      the history folder (default: ${DEFAULT_DIR})
  --json         print the summary as JSON (unreadable lines are then listed on stderr)
  -h, --help     this help`,
  );
  if (positionals[0] !== 'summary' || positionals.length > 1) {
    throw new UserError(`${positionals.length ? `unknown command "${positionals.join(' ')}"` : 'missing command'}: the one command is summary. Usage: ${USAGE}`, 'usage');
  }
  const since = values.since === undefined ? undefined : parseSince(values.since);
  const dir = path.resolve(values.dir ?? DEFAULT_DIR);
  await requireDir(dir);
  const { turns, skipped } = await readLogFiles(await listLogFiles(dir));
  const summary = summarize(turns, since ? { since } : {});
  if (values.json) {
    console.log(JSON.stringify(summary, null, 2));
    for (const line of skippedLines(skipped)) console.error(line);
    return;
  }
  console.log(`history in ${dir}${since ? ` since ${since.toISOString()}` : ''}`);
  console.log(formatSummary(summary));
  const lines = skippedLines(skipped);
  if (lines.length) console.log(['', ...lines].join('\n'));
});
