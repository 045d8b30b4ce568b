/**
 * Preloaded into a child process by tests that bound its memory: at exit, writes the process's peak
 * resident memory (KB, process.resourceUsage().maxRSS) to $LVA_MAX_RSS_FILE.
 */
import { writeFileSync } from 'node:fs';

const file = process.env['LVA_MAX_RSS_FILE'];
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
