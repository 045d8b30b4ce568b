/**
 * Linux sessions where global shortcuts go through the desktop portal (Wayland, since Electron 43):
 * register() succeeds at once, and the desktop then asks the user to confirm the keys in its own
 * dialog (or refuses them, saying nothing to the app). Pure: the caller passes the environment.
 */

/** Whether Electron runs as a Wayland client here (its default since Electron 38 when the session is Wayland). */
export function isWaylandSession(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, argv: readonly string[] = []): boolean {
  if (platform !== 'linux') return false;
  // Forced to X11 (XWayland): the X11 shortcut path applies, with no portal.
  if (argv.some((a) => a === '--ozone-platform=x11') || env.ELECTRON_OZONE_PLATFORM_HINT === 'x11') return false;
  return env.XDG_SESSION_TYPE === 'wayland' || Boolean(env.WAYLAND_DISPLAY);
}

/** What the window says beside a shortcut in effect on Wayland. */
export function waylandShortcutNote(label: string): string {
  return (
    `On Wayland your desktop asks you to confirm ${label} in a system dialog the first time. ` +
    "If none appeared, or you declined it, assign the shortcut in your desktop's keyboard settings (the app is listed as Local Voice Assistant)."
  );
}
