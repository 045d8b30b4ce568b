/**
 * The Electron main process: one locked-down window, settings in the user data dir, and the voice
 * pipeline fed by microphone frames from the renderer. All policy lives in window-policy.ts and all
 * voice logic in pipeline/; this file only wires them to Electron.
 *
 * Nothing here imports the native engines (node-llama-cpp, sherpa-onnx, onnxruntime): the controller
 * that uses them is imported once the window and the tray are up (a separate chunk of the build; a
 * cold start can take seconds), so a second instance quits without loading them, a second launch
 * meanwhile shows the window, and an engine that cannot load gets a dialog saying why.
 */
import { app, BrowserWindow, clipboard, dialog, ipcMain, net, powerMonitor, protocol, session, shell, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultUserDataDir, defaultUserModelsDir, searchOrder } from '../native-models/resolver';
import type { AssistantController } from './app/controller';
import { syncAppImageEntry } from './desktop/appimage-entry';
import { Desktop } from './desktop/desktop';
import { APP_ID, APP_NAME, DESKTOP_NAME } from './desktop/identity';
import { MICROPHONE_STOPPED, MicWatchdog, type WatchdogAction } from './desktop/mic-watchdog';
import { afterRendererGone } from './desktop/renderer-crash';
import { IPC, type AppEvent } from './ipc-contract';
import { PageGate } from './page-gate';
import type { AudioSink } from './renderer-output';
import { startupFailure } from './startup-failure';
import { appProtocolResponse } from './static-files';
import { settleWithin } from './time-limit';
import { APP_PAGE_URL, APP_SCHEME, hardenWebContents, isAppUrl, pageIdentity, secureSession, secureWebPreferences } from './window-policy';
import { EncryptedFile } from './secrets/secret-store';
import { safeStorageCipher } from './secrets/safe-storage';
import { MCP_ENV_LABEL } from './app/mcp-env';

const here = path.dirname(fileURLToPath(import.meta.url));

let win: BrowserWindow | null = null;
let controller: AssistantController | null = null;
/** Requests from the window wait for the controller while the engines are imported. */
let controllerLoaded: (c: AssistantController) => void = () => undefined;
const controllerReady = new Promise<AssistantController>((resolve) => (controllerLoaded = resolve));
/** Notices a microphone that stopped sending frames (see desktop/mic-watchdog.ts). */
const watchdog = new MicWatchdog();
/** When the window's page process died lately (see desktop/renderer-crash.ts). */
let rendererDeaths: number[] = [];
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
  w.webContents.on('did-start-loading', () => {
    appEvents.close();
    watchdog.pageLoading(performance.now());
  });
  w.webContents.on('render-process-gone', (_e, details) => {
    watchdog.pageGone();
    const next = afterRendererGone(rendererDeaths, performance.now(), details.reason);
    rendererDeaths = next.recent;
    console.error(`The window's page process ended (${details.reason}, exit code ${details.exitCode}).`);
    if (next.reload) w.webContents.reload();
    else if (details.reason !== 'clean-exit') dialog.showErrorBox(`${APP_NAME}: the window keeps failing`, `Its page process ended ${next.recent.length} times within a minute (${details.reason}). Quit the app and start it again.`);
  });
  w.webContents.on('did-finish-load', () => appEvents.release());
  w.on('closed', () => {
    win = null;
    watchdog.pageGone();
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

/** Carries out what the microphone watchdog decided. */
function onWatchdog(action: WatchdogAction): void {
  switch (action) {
    case 'restart-capture':
      appEvents.send({ type: 'microphone-restart' });
      return;
    case 'reload-page':
      if (win && !win.isDestroyed()) win.webContents.reload();
      return;
    case 'report':
      console.error(MICROPHONE_STOPPED);
      controller?.reportMicrophone(MICROPHONE_STOPPED);
      return;
    case 'recovered':
      controller?.reportMicrophone(null);
      return;
    case 'none':
      return;
  }
}

/**
 * From the window's page only. Registered before the engines are imported: requests wait for the
 * controller; frames and commands sent meanwhile are dropped (the window says it is loading).
 */
function registerIpc(appUrl: string): void {
  ipcMain.on(IPC.micAudio, (e, frame: unknown) => {
    if (!fromApp(e, appUrl)) return;
    onWatchdog(watchdog.frame(performance.now()));
    controller?.pushAudio(frame);
  });
  ipcMain.on(IPC.command, (e, command: unknown) => {
    if (fromApp(e, appUrl)) controller?.command(command);
  });
  ipcMain.handle(IPC.request, async (e, request: unknown) => {
    if (!fromApp(e, appUrl)) throw new Error('request refused: not the app page');
    return (await controllerReady).request(request);
  });
  setInterval(() => onWatchdog(watchdog.tick(performance.now())), 500).unref();
  // After sleep the capture may be dead without a word: it is reopened at once.
  powerMonitor.on('resume', () => onWatchdog(watchdog.resumed(performance.now())));
}

/** Loads the controller, and with it the native engines; null (after telling the user) when they cannot load. */
async function loadController(): Promise<typeof import('./app/controller') | null> {
  try {
    return await import('./app/controller');
  } catch (err) {
    console.error('The engines could not be loaded:', err);
    const { title, message } = startupFailure(err, process.platform, process.arch);
    dialog.showErrorBox(title, message);
    return null;
  }
}

async function start(): Promise<void> {
  // The window (it says "Loading models…") and the tray first: importing the engines can take seconds.
  const appUrl = rendererUrl();
  pageUrl = appUrl;
  serveRenderer();
  const d = new Desktop({ userDataDir: app.getPath('userData'), showWindow });
  desktop = d;
  secureSession(session.defaultSession, appUrl, (contents) => win !== null && !win.isDestroyed() && contents === win.webContents);
  registerIpc(appUrl);
  d.showTray();
  win = createWindow(appUrl);
  if (process.platform === 'linux' && process.env.APPIMAGE) {
    // The Wayland shortcut portal needs an installed desktop entry; an AppImage installs none.
    syncAppImageEntry({ appImage: process.env.APPIMAGE, desktopName: DESKTOP_NAME, name: APP_NAME, env: process.env, home: os.homedir() }).catch((err: unknown) =>
      console.error('Could not write the desktop entry for the AppImage:', err),
    );
  }

  const loaded = await loadController();
  if (!loaded) {
    app.exit(1);
    return;
  }
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
    // The MCP servers' environment values, the same way.
    mcpSecrets: new EncryptedFile(path.join(app.getPath('userData'), 'mcp-env.enc'), safeStorageCipher, MCP_ENV_LABEL),
    // The global shortcut, start at login and the microphone permission, which the controller applies and asks.
    shell: d.shell,
    // The read_clipboard tool's text.
    clipboard: { readText: () => clipboard.readText() },
    // The open tool (asks the user first): links in the browser, files with their program.
    opener: { openExternal: (url) => shell.openExternal(url), openPath: (file) => shell.openPath(file) },
  });
  controller = c;
  c.on((event: AppEvent) => appEvents.send(event));
  // Before start(): the tray shows "starting" while the models load.
  d.attach(c);
  controllerLoaded(c);
  c.start().catch((err: unknown) => console.error('The assistant could not start:', err));
}

function main(): void {
  // One settings folder whatever the product name: the one `dev:web` uses too (see defaultUserDataDir).
  app.setPath('userData', defaultUserDataDir());
  // Windows: the id the installer's shortcut carries, without which notifications do not show.
  if (process.platform === 'win32') app.setAppUserModelId(APP_ID);
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
