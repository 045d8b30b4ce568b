/**
 * The Electron main process: one locked-down window, settings in the user data dir, and the voice
 * pipeline fed by microphone frames from the renderer. All policy lives in window-policy.ts and all
 * voice logic in pipeline/; this file only wires them to Electron.
 *
 * Nothing here imports the native engines (node-llama-cpp, sherpa-onnx, onnxruntime): the controller
 * that uses them is imported once the app is ready (a separate chunk of the build), so a second
 * instance quits without loading them, and an engine that cannot load gets a dialog saying why.
 */
import { app, BrowserWindow, dialog, ipcMain, net, protocol, session, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultUserDataDir, defaultUserModelsDir, searchOrder } from '../native-models/resolver';
import type { AssistantController } from './app/controller';
import { Desktop } from './desktop/desktop';
import { IPC, type AppEvent } from './ipc-contract';
import { PageGate } from './page-gate';
import type { AudioSink } from './renderer-output';
import { startupFailure } from './startup-failure';
import { appProtocolResponse } from './static-files';
import { settleWithin } from './time-limit';
import { APP_PAGE_URL, APP_SCHEME, hardenWebContents, isAppUrl, pageIdentity, secureSession, secureWebPreferences } from './window-policy';
import { EncryptedFile } from './secrets/secret-store';
import { safeStorageCipher } from './secrets/safe-storage';

const here = path.dirname(fileURLToPath(import.meta.url));

let win: BrowserWindow | null = null;
let controller: AssistantController | null = null;
/** The global shortcut, tray, start at login and close-to-tray (electron/desktop/). */
let desktop: Desktop | null = null;
/** The page the window loads, once the app has started. */
let pageUrl: string | null = null;
let disposed = false;

/**
 * Quitting waits this long for the models to be released, then exits anyway: a load in progress
 * (seconds for a large LLM) must not leave a windowless process holding the single-instance lock.
 */
const DISPOSE_LIMIT_MS = 3000;

/** The window's page, once it has loaded. */
function page(): WebContents | null {
  return win && !win.isDestroyed() && !win.webContents.isLoading() ? win.webContents : null;
}

/** App events wait while the page loads (see PageGate); audio is only ever an answer to the page's own microphone. */
const appEvents = new PageGate<AppEvent>((event) => {
  if (win && !win.isDestroyed()) win.webContents.send(IPC.appEvent, event);
});

const audioSink: AudioSink = {
  audio: (a) => page()?.send(IPC.assistantAudio, a),
  control: (c) => page()?.send(IPC.assistantAudioControl, c),
};

/** The page the window shows: a dev server (ELECTRON_RENDERER_URL, unpackaged only) or the built page on app://. */
function rendererUrl(): string {
  const dev = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  if (dev && pageIdentity(dev)?.startsWith('http')) return dev;
  return APP_PAGE_URL;
}

/** Serves dist/renderer on app://local/ (read-only, only the page's own file types, with the CSP). */
function serveRenderer(): void {
  const root = path.join(app.getAppPath(), 'dist', 'renderer');
  protocol.handle(APP_SCHEME, (request) => appProtocolResponse(root, request.url, request.method));
}

function bundledModelsDir(): string {
  return app.isPackaged ? path.join(process.resourcesPath, 'models') : path.join(app.getAppPath(), 'native-models', 'bundled');
}

/** IPC is accepted only from our window's own page. */
function fromApp(e: IpcMainEvent | IpcMainInvokeEvent, appUrl: string): boolean {
  return win !== null && !win.isDestroyed() && e.sender === win.webContents && isAppUrl(e.senderFrame?.url, appUrl);
}

function createWindow(appUrl: string): BrowserWindow {
  const w = new BrowserWindow({
    width: 1200,
    height: 820,
    minWidth: 720,
    minHeight: 560,
    title: 'Local Voice Assistant',
    show: false,
    // The assistant keeps listening and speaking with its window hidden in the tray: no throttling of a hidden page.
    webPreferences: { ...secureWebPreferences(path.join(here, 'preload.cjs')), backgroundThrottling: false },
  });
  desktop?.guardWindow(w);
  w.once('ready-to-show', () => w.show());
  w.webContents.on('did-start-loading', () => appEvents.close());
  w.webContents.on('did-finish-load', () => appEvents.release());
  w.on('closed', () => {
    win = null;
  });
  void w.loadURL(appUrl).catch((err: unknown) => console.error(`Could not load ${appUrl}:`, err));
  return w;
}

/** Shows the window (the tray, the Dock, a second instance), creating it when there is none. */
function showWindow(): void {
  if (!win || win.isDestroyed()) {
    if (pageUrl) win = createWindow(pageUrl);
    return;
  }
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function registerIpc(appUrl: string, c: AssistantController): void {
  ipcMain.on(IPC.micAudio, (e, frame: unknown) => {
    if (fromApp(e, appUrl)) c.pushAudio(frame);
  });
  ipcMain.on(IPC.command, (e, command: unknown) => {
    if (fromApp(e, appUrl)) c.command(command);
  });
  ipcMain.handle(IPC.request, async (e, request: unknown) => {
    if (!fromApp(e, appUrl)) throw new Error('request refused: not the app page');
    return c.request(request);
  });
  c.on((event: AppEvent) => appEvents.send(event));
}

/** Loads the controller, and with it the native engines; null (after telling the user) when they cannot load. */
async function loadController(): Promise<typeof import('./app/controller') | null> {
  try {
    return await import('./app/controller');
  } catch (err) {
    console.error('The engines could not be loaded:', err);
    const { title, message } = startupFailure(err, process.platform);
    dialog.showErrorBox(title, message);
    return null;
  }
}

async function start(): Promise<void> {
  const loaded = await loadController();
  if (!loaded) {
    app.exit(1);
    return;
  }
  const appUrl = rendererUrl();
  pageUrl = appUrl;
  serveRenderer();
  const d = new Desktop({ userDataDir: app.getPath('userData'), showWindow });
  desktop = d;
  const c = new loaded.AssistantController({
    settingsFile: path.join(app.getPath('userData'), 'settings.json'),
    modelRoots: (s) => searchOrder({ explicit: s.models.dir ?? undefined, user: defaultUserModelsDir(), bundled: bundledModelsDir() }),
    audioSink: () => audioSink,
    downloadRoot: defaultUserModelsDir(),
    appVersion: app.getVersion(),
    // Chromium's network stack: system, PAC and authenticating proxies apply to model downloads too.
    fetch: (url, init) => net.fetch(url, init),
    // The LLM server's API key, encrypted by the OS keychain / DPAPI / desktop keyring; never in settings.json.
    secrets: new EncryptedFile(path.join(app.getPath('userData'), 'llm-api-key.enc'), safeStorageCipher),
    // The global shortcut and start at login, which the controller applies from the settings.
    shell: d.shell,
  });
  controller = c;
  secureSession(session.defaultSession, appUrl, (contents) => win !== null && !win.isDestroyed() && contents === win.webContents);
  registerIpc(appUrl, c);
  // Before start(): the tray shows "starting" while the models load.
  d.attach(c);
  win = createWindow(appUrl);
  c.start().catch((err: unknown) => console.error('The assistant could not start:', err));
}

function main(): void {
  // One settings folder whatever the product name: the one `dev:web` uses too (see defaultUserDataDir).
  app.setPath('userData', defaultUserDataDir());
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Before ready: a standard, secure scheme gets a real origin, a secure context (the microphone) and fetch.
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

  // A second start shows the window, also from the tray (on a desktop with no tray icon, the only way back).
  app.on('second-instance', () => showWindow());
  // macOS: a click on the Dock icon.
  app.on('activate', () => showWindow());

  // Applies to every web contents, including any a bug might create: no navigation, popups or webviews.
  app.on('web-contents-created', (_e, contents) => hardenWebContents(contents));

  // Windows are only hidden while the app runs on in the tray or the Dock (see desktop/close-policy.ts).
  app.on('window-all-closed', () => {
    if (!desktop || desktop.quitWhenAllClosed()) app.quit();
  });
  // Cmd+Q, the tray's Quit, app.quit(): from here on a window's close really closes it.
  app.on('before-quit', () => desktop?.beginQuit());

  app.on('will-quit', (event) => {
    desktop?.dispose();
    if (disposed || !controller) return;
    disposed = true;
    event.preventDefault();
    const released = controller.dispose().catch((err: unknown) => console.error('Could not release the models:', err));
    void settleWithin(released, DISPOSE_LIMIT_MS).then((inTime) => {
      if (inTime) return app.quit();
      // exit, not quit: nothing more may wait on the release that is stuck.
      console.error(`The models were not released within ${DISPOSE_LIMIT_MS / 1000} s; exiting anyway.`);
      app.exit(0);
    });
  });

  void app.whenReady()
    .then(start)
    .catch((err: unknown) => {
      // Without this, a failure here would leave a process with no window and the instance lock.
      console.error('The app could not start:', err);
      dialog.showErrorBox('Local Voice Assistant cannot start', err instanceof Error ? err.message : String(err));
      app.exit(1);
    });
}

main();
