/**
 * Start at login. macOS and Windows: Electron's login-item API. Linux has none in Electron: an XDG
 * autostart entry, `$XDG_CONFIG_HOME/autostart/<name>.desktop` (default ~/.config/autostart), which
 * desktops that follow the XDG Autostart spec (GNOME, KDE, Xfce, ...) start at login.
 * The decisions (what to launch, the file's text, what a result means) are pure and tested; the
 * rest is a file write or one Electron call, typed structurally so tests pass stand-ins.
 */
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../settings/file';
import type { ShellPlatform } from '../settings/accelerator';

/** What starts the app: the executable and its arguments. */
export interface Launch {
  path: string;
  args: string[];
}

/**
 * From an AppImage, the AppImage itself (process.execPath is inside its temporary mount, gone after
 * it exits); else the executable. Unpackaged (`npm start`), Electron needs the app folder too.
 */
export function launchCommand(o: { execPath: string; appImage?: string | undefined; packaged: boolean; appPath: string }): Launch {
  return { path: o.appImage || o.execPath, args: o.packaged ? [] : [o.appPath] };
}

/** Characters that make a Desktop Entry Exec argument need quotes (Desktop Entry spec, "The Exec key"). */
const RESERVED = /[\s"'\\><~|&;$*?#`()]/;

/** One Exec argument: % doubled (field codes), quoted when it holds a reserved character, " ` $ \ escaped inside quotes. */
export function execArgument(arg: string): string {
  const text = arg.replace(/%/g, '%%');
  if (text !== '' && !RESERVED.test(text)) return text;
  return `"${text.replace(/["`$\\]/g, '\\$&')}"`;
}

/** A key file string value: backslashes and control characters escaped (applied after Exec quoting, as the spec says). */
function keyFileValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
}

/** The autostart entry's text. */
export function autostartEntry(o: { name: string; launch: Launch }): string {
  const exec = [o.launch.path, ...o.launch.args].map(execArgument).join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.5',
    `Name=${keyFileValue(o.name)}`,
    `Comment=${keyFileValue(`Starts ${o.name} when you log in`)}`,
    `Exec=${keyFileValue(exec)}`,
    'Terminal=false',
    // Hidden=true would mean "deleted"; GNOME also reads its own switch.
    'Hidden=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** The autostart folder: $XDG_CONFIG_HOME/autostart, or ~/.config/autostart (a relative XDG_CONFIG_HOME is invalid per the spec). */
export function autostartDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const config = env.XDG_CONFIG_HOME;
  return path.join(config && path.isAbsolute(config) ? config : path.join(home, '.config'), 'autostart');
}

/** Writes (`content`) or removes (null) the entry `file` in `dir`; null, or what went wrong. */
export async function writeAutostartEntry(dir: string, file: string, content: string | null): Promise<string | null> {
  const target = path.join(dir, file);
  try {
    if (content === null) await unlink(target);
    else await writeFileAtomic(target, content);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (content === null && code === 'ENOENT') return null;
    const what = content === null ? `remove ${target}` : `write ${target}`;
    return `Could not ${what} (${(err as Error).message}), so start at login was not ${content === null ? 'turned off' : 'turned on'}.`;
  }
}

// ---------------------------------------------------------------------------
// macOS and Windows: app.setLoginItemSettings.

export interface LoginItemState {
  openAtLogin: boolean;
  /** macOS 13 and later: whether the user must approve the item in System Settings. */
  status?: 'not-registered' | 'enabled' | 'requires-approval' | 'not-found';
}

export type LoginItemApi = {
  setLoginItemSettings(settings: { openAtLogin?: boolean; path?: string; args?: string[] }): void;
  getLoginItemSettings(options?: { path?: string; args?: string[] }): LoginItemState;
};

/** Windows needs the executable and its arguments (each quoted: they are joined into one registry value); macOS only the switch. */
export function loginItemSettings(platform: ShellPlatform, on: boolean, launch: Launch): { openAtLogin: boolean; path?: string; args?: string[] } {
  return platform === 'win32' ? { openAtLogin: on, path: launch.path, args: launch.args.map((a) => `"${a}"`) } : { openAtLogin: on };
}

/** What the login item reads back after the change: null when it took effect, else what the user can do. */
export function loginItemOutcome(platform: ShellPlatform, on: boolean, got: LoginItemState, name: string): string | null {
  if (platform === 'darwin' && on && got.status === 'requires-approval') {
    return `macOS needs your approval to start ${name} at login: allow it in System Settings > General > Login Items.`;
  }
  if (got.openAtLogin === on) return null;
  const where = platform === 'darwin' ? 'System Settings > General > Login Items' : 'Settings > Apps > Startup';
  return on
    ? `The system did not add ${name} to the apps that start at login; add it in ${where}.`
    : `The system still starts ${name} at login; remove it in ${where}.`;
}

export interface StartAtLoginContext {
  platform: ShellPlatform;
  /** The product name, as the autostart entry and the messages show it. */
  name: string;
  /** The autostart file's name, without .desktop. */
  id: string;
  launch: Launch;
  loginItems: LoginItemApi;
  /** Linux: where the autostart entry goes (autostartDir). */
  autostartDir: string;
}

/** Applies start at login; null, or why it could not. */
export async function applyStartAtLogin(on: boolean, c: StartAtLoginContext): Promise<string | null> {
  if (c.platform === 'linux') {
    return writeAutostartEntry(c.autostartDir, `${c.id}.desktop`, on ? autostartEntry({ name: c.name, launch: c.launch }) : null);
  }
  const settings = loginItemSettings(c.platform, on, c.launch);
  try {
    c.loginItems.setLoginItemSettings(settings);
    return loginItemOutcome(c.platform, on, c.loginItems.getLoginItemSettings(c.platform === 'win32' ? { path: settings.path, args: settings.args } : undefined), c.name);
  } catch (err) {
    return `Could not change start at login (${(err as Error).message}).`;
  }
}
