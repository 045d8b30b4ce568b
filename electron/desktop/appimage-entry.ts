/**
 * The AppImage's own desktop entry. An AppImage installs nothing, but on a Wayland session the desktop
 * portal gives global shortcuts only to an app whose `.desktop` file is installed under the app's
 * `desktopName`. So, run as an AppImage, the app writes that entry into the user's applications folder,
 * pointing at the AppImage, unless one is installed system-wide (the deb) or the user wrote their own.
 * The decision and the text are pure; syncAppImageEntry does the file work.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../settings/file';

/** Marks an entry this app wrote, so it is only ever rewritten, never one the user or a package made. */
const OURS = 'X-Local-Voice-Assistant-AppImage=true';

export function appImageEntryText(appImage: string, name: string, wmClass: string): string {
  // The Exec path is quoted for the desktop entry spec: backslash, quote, backtick and dollar escaped.
  const exec = `"${appImage.replace(/[\\"`$]/g, (c) => `\\${c}`)}"`;
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${name}`,
    'Comment=Local voice assistant',
    `Exec=${exec}`,
    'Icon=audio-input-microphone',
    'Terminal=false',
    'Categories=Utility;',
    `StartupWMClass=${wmClass}`,
    OURS,
    '',
  ].join('\n');
}

/** The folders searched for desktop entries, the user's first (XDG base directory spec). */
export function applicationDirs(env: NodeJS.ProcessEnv, home: string): { user: string; system: string[] } {
  const dataHome = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : path.join(home, '.local', 'share');
  const dataDirs = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter((d) => d.startsWith('/'));
  return { user: path.join(dataHome, 'applications'), system: dataDirs.map((d) => path.join(d, 'applications')) };
}

export type EntryDecision = 'write' | 'keep' | 'leave';

/**
 * What to do with the user's entry: `existing` is its text (null: none), `systemWide` whether a
 * package installed one. 'leave': not ours to touch; 'keep': already right.
 */
export function decideAppImageEntry(existing: string | null, systemWide: boolean, wanted: string): EntryDecision {
  if (existing !== null && !existing.includes(OURS)) return 'leave';
  if (existing === null && systemWide) return 'leave';
  return existing === wanted ? 'keep' : 'write';
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    // An entry is a few hundred bytes; anything large is not ours.
    const text = await readFile(file, 'utf8');
    return text.length > 64 * 1024 ? '' : text;
  } catch {
    return null;
  }
}

/** Writes or refreshes the AppImage's entry; returns what was decided. */
export async function syncAppImageEntry(opts: { appImage: string; desktopName: string; name: string; env: NodeJS.ProcessEnv; home: string }): Promise<EntryDecision> {
  const file = opts.desktopName.endsWith('.desktop') ? opts.desktopName : `${opts.desktopName}.desktop`;
  const dirs = applicationDirs(opts.env, opts.home);
  const target = path.join(dirs.user, file);
  const existing = await readOrNull(target);
  let systemWide = false;
  for (const dir of dirs.system) if ((await readOrNull(path.join(dir, file))) !== null) systemWide = true;
  const wanted = appImageEntryText(opts.appImage, opts.name, file.replace(/\.desktop$/, ''));
  const decision = decideAppImageEntry(existing, systemWide, wanted);
  if (decision === 'write') await writeFileAtomic(target, wanted, 0o644);
  return decision;
}
