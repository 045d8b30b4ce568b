/**
 * What closing the window does, per platform. Pure (main.ts applies it to the window's close event).
 *
 * The assistant lives in the window's page (its microphone and speaker), so "keeps running" means
 * the window is hidden, never destroyed:
 * - macOS: closing a window hides it and the app stays in the Dock (and the menu bar), whatever the
 *   closeToTray setting: that is what Mac apps do; the Dock icon or the menu bar shows it again and
 *   Quit (Cmd+Q, the menu) ends it.
 * - Windows and Linux: with closeToTray on and a tray icon, closing hides the window into the tray;
 *   with the setting off, or no tray (Tray creation failed), closing quits, as it always did.
 * A quit in progress (the Quit menu, app.quit, the OS shutting down) always closes.
 */
import type { ShellPlatform } from '../settings/accelerator';

export interface CloseContext {
  platform: ShellPlatform;
  /** The closeToTray setting. */
  closeToTray: boolean;
  /** Whether a tray icon exists (Electron's Tray could be created). */
  trayCreated: boolean;
  /** The app is quitting: the window must really close. */
  quitting: boolean;
  /** The once-only "still running" notice was shown already (on this machine, ever). */
  noticeShown: boolean;
}

export interface CloseDecision {
  action: 'hide' | 'close';
  /** Tell the user, once, that the assistant still runs and how to reach it. */
  showNotice: boolean;
}

/** Whether the app stays alive with its window closed (hidden) on this platform and setting. */
export function keepsRunningInBackground(c: Pick<CloseContext, 'platform' | 'closeToTray' | 'trayCreated'>): boolean {
  return c.platform === 'darwin' || (c.closeToTray && c.trayCreated);
}

export function decideClose(c: CloseContext): CloseDecision {
  if (c.quitting || !keepsRunningInBackground(c)) return { action: 'close', showNotice: false };
  return { action: 'hide', showNotice: !c.noticeShown };
}

/**
 * When every window is closed: quit unless the app lives on without one. Windows are only hidden
 * while the app keeps running, so on Windows and Linux this is a close the policy let through.
 */
export function quitWhenAllWindowsClosed(c: Pick<CloseContext, 'platform' | 'closeToTray' | 'trayCreated'>): boolean {
  return !keepsRunningInBackground(c);
}

/** The once-only notice: where the assistant went, and how to talk to it and to quit. */
export function backgroundNotice(platform: ShellPlatform, shortcutLabel: string, trayCreated: boolean, appName: string): { title: string; body: string } {
  const talk = shortcutLabel ? `Press ${shortcutLabel} to talk` : 'Set a shortcut in Settings to talk from any program';
  let body: string;
  if (platform === 'darwin') {
    const where = trayCreated ? 'the menu bar' : 'the Dock';
    body = `The assistant is still running in ${where}. ${talk}, or quit it from its menu there (or with ⌘Q).`;
  } else if (platform === 'linux') {
    // A desktop without a status notifier host (GNOME without its AppIndicator extension) shows no icon, and Electron cannot tell.
    body = `The assistant is still running in the tray. ${talk}, or use the tray menu to quit. No tray icon on your desktop? Start the app again to open the window, and quit from its File menu.`;
  } else {
    body = `The assistant is still running in the tray. ${talk}, or use the tray menu to quit.`;
  }
  return { title: `${appName} is still running`, body };
}
