/**
 * What the controller asks of the desktop around the window (the global shortcut, start at login).
 * The Electron app passes one built from electron/desktop/*; dev:web and the tests have none, and
 * the settings then only take effect in the app.
 */
export interface DesktopShell {
  /** Registers the global shortcut ('' = none); null, or why it cannot be used (taken, invalid). */
  setShortcut(accelerator: string): string | null;
  /** Applies start at login; null, or why it could not. */
  setStartAtLogin(on: boolean): Promise<string | null>;
}
