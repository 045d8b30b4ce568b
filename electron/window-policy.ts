/**
 * The window's security policy as plain data and pure functions: web preferences, the
 * Content-Security-Policy, which permission requests are granted and which URLs count as the
 * app's own page. No Electron import, so it is unit-tested without launching Electron.
 */

/**
 * The app's own scheme: the packaged page is served as app://local/ rather than file://, so it has a
 * real origin (file:// pages share an opaque one) and can load its AudioWorklet modules, which
 * browsers fetch with CORS and refuse from file://.
 */
export const APP_SCHEME = 'app';
export const APP_PAGE_URL = `${APP_SCHEME}://local/index.html`;

/** The subset of Electron's WebPreferences this app sets (structurally compatible with it). */
export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  webviewTag: false;
  navigateOnDragDrop: false;
  spellcheck: false;
  autoplayPolicy: 'no-user-gesture-required';
}

export function secureWebPreferences(preloadPath: string): SecureWebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    // The spellchecker may download dictionaries; a voice UI has little to spell-check.
    spellcheck: false,
    // The assistant's answer must play without a click first: speaking is what it is for.
    autoplayPolicy: 'no-user-gesture-required',
  };
}

export const CSP_DIRECTIVES: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'connect-src': ["'self'"],
  'media-src': ["'self'", 'blob:'],
  'worker-src': ["'self'", 'blob:'],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Sent as a response header (dev server, custom protocols); index.html repeats it in a meta tag
 * (META_CONTENT_SECURITY_POLICY), because file:// pages get no response headers.
 */
export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([name, sources]) => `${name} ${sources.join(' ')}`)
  .join('; ');

/** Directives a <meta> CSP may not carry (browsers ignore them there, with a console warning). */
const HEADER_ONLY_DIRECTIVES = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/** The policy for index.html's meta tag: the header policy less the header-only directives. */
export const META_CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .filter(([name]) => !HEADER_ONLY_DIRECTIVES.has(name))
  .map(([name, sources]) => `${name} ${sources.join(' ')}`)
  .join('; ');

/**
 * Response headers with our CSP in place of any the server sent (header names are case-insensitive,
 * so every spelling of Content-Security-Policy is replaced).
 */
export function withCspHeader(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}

/**
 * What identifies a page as the app's: the origin for http(s) (the dev server), the whole path for
 * file: (every file:// page shares one opaque origin, so the origin alone would admit any local
 * file). Query and fragment never count. null for anything unparsable or of another scheme.
 */
export function pageIdentity(url: string | undefined | null): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  if (u.protocol === `${APP_SCHEME}:`) return `${APP_SCHEME}://${u.host}`;
  if (u.protocol === 'file:') return `file://${u.host}${u.pathname}`;
  return null;
}

/** Whether `url` is the app's own page, `appUrl` (see pageIdentity). */
export function isAppUrl(url: string | undefined | null, appUrl: string): boolean {
  const id = pageIdentity(url);
  return id !== null && id === pageIdentity(appUrl);
}

export interface PermissionContext {
  /** From a media request or check: 'audio', 'video' (the camera), 'unknown'. */
  mediaTypes?: readonly string[];
  /** Requests from sub frames are refused. */
  isMainFrame?: boolean;
}

/**
 * The only permission granted is 'media' for the microphone, and only to the app's own page
 * (`origin` is the requesting URL; `appOrigin` the URL the window loaded). Any camera request and
 * every other permission (geolocation, notifications, clipboard, display capture...) is denied.
 */
export function isAllowedPermission(
  permission: string,
  origin: string | undefined | null,
  appOrigin: string,
  context: PermissionContext = {},
): boolean {
  if (permission !== 'media') return false;
  if (context.isMainFrame === false) return false;
  if (context.mediaTypes?.some((t) => t === 'video')) return false;
  return isAppUrl(origin, appOrigin);
}

/** The window never navigates away from the page it loaded; links and redirects are refused. */
export function isAllowedNavigation(_url: string): boolean {
  return false;
}

// ---------------------------------------------------------------------------
// The policy applied to Electron objects. Typed structurally (the few members used), so the exact
// handlers the app installs are unit-tested with stand-ins, without launching Electron.

interface PermissionRequestDetails {
  requestingUrl?: string;
  isMainFrame?: boolean;
  mediaTypes?: string[];
}
interface PermissionCheckDetails {
  requestingUrl?: string;
  isMainFrame?: boolean;
  mediaType?: string;
}

export interface SessionLike<C> {
  setPermissionRequestHandler(handler: (contents: C, permission: string, callback: (granted: boolean) => void, details: PermissionRequestDetails) => void): void;
  setPermissionCheckHandler(handler: (contents: C | null, permission: string, requestingOrigin: string, details: PermissionCheckDetails) => boolean): void;
  setDevicePermissionHandler(handler: (details: unknown) => boolean): void;
  webRequest: {
    onHeadersReceived(listener: (details: { responseHeaders?: Record<string, string[]> }, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void): void;
  };
}

/**
 * Installs the session's guards: only our window's page gets the microphone, every other permission
 * and every device (USB, HID, serial) is refused, and every response carries our CSP.
 */
export function secureSession<C>(ses: SessionLike<C>, appUrl: string, isOurWindow: (contents: C | null) => boolean): void {
  ses.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(
      isOurWindow(contents) &&
        isAllowedPermission(permission, details.requestingUrl, appUrl, { mediaTypes: details.mediaTypes, isMainFrame: details.isMainFrame }),
    );
  });
  ses.setPermissionCheckHandler(
    (contents, permission, requestingOrigin, details) =>
      isOurWindow(contents) &&
      isAllowedPermission(permission, details.requestingUrl ?? requestingOrigin, appUrl, {
        mediaTypes: details.mediaType ? [details.mediaType] : undefined,
        isMainFrame: details.isMainFrame,
      }),
  );
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCspHeader(details.responseHeaders) }));
}

export interface WebContentsLike {
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/** For every web contents (including any a bug might create): no navigation, no popups, no webviews. */
export function hardenWebContents(contents: WebContentsLike): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
