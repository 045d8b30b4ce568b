import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  CONTENT_SECURITY_POLICY,
  CSP_DIRECTIVES,
  META_CONTENT_SECURITY_POLICY,
  hardenWebContents,
  secureSession,
  type SessionLike,
  type WebContentsLike,
  isAllowedNavigation,
  isAllowedPermission,
  isAppUrl,
  secureWebPreferences,
  withCspHeader,
} from '../electron/window-policy';

const FILE_APP = pathToFileURL('/opt/Local Voice Assistant/resources/app.asar/dist/renderer/index.html').href;
const DEV_APP = 'http://localhost:5173/';

/** Parses "a x y; b z" into { a: ['x','y'], b: ['z'] }. */
function parseCsp(policy: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out[name] = sources;
  }
  return out;
}

test('web preferences isolate and sandbox the page', () => {
  const prefs: Record<string, unknown> = { ...secureWebPreferences('/app/dist-electron/preload.cjs') };
  assert.equal(prefs.preload, '/app/dist-electron/preload.cjs');
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.notEqual(prefs.nodeIntegrationInWorker, true);
  assert.notEqual(prefs.nodeIntegrationInSubFrames, true);
  assert.notEqual(prefs.webSecurity, false);
  assert.notEqual(prefs.allowRunningInsecureContent, true);
  assert.notEqual(prefs.experimentalFeatures, true);
  assert.notEqual(prefs.webviewTag, true);
  assert.equal(prefs.enableBlinkFeatures, undefined);
});

test('the CSP allows scripts from the app only, never eval or inline', () => {
  const csp = parseCsp(CONTENT_SECURITY_POLICY);
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-eval|wasm-unsafe-eval/);
  assert.deepEqual(csp['script-src'], ["'self'"]);
  assert.deepEqual(csp['default-src'], ["'self'"]);
  assert.deepEqual(csp['object-src'], ["'none'"]);
  assert.deepEqual(csp['base-uri'], ["'none'"]);
  assert.deepEqual(csp['frame-ancestors'], ["'none'"]);
  assert.deepEqual(csp['connect-src'], ["'self'"]);
  assert.deepEqual(csp['media-src'], ["'self'", 'blob:']);
  assert.deepEqual(csp['worker-src'], ["'self'", 'blob:']);
  assert.deepEqual(csp['style-src'], ["'self'", "'unsafe-inline'"]);
  for (const sources of Object.values(csp)) {
    assert.ok(!sources.includes('*') && !sources.includes('data:') && !sources.some((s) => s.startsWith('http')), String(sources));
  }
  assert.deepEqual(Object.keys(csp), Object.keys(CSP_DIRECTIVES));
});

test('index.html carries the same policy in its meta tag (less header-only directives)', async () => {
  const html = await readFile(new URL('../renderer/index.html', import.meta.url), 'utf8');
  const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  assert.ok(meta, 'index.html has no CSP meta tag');
  assert.equal(meta[1], META_CONTENT_SECURITY_POLICY);
  const header = parseCsp(CONTENT_SECURITY_POLICY);
  delete header['frame-ancestors'];
  assert.deepEqual(parseCsp(META_CONTENT_SECURITY_POLICY), header);
  // Only the bundled script; no inline code (script-src 'self' would block it anyway).
  assert.deepEqual([...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]), ['<script src="./main.js">']);
});

test('the CSP header replaces any the server sent, whatever its spelling', () => {
  const headers = withCspHeader({ 'content-security-policy': ["default-src *; script-src 'unsafe-eval'"], 'Content-Type': ['text/html'] });
  assert.deepEqual(headers, { 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  assert.deepEqual(withCspHeader(undefined), { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
});

test("microphone access is granted to the app's own page only", () => {
  assert.equal(isAllowedPermission('media', FILE_APP, FILE_APP), true);
  assert.equal(isAllowedPermission('media', `${FILE_APP}#settings`, FILE_APP, { mediaTypes: ['audio'], isMainFrame: true }), true);
  assert.equal(isAllowedPermission('media', 'http://localhost:5173/some/page?x=1', DEV_APP, { mediaTypes: ['audio'] }), true);

  // Another origin, another local file, look-alikes, nothing.
  assert.equal(isAllowedPermission('media', 'https://evil.example/', FILE_APP), false);
  assert.equal(isAllowedPermission('media', 'https://evil.example/', DEV_APP), false);
  assert.equal(isAllowedPermission('media', 'http://localhost:5174/', DEV_APP), false);
  assert.equal(isAllowedPermission('media', 'https://localhost:5173/', DEV_APP), false);
  assert.equal(isAllowedPermission('media', 'file:///tmp/evil.html', FILE_APP), false);
  assert.equal(isAllowedPermission('media', 'file:///', FILE_APP), false);
  assert.equal(isAllowedPermission('media', FILE_APP, DEV_APP), false);
  assert.equal(isAllowedPermission('media', 'null', FILE_APP), false);
  assert.equal(isAllowedPermission('media', '', FILE_APP), false);
  assert.equal(isAllowedPermission('media', undefined, FILE_APP), false);
  assert.equal(isAllowedPermission('media', 'data:text/html,<p>', FILE_APP), false);

  // The camera, and sub frames, even of our own page.
  assert.equal(isAllowedPermission('media', FILE_APP, FILE_APP, { mediaTypes: ['audio', 'video'] }), false);
  assert.equal(isAllowedPermission('media', FILE_APP, FILE_APP, { mediaTypes: ['video'] }), false);
  assert.equal(isAllowedPermission('media', FILE_APP, FILE_APP, { isMainFrame: false }), false);
});

test('every other permission is denied, even to the app', () => {
  const others = [
    'geolocation',
    'notifications',
    'clipboard-read',
    'clipboard-sanitized-write',
    'display-capture',
    'fullscreen',
    'openExternal',
    'fileSystem',
    'midi',
    'midiSysex',
    'hid',
    'serial',
    'usb',
    'pointerLock',
    'keyboardLock',
    'idle-detection',
    'speaker-selection',
    'storage-access',
    'window-management',
    'local-fonts',
    'unknown',
    'MEDIA',
  ];
  for (const permission of others) {
    assert.equal(isAllowedPermission(permission, FILE_APP, FILE_APP), false, permission);
    assert.equal(isAllowedPermission(permission, DEV_APP, DEV_APP), false, permission);
  }
});

test('the window never navigates', () => {
  for (const url of ['https://example.com/', FILE_APP, DEV_APP, 'file:///etc/passwd', 'javascript:alert(1)']) {
    assert.equal(isAllowedNavigation(url), false, url);
  }
});

test('isAppUrl compares origins for http and whole paths for file', () => {
  assert.equal(isAppUrl('http://localhost:5173/x', DEV_APP), true);
  assert.equal(isAppUrl(`${FILE_APP}?q=1`, FILE_APP), true);
  assert.equal(isAppUrl(FILE_APP.replace('index.html', 'other.html'), FILE_APP), false);
  assert.equal(isAppUrl('not a url', FILE_APP), false);
  assert.equal(isAppUrl(null, FILE_APP), false);
});

test('the session handlers the app installs grant the microphone to its own window only, and set the CSP', () => {
  type Contents = { id: number };
  const ours: Contents = { id: 1 };
  const other: Contents = { id: 2 };
  const h: Record<string, (...args: never[]) => unknown> = {};
  const ses: SessionLike<Contents> = {
    setPermissionRequestHandler: (fn) => (h.request = fn as never),
    setPermissionCheckHandler: (fn) => (h.check = fn as never),
    setDevicePermissionHandler: (fn) => (h.device = fn as never),
    webRequest: { onHeadersReceived: (fn) => (h.headers = fn as never) },
  };
  secureSession(ses, FILE_APP, (c) => c === ours);
  const request = (contents: Contents, permission: string, details: object) => {
    let granted: boolean | undefined;
    (h.request as unknown as Parameters<SessionLike<Contents>['setPermissionRequestHandler']>[0])(contents, permission, (g) => (granted = g), details);
    return granted;
  };
  assert.equal(request(ours, 'media', { requestingUrl: FILE_APP, mediaTypes: ['audio'], isMainFrame: true }), true);
  assert.equal(request(other, 'media', { requestingUrl: FILE_APP, mediaTypes: ['audio'], isMainFrame: true }), false, 'another window');
  assert.equal(request(ours, 'media', { requestingUrl: FILE_APP, mediaTypes: ['video'], isMainFrame: true }), false, 'the camera');
  assert.equal(request(ours, 'notifications', { requestingUrl: FILE_APP, isMainFrame: true }), false);
  assert.equal(request(ours, 'media', { requestingUrl: 'https://evil.example/', mediaTypes: ['audio'] }), false);
  const check = h.check as unknown as Parameters<SessionLike<Contents>['setPermissionCheckHandler']>[0];
  assert.equal(check(ours, 'media', 'file:///', { requestingUrl: FILE_APP, mediaType: 'audio', isMainFrame: true }), true);
  assert.equal(check(null, 'media', 'file:///', { requestingUrl: FILE_APP, mediaType: 'audio' }), false);
  assert.equal(check(ours, 'geolocation', 'file:///', { requestingUrl: FILE_APP }), false);
  assert.equal((h.device as unknown as () => boolean)(), false, 'no USB/HID/serial devices');
  let headers: Record<string, string[]> | undefined;
  (h.headers as unknown as Parameters<SessionLike<Contents>['webRequest']['onHeadersReceived']>[0])({ responseHeaders: { 'content-security-policy': ['default-src *'] } }, (r) => (headers = r.responseHeaders));
  assert.deepEqual(headers, { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
});

test('every web contents is hardened: navigation prevented, popups denied, webviews refused', () => {
  const listeners = new Map<string, (event: { preventDefault(): void }, url?: string) => void>();
  let openHandler: ((d: { url: string }) => { action: string }) | undefined;
  const contents: WebContentsLike = {
    on: ((event: string, fn: (event: { preventDefault(): void }, url?: string) => void) => listeners.set(event, fn)) as WebContentsLike['on'],
    setWindowOpenHandler: (fn) => (openHandler = fn),
  };
  hardenWebContents(contents);
  for (const event of ['will-navigate', 'will-attach-webview']) {
    let prevented = false;
    listeners.get(event)!({ preventDefault: () => (prevented = true) }, 'https://example.com/');
    assert.equal(prevented, true, event);
  }
  assert.deepEqual(openHandler!({ url: 'https://example.com/' }), { action: 'deny' });
  assert.deepEqual(openHandler!({ url: FILE_APP }), { action: 'deny' });
});

test('the window may play the answer without a click, and nothing else is loosened for it', () => {
  const prefs = secureWebPreferences('/p.cjs');
  assert.equal(prefs.autoplayPolicy, 'no-user-gesture-required');
  assert.equal(prefs.sandbox, true);
});
