/**
 * The Electron main process: one locked-down window, settings in the user data dir, and the voice
 * pipeline fed by microphone frames from the renderer. All policy lives in window-policy.ts and all
 * voice logic in pipeline/; this file only wires them to Electron.
 */
import { app, BrowserWindow, ipcMain, protocol, session, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultUserDataDir, defaultUserModelsDir, searchOrder } from '../native-models/resolver';
import { AssistantController } from './app/controller';
import { IPC, type AppEvent } from './ipc-contract';
import type { AudioSink } from './renderer-output';
import { appProtocolResponse } from './static-files';
import { APP_PAGE_URL, APP_SCHEME, hardenWebContents, isAppUrl, pageIdentity, secureSession, secureWebPreferences } from './window-policy';

const here = path.dirname(fileURLToPath(import.meta.url));

let win: BrowserWindow | null = null;
let controller: AssistantController | null = null;
let disposed = false;

/** The window's page, once it has loaded (events before that are in the snapshot it asks for). */
function page(): WebContents | null {
  return win && !win.isDestroyed() && !win.webContents.isLoading() ? win.webContents : null;
}

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
    webPreferences: secureWebPreferences(path.join(here, 'preload.cjs')),
  });
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    win = null;
  });
  void w.loadURL(appUrl).catch((err: unknown) => console.error(`Could not load ${appUrl}:`, err));
  return w;
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
  c.on((event: AppEvent) => page()?.send(IPC.appEvent, event));
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

  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });

  // Applies to every web contents, including any a bug might create: no navigation, popups or webviews.
  app.on('web-contents-created', (_e, contents) => hardenWebContents(contents));

  app.on('window-all-closed', () => app.quit());

  app.on('will-quit', (event) => {
    if (disposed || !controller) return;
    disposed = true;
    event.preventDefault();
    void controller
      .dispose()
      .catch((err: unknown) => console.error('Could not release the models:', err))
      .finally(() => app.quit());
  });

  void app.whenReady().then(() => {
    const appUrl = rendererUrl();
    serveRenderer();
    const c = new AssistantController({
      settingsFile: path.join(app.getPath('userData'), 'settings.json'),
      modelRoots: (s) => searchOrder({ explicit: s.models.dir ?? undefined, user: defaultUserModelsDir(), bundled: bundledModelsDir() }),
      audioSink: () => audioSink,
      downloadRoot: defaultUserModelsDir(),
    });
    controller = c;
    secureSession(session.defaultSession, appUrl, (contents) => win !== null && !win.isDestroyed() && contents === win.webContents);
    registerIpc(appUrl, c);
    win = createWindow(appUrl);
    c.start().catch((err: unknown) => console.error('The assistant could not start:', err));
  });
}

main();
