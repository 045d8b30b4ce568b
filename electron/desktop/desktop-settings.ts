/**
 * The desktop settings (the global shortcut, start at login) applied through the app's shell: at
 * start, and before a change is saved. Without a shell (dev:web, the tests) they only take effect
 * in the app.
 */
import type { AppStatus } from '../ipc-contract';
import type { Settings } from '../settings/schema';
import type { DesktopShell } from './shell';

type DesktopSettings = Settings['desktop'];
type DesktopStatus = AppStatus['desktop'];

/**
 * Applies the desktop settings at start. A shortcut another program holds is reported (the window
 * says so beside the setting) and the assistant runs without it.
 */
export async function applyDesktop(shell: DesktopShell | undefined, desktop: DesktopSettings, notice: (message: string) => void): Promise<DesktopStatus> {
  if (!shell) return { shell: false, shortcut: desktop.shortcut, shortcutError: null };
  const shortcutError = shell.setShortcut(desktop.shortcut);
  if (shortcutError) notice(shortcutError);
  // Only an "on" is re-applied at start (it refreshes a moved app's path); "off" is applied when
  // changed, so a login item the user added in the system's own settings is left alone.
  const loginError = desktop.startAtLogin ? await shell.setStartAtLogin(true) : null;
  if (loginError) notice(loginError);
  const shortcut = shortcutError ? '' : desktop.shortcut;
  return { shell: true, shortcut, shortcutError, shortcutNote: shortcut ? shell.shortcutNote(shortcut) : null };
}

/**
 * A patch that changes the shortcut or start at login is applied to the desktop before it is
 * saved: a shortcut another program holds is refused, and the setting is not saved as if it
 * worked. Returns why, or null; `registered` hears of a new shortcut as soon as it is in effect.
 */
export async function applyDesktopChange(
  shell: DesktopShell | undefined,
  before: DesktopSettings,
  next: DesktopSettings,
  registered: (status: DesktopStatus) => void,
): Promise<string | null> {
  if (!shell) return null;
  if (next.shortcut !== before.shortcut) {
    const error = shell.setShortcut(next.shortcut);
    if (error) return error;
    registered({ shell: true, shortcut: next.shortcut, shortcutError: null, shortcutNote: next.shortcut ? shell.shortcutNote(next.shortcut) : null });
  }
  if (next.startAtLogin !== before.startAtLogin) {
    const error = await shell.setStartAtLogin(next.startAtLogin);
    if (error) return error;
  }
  return null;
}
