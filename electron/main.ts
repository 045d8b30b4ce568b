/**
 * The Electron main process: one locked-down window, settings in the user data dir, and the voice
 * pipeline fed by microphone frames from the renderer. All policy lives in window-policy.ts and all
 * voice logic in pipeline/; this file only wires them to Electron.
 */
import { app, BrowserWindow, ipcMain, session, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultUserModelsDir, searchOrder } from '../native-models/resolver';
import { isUserError } from './errors';
import { IPC, MAX_MIC_FRAME_SAMPLES, type SettingsUpdateResult } from './ipc-contract';
import { RealtimeClock } from './pipeline/clock';
import type { PipelineEvent } from './pipeline/events';
import { loadEngines, type LoadedEngines } from './pipeline/load-engines';
import { VoicePipeline } from './pipeline/voice-pipeline';
import { RendererOutput } from './renderer-output';
import { SettingsStore } from './settings/file';
import type { Settings } from './settings/schema';
import { isAllowedNavigation, isAllowedPermission, isAppUrl, pageIdentity, secureWebPreferences, withCspHeader } from './window-policy';

const here = path.dirname(fileURLToPath(import.meta.url));

let win: BrowserWindow | null = null;
let pipeline: VoicePipeline | null = null;
let engines: LoadedEngines | null = null;
let disposed = false;

const clock = new RealtimeClock();
const output = new RendererOutput(() => (win && !win.isDestroyed() ? win.webContents : null));

/** Events sent before the page has loaded are kept and delivered once it has. */
let pageLoaded = false;
const early: PipelineEvent[] = [];

function sendEvent(e: PipelineEvent): void {
  if (!pageLoaded) {
    early.push(e);
    return;
  }
  if (win && !win.isDestroyed()) win.webContents.send(IPC.pipelineEvent, e);
}

function messageOf(err: unknown, what: string): string {
  if (isUserError(err)) return err.message;
  console.error(err);
  return `${what}: ${err instanceof Error ? err.message : String(err)}`;
}

/** The page the window shows: a dev server (ELECTRON_RENDERER_URL, unpackaged only) or the built file. */
function rendererUrl(): string {
  const dev = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  if (dev && pageIdentity(dev)?.startsWith('http')) return dev;
  return pathToFileURL(path.join(app.getAppPath(), 'dist', 'renderer', 'index.html')).href;
}

function bundledModelsDir(): string {
  return app.isPackaged ? path.join(process.resourcesPath, 'models') : path.join(app.getAppPath(), 'native-models', 'bundled');
}

/** IPC is accepted only from our window's own page. */
function fromApp(e: IpcMainEvent | IpcMainInvokeEvent, appUrl: string): boolean {
  return win !== null && !win.isDestroyed() && e.sender === win.webContents && isAppUrl(e.senderFrame?.url, appUrl);
}

function secureSession(appUrl: string): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((contents, permission, callback, details) => {
    const mediaTypes = 'mediaTypes' in details ? details.mediaTypes : undefined;
    const ours = win !== null && !win.isDestroyed() && contents === win.webContents;
    callback(ours && isAllowedPermission(permission, details.requestingUrl, appUrl, { mediaTypes, isMainFrame: details.isMainFrame }));
  });
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    isAllowedPermission(permission, details.requestingUrl ?? requestingOrigin, appUrl, {
      mediaTypes: details.mediaType ? [details.mediaType] : undefined,
      isMainFrame: details.isMainFrame,
    }),
  );
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCspHeader(details.responseHeaders) }));
}

function createWindow(appUrl: string): BrowserWindow {
  const w = new BrowserWindow({
    width: 900,
    height: 700,
    title: 'Local Voice Assistant',
    show: false,
    webPreferences: secureWebPreferences(path.join(here, 'preload.cjs')),
  });
  w.once('ready-to-show', () => w.show());
  w.webContents.on('did-finish-load', () => {
    pageLoaded = true;
    for (const e of early.splice(0)) w.webContents.send(IPC.pipelineEvent, e);
  });
  w.on('closed', () => {
    win = null;
  });
  void w.loadURL(appUrl).catch((err: unknown) => console.error(`Could not load ${appUrl}:`, err));
  return w;
}

function registerIpc(appUrl: string, settings: SettingsStore, settingsLoaded: Promise<unknown>): void {
  let lastAudioError = '';
  ipcMain.on(IPC.micAudio, (e, frame: unknown) => {
    if (!fromApp(e, appUrl) || !pipeline) return;
    if (!(frame instanceof Float32Array) || frame.length === 0 || frame.length > MAX_MIC_FRAME_SAMPLES) return;
    try {
      void pipeline.pushAudio(frame);
    } catch (err) {
      // Reported once per distinct failure, not once per 20 ms frame.
      const message = messageOf(err, 'Audio processing failed');
      if (message !== lastAudioError) sendEvent({ type: 'error', t: clock.now(), message });
      lastAudioError = message;
    }
  });

  ipcMain.handle(IPC.settingsGet, async (e): Promise<Settings> => {
    if (!fromApp(e, appUrl)) throw new Error('settings:get refused: not the app page');
    await settingsLoaded;
    return settings.current;
  });

  ipcMain.handle(IPC.settingsUpdate, async (e, patch: unknown): Promise<SettingsUpdateResult> => {
    if (!fromApp(e, appUrl)) throw new Error('settings:update refused: not the app page');
    await settingsLoaded;
    try {
      return await settings.update(patch);
    } catch (err) {
      return { error: messageOf(err, 'Could not update the settings') };
    }
  });
}

async function startPipeline(settings: SettingsStore, settingsLoaded: Promise<{ notice?: string }>): Promise<void> {
  const { notice } = await settingsLoaded;
  if (notice) sendEvent({ type: 'notice', t: clock.now(), message: notice });
  const s = settings.current;
  const roots = searchOrder({ explicit: s.models.dir ?? undefined, user: defaultUserModelsDir(), bundled: bundledModelsDir() });
  try {
    engines = await loadEngines(
      () => settings.current,
      roots,
      (kind, phase, model) =>
        sendEvent({ type: 'notice', t: clock.now(), message: phase === 'loading' ? `Loading the ${kind} model…` : `Loaded ${model?.name ?? kind}.` }),
    );
  } catch (err) {
    // A missing or broken model is the user's to fix: say so in the window instead of crashing.
    sendEvent({ type: 'error', t: clock.now(), message: messageOf(err, 'Could not load the models') });
    return;
  }
  if (disposed) return;
  pipeline = new VoicePipeline(engines, output, clock, () => settings.current);
  pipeline.events.on(sendEvent);
  sendEvent({ type: 'state', t: clock.now(), state: 'listening' });
}

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });

  // Applies to every web contents, including any a bug might create: no navigation, popups or webviews.
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url)) event.preventDefault();
    });
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });

  app.on('window-all-closed', () => app.quit());

  app.on('will-quit', (event) => {
    if (disposed) return;
    disposed = true;
    if (!engines) return;
    event.preventDefault();
    void engines
      .dispose()
      .catch((err: unknown) => console.error('Could not release the models:', err))
      .finally(() => app.quit());
  });

  void app.whenReady().then(() => {
    const appUrl = rendererUrl();
    const settings = new SettingsStore(path.join(app.getPath('userData'), 'settings.json'));
    const settingsLoaded = settings.load();
    secureSession(appUrl);
    registerIpc(appUrl, settings, settingsLoaded);
    win = createWindow(appUrl);
    startPipeline(settings, settingsLoaded).catch((err: unknown) =>
      sendEvent({ type: 'error', t: clock.now(), message: messageOf(err, 'The assistant could not start') }),
    );
  });
}

main();
