/**
 * The app's identity on the desktop: the appId of electron-builder.yml, which is also the Windows app
 * user model id (the NSIS shortcut carries it; notifications need the process to match it) and, as
 * `desktopName` in package.json, the Linux desktop entry's name (the Wayland app id the portal checks).
 */
export const APP_ID = 'dev.localvoice.assistant';
export const DESKTOP_NAME = `${APP_ID}.desktop`;
export const APP_NAME = 'Local Voice Assistant';
