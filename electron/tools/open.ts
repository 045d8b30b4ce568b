/**
 * Opening a web page or a file with the system's handler (Electron's shell.openExternal and
 * shell.openPath in the app). It changes something outside the app, so it runs only after the user
 * said yes. Only what a browser or a document viewer takes: http(s) and mailto links, and existing
 * files that are not programs (opening a program would run it).
 */
import { appendFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Tool } from './toolbox';

export interface Opener {
  openExternal(url: string): Promise<void>;
  /** Electron's shell.openPath: resolves with an error message, '' when it worked. */
  openPath(file: string): Promise<string>;
}

const MAX_TARGET_CHARS = 2048;
/** Files that would run rather than open, on any of the three systems. */
const PROGRAM = /\.(exe|com|bat|cmd|msi|msix|ps1|vbs|vbe|js|jse|wsf|wsh|scr|pif|cpl|lnk|reg|hta|jar|sh|bash|zsh|command|app|desktop|appimage|run|bin|deb|rpm|pkg|dmg|py|pl|rb)$/i;

export type OpenTarget = { kind: 'url'; url: string } | { kind: 'file'; file: string } | { kind: 'refused'; why: string };

/** What `target` names, and whether it may be opened (pure, but for the file's existence and mode). */
export async function openTarget(target: unknown): Promise<OpenTarget> {
  if (typeof target !== 'string' || !target.trim()) return { kind: 'refused', why: 'no link or file was given' };
  const t = target.trim();
  if (t.length > MAX_TARGET_CHARS) return { kind: 'refused', why: 'the link is too long' };
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) && !/^[a-z]:[\\/]/i.test(t)) {
    let url: URL;
    try {
      url = new URL(t);
    } catch {
      return { kind: 'refused', why: 'that is not a valid link' };
    }
    if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) return { kind: 'refused', why: `links of the kind ${url.protocol} are not opened` };
    return { kind: 'url', url: url.href };
  }
  if (/^(www\.)?[a-z0-9-]+(\.[a-z0-9-]+)+(\/\S*)?$/i.test(t) && !path.isAbsolute(t)) return { kind: 'url', url: new URL(`https://${t}`).href };
  if (!path.isAbsolute(t)) return { kind: 'refused', why: 'a file must be given by its full path' };
  if (PROGRAM.test(t)) return { kind: 'refused', why: 'programs and scripts are not opened' };
  try {
    const s = await stat(t);
    if (!s.isFile() && !s.isDirectory()) return { kind: 'refused', why: 'that is not a file or a folder' };
    if (s.isFile() && process.platform !== 'win32' && (s.mode & 0o111) !== 0) return { kind: 'refused', why: 'the file is a program' };
  } catch {
    return { kind: 'refused', why: 'there is no such file' };
  }
  return { kind: 'file', file: t };
}

export function openTool(opener: Opener): Tool {
  return {
    spec: {
      name: 'open',
      description: 'Opens a web page (http or https link) or a file or folder (by its full path) with the system, as the user would by clicking it.',
      parameters: { type: 'object', properties: { target: { type: 'string', description: 'The link, or the full path of the file or folder' } }, required: ['target'] },
    },
    server: 'built-in',
    changes: true,
    describe: (args) => `open ${typeof args.target === 'string' ? args.target.trim().slice(0, 120) : 'something'}`,
    run: async (args) => {
      const target = await openTarget(args.target);
      if (target.kind === 'refused') throw new Error(`not opened: ${target.why}`);
      if (target.kind === 'url') {
        await opener.openExternal(target.url);
        return `Opened ${target.url}`;
      }
      const error = await opener.openPath(target.file);
      if (error) throw new Error(error);
      return `Opened ${target.file}`;
    },
  };
}

/** `talk --open-log FILE`: what would be opened is appended to FILE, one line each; nothing is opened. */
export function loggingOpener(file: string): Opener {
  const note = (what: string) => appendFile(file, `${what}\n`);
  return { openExternal: (url) => note(url), openPath: async (f) => (await note(f), '') };
}
