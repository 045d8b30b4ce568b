/**
 * What the controller asks of the desktop around the window (the global shortcut, start at login).
 * The Electron app passes one built from electron/desktop/*; dev:web and the tests have none, and
 * the settings then only take effect in the app.
 */
import type { MicrophoneAccess } from './microphone-access';

export interface DesktopShell {
  /** Registers the global shortcut ('' = none); null, or why it cannot be used (taken, invalid). */
  setShortcut(accelerator: string): string | null;
  /** What the user should know about a shortcut that is in effect, or null (see wayland.ts). */
  shortcutNote(accelerator: string): string | null;
  /** Applies start at login; null, or why it could not. */
  setStartAtLogin(on: boolean): Promise<string | null>;
  /** Whether the system lets the app use the microphone (see microphone-access.ts). */
  microphoneAccess(): Promise<MicrophoneAccess>;
}
