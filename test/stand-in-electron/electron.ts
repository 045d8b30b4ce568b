/**
 * A STAND-IN FOR ELECTRON, for test/main-glue.test.ts only: the built main process (main.js) runs
 * in a plain Node child where the package `electron` is this file (built into the test's scratch
 * folder as node_modules/electron). It is not Electron and does nothing Electron does; it records,
 * in order, every call the main process's glue makes (app, protocol, session, ipcMain, Tray,
 * BrowserWindow, webContents, Notification, dialog, powerMonitor, globalShortcut...) and sends each
 * to the test, and it carries out the test's commands (protocol.ts): the app becoming ready, events
 * on the app, the window and its page, the page's IPC messages and requests, quitting.
 *
 * Only what the main process calls is here, with Electron's names; a call it lacks fails loudly.
 * It also installs import-watch.ts, which reports when the controller chunk is imported.
 */
import { EventEmitter } from 'node:events';
import { register } from 'node:module';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import type { WatchData } from './import-watch';
import { ENV, MARKER_KEY, type Command, type EmitTarget, type FromChild, type ToChild } from './protocol';

type Listener = (...args: any[]) => void;

// ---------------------------------------------------------------------------
// The record: every call numbered, in one sequence with the import watcher's reports.

const counter = new Int32Array(new SharedArrayBuffer(4));
const nextSeq = (): number => Atomics.add(counter, 0, 1) + 1;

function post(message: FromChild, then?: () => void): void {
  if (!process.send) throw new Error('The stand-in for Electron runs only in a child process with an IPC channel (see test/main-glue.test.ts).');
  process.send(message, undefined, {}, then ? () => then() : undefined);
}

/** The stand-in's objects, as records name them ('BrowserWindow#1'). */
const labels = new WeakMap<object, string>();

/** A value as data the IPC channel can carry. */
function toData(value: unknown, depth = 0): unknown {
  if (typeof value === 'function') return '[function]';
  if (typeof value === 'symbol') return String(value);
  if (value === null || typeof value !== 'object') return value;
  const label = labels.get(value);
  if (label) return label;
  if (ArrayBuffer.isView(value)) return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (depth > 8) return '[deep]';
  if (Array.isArray(value)) return value.map((v) => toData(v, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toData(v, depth + 1)]));
  return `[${(proto as { constructor?: { name?: string } }).constructor?.name ?? 'object'}]`;
}

/** Commands to carry out the first time a call of that name is recorded (the `when` command). */
const whens = new Map<string, Command[]>();

function record(name: string, ...args: unknown[]): number {
  const seq = nextSeq();
  post({ kind: 'call', seq, t: performance.now(), name, args: args.map((a) => toData(a)) });
  const then = whens.get(name);
  if (then) {
    whens.delete(name);
    setImmediate(() => {
      for (const c of then) {
        try {
          carryOut(c);
        } catch (err) {
          record('stand-in: could not carry out', c, err);
        }
      }
    });
  }
  return seq;
}

let exiting = false;
/** Ends the child once everything recorded has reached the test. */
function exitNow(code: number): void {
  if (exiting) return;
  exiting = true;
  post({ kind: 'call', seq: nextSeq(), t: performance.now(), name: 'process exit', args: [code] }, () => process.exit(code));
}

/** An Electron event: the first argument of most of its events' listeners. */
function electronEvent(): { preventDefault(): void; defaultPrevented: boolean } {
  const e = {
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

/** An emitter whose on/once registrations are recorded as `<prefix>.on`. */
class Recorded extends EventEmitter {
  constructor(private readonly prefix: string) {
    super();
  }
  override on(event: string | symbol, listener: Listener): this {
    record(`${this.prefix}.on`, event);
    return super.on(event, listener);
  }
  override once(event: string | symbol, listener: Listener): this {
    record(`${this.prefix}.once`, event);
    return super.once(event, listener);
  }
}

// ---------------------------------------------------------------------------
// app

const standInRoot = process.env[ENV.paths] ?? path.join(process.cwd(), 'stand-in-paths');

class StandInApp extends Recorded {
  readonly isPackaged = false;
  private readonly paths = new Map<string, string>();
  private ready = false;
  private readonly readyPromise: Promise<void>;
  private becomeReady: () => void = () => undefined;

  constructor() {
    super('app');
    this.readyPromise = new Promise((resolve) => (this.becomeReady = resolve));
  }

  setPath(name: string, value: string): void {
    record('app.setPath', name, value);
    this.paths.set(name, value);
  }
  getPath(name: string): string {
    record('app.getPath', name);
    return this.paths.get(name) ?? path.join(standInRoot, name);
  }
  getAppPath(): string {
    return process.env[ENV.appPath] ?? process.cwd();
  }
  getVersion(): string {
    record('app.getVersion');
    return '0.0.0-stand-in';
  }
  getName(): string {
    return 'local-voice-assistant';
  }
  setAppUserModelId(id: string): void {
    record('app.setAppUserModelId', id);
  }
  requestSingleInstanceLock(): boolean {
    record('app.requestSingleInstanceLock');
    return true;
  }
  isReady(): boolean {
    return this.ready;
  }
  whenReady(): Promise<void> {
    record('app.whenReady');
    return this.readyPromise;
  }
  setLoginItemSettings(settings: unknown): void {
    record('app.setLoginItemSettings', settings);
  }
  getLoginItemSettings(options?: unknown): { openAtLogin: boolean } {
    record('app.getLoginItemSettings', options);
    return { openAtLogin: false };
  }
  /** The test says so: whenReady resolves and 'ready' is emitted. */
  makeReady(): void {
    this.ready = true;
    this.becomeReady();
    this.emit('ready', electronEvent(), {});
  }
  quit(): void {
    record('app.quit');
    setImmediate(() => this.quitNow());
  }
  exit(code = 0): void {
    record('app.exit', code);
    exitNow(code);
  }
  /** Electron's order: before-quit, the windows closed, will-quit, quit; either event can stop it. */
  private quitNow(): void {
    if (exiting) return;
    const before = electronEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    for (const w of windows) if (!w.isDestroyed()) w.close();
    if (windows.some((w) => !w.isDestroyed())) return;
    const willQuit = electronEvent();
    this.emit('will-quit', willQuit);
    if (willQuit.defaultPrevented) return;
    this.emit('quit', electronEvent(), 0);
    exitNow(0);
  }
}

export const app = new StandInApp();

// ---------------------------------------------------------------------------
// BrowserWindow and its web contents

type IpcEvent = { sender: WebContents; senderFrame: { url: string }; processId: number; frameId: number; reply(): void };

class WebContents extends Recorded {
  private url = '';
  private loading = false;
  private loaded: Array<() => void> = [];

  constructor(readonly id: number) {
    super('webContents');
    labels.set(this, `WebContents#${id}`);
  }
  getURL(): string {
    return this.url;
  }
  isLoading(): boolean {
    return this.loading;
  }
  isDestroyed(): boolean {
    return false;
  }
  isCrashed(): boolean {
    return false;
  }
  send(channel: string, ...args: unknown[]): void {
    record('webContents.send', channel, ...args);
  }
  reload(): void {
    record('webContents.reload');
    this.startLoading();
  }
  setWindowOpenHandler(_handler: unknown): void {
    record('webContents.setWindowOpenHandler');
  }
  /** loadURL: Electron starts the load and reports it a moment later; it ends when the test says the page loaded. */
  load(url: string): Promise<void> {
    this.url = url;
    this.startLoading();
    return new Promise((resolve) => this.loaded.push(resolve));
  }
  finishLoad(): void {
    this.loading = false;
    this.emit('did-finish-load', electronEvent());
    for (const resolve of this.loaded.splice(0)) resolve();
  }
  /** An event as the page's IPC messages carry it: from this contents, its main frame at the loaded URL. */
  ipcEvent(): IpcEvent {
    return { sender: this, senderFrame: { url: this.url }, processId: this.id, frameId: 1, reply: () => undefined };
  }
  private startLoading(): void {
    this.loading = true;
    setImmediate(() => this.emit('did-start-loading', electronEvent()));
  }
}

const windows: BrowserWindow[] = [];

export class BrowserWindow extends Recorded {
  readonly id: number;
  readonly webContents: WebContents;
  private destroyed = false;
  private visible = false;
  private minimized = false;
  private fullScreen = false;

  constructor(options: unknown) {
    super('BrowserWindow');
    this.id = windows.length + 1;
    labels.set(this, `BrowserWindow#${this.id}`);
    record('new BrowserWindow', options);
    this.webContents = new WebContents(this.id);
    windows.push(this);
    app.emit('web-contents-created', electronEvent(), this.webContents);
  }
  loadURL(url: string): Promise<void> {
    record('BrowserWindow.loadURL', url);
    return this.webContents.load(url);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isFullScreen(): boolean {
    return this.fullScreen;
  }
  setFullScreen(on: boolean): void {
    record('BrowserWindow.setFullScreen', on);
    this.fullScreen = on;
    if (!on) setImmediate(() => this.emit('leave-full-screen', electronEvent()));
  }
  show(): void {
    record('BrowserWindow.show', this);
    this.visible = true;
  }
  hide(): void {
    record('BrowserWindow.hide', this);
    this.visible = false;
  }
  focus(): void {
    record('BrowserWindow.focus', this);
  }
  restore(): void {
    record('BrowserWindow.restore', this);
    this.minimized = false;
  }
  /** Its close button, or app.quit(): 'close' may be prevented (hidden to the tray instead). */
  close(): void {
    record('BrowserWindow.close', this);
    const e = electronEvent();
    this.emit('close', e);
    if (!e.defaultPrevented) this.destroy();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.emit('closed');
  }
}

// ---------------------------------------------------------------------------
// IPC

class IpcMain extends Recorded {
  private readonly handlers = new Map<string, (e: IpcEvent, ...args: unknown[]) => unknown>();
  constructor() {
    super('ipcMain');
  }
  handle(channel: string, handler: (e: IpcEvent, ...args: unknown[]) => unknown): void {
    record('ipcMain.handle', channel);
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    record('ipcMain.removeHandler', channel);
    this.handlers.delete(channel);
  }
  /** ipcRenderer.invoke from the page: Electron rejects a channel with no handler. */
  async invoke(contents: WebContents, channel: string, args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(contents.ipcEvent(), ...args);
  }
}

export const ipcMain = new IpcMain();

// ---------------------------------------------------------------------------
// The tray, menus, images

class NativeImage {
  private readonly representations: unknown[] = [];
  constructor() {
    labels.set(this, 'NativeImage');
  }
  addRepresentation(options: { scaleFactor: number; width: number; height: number }): void {
    this.representations.push({ scaleFactor: options.scaleFactor, width: options.width, height: options.height });
  }
  setTemplateImage(_on: boolean): void {}
  isEmpty(): boolean {
    return this.representations.length === 0;
  }
}

export const nativeImage = { createEmpty: () => new NativeImage() };

type MenuItem = { label?: string; type?: string; checked?: boolean; enabled?: boolean; click?: () => void };

class StandInMenu {
  constructor(readonly items: MenuItem[]) {}
}

export const Menu = { buildFromTemplate: (template: MenuItem[]) => new StandInMenu(template) };

let trays = 0;
let lastTray: Tray | null = null;

export class Tray extends Recorded {
  private destroyed = false;
  constructor(image: unknown) {
    super('Tray');
    labels.set(this, `Tray#${++trays}`);
    record('new Tray', image);
    lastTray = this;
  }
  setImage(image: unknown): void {
    record('Tray.setImage', image);
  }
  setToolTip(text: string): void {
    record('Tray.setToolTip', text);
  }
  setContextMenu(menu: StandInMenu): void {
    record('Tray.setContextMenu', menu.items.map(({ label, type, checked, enabled }) => ({ label, type, checked, enabled })));
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    record('Tray.destroy');
    this.destroyed = true;
  }
}

// ---------------------------------------------------------------------------
// Notifications, dialogs, the system

export class Notification extends Recorded {
  static isSupported(): boolean {
    return true;
  }
  constructor(options: unknown) {
    super('Notification');
    labels.set(this, 'Notification');
    record('new Notification', options);
  }
  show(): void {
    record('Notification.show');
  }
}

export const dialog = {
  showErrorBox: (title: string, content: string): void => void record('dialog.showErrorBox', title, content),
  showMessageBox: (options: unknown): Promise<{ response: number; checkboxChecked: boolean }> => {
    record('dialog.showMessageBox', options);
    return Promise.resolve({ response: 0, checkboxChecked: false });
  },
};

class StandInPowerMonitor extends Recorded {
  constructor() {
    super('powerMonitor');
  }
}

export const powerMonitor = new StandInPowerMonitor();

export const globalShortcut = {
  register: (accelerator: string, _callback: () => void): boolean => (record('globalShortcut.register', accelerator), true),
  unregister: (accelerator: string): void => void record('globalShortcut.unregister', accelerator),
  unregisterAll: (): void => void record('globalShortcut.unregisterAll'),
  isRegistered: (_accelerator: string): boolean => false,
};

export const systemPreferences = {
  getMediaAccessStatus: (mediaType: string): string => (record('systemPreferences.getMediaAccessStatus', mediaType), 'granted'),
  askForMediaAccess: (mediaType: string): Promise<boolean> => (record('systemPreferences.askForMediaAccess', mediaType), Promise.resolve(true)),
};

export const protocol = {
  registerSchemesAsPrivileged: (schemes: unknown): void => void record('protocol.registerSchemesAsPrivileged', schemes),
  handle: (scheme: string, _handler: unknown): void => void record('protocol.handle', scheme),
  unhandle: (scheme: string): void => void record('protocol.unhandle', scheme),
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (_handler: unknown): void => void record('session.setPermissionRequestHandler'),
    setPermissionCheckHandler: (_handler: unknown): void => void record('session.setPermissionCheckHandler'),
    setDevicePermissionHandler: (_handler: unknown): void => void record('session.setDevicePermissionHandler'),
    webRequest: { onHeadersReceived: (_listener: unknown): void => void record('session.webRequest.onHeadersReceived') },
  },
};

/** The read_clipboard tool's source in the app. */
export const clipboard = {
  readText: (): string => (record('clipboard.readText'), ''),
};

/** The open tool's handler in the app: recorded, nothing opened. */
export const shell = {
  openExternal: async (url: string): Promise<void> => void record('shell.openExternal', url),
  openPath: async (file: string): Promise<string> => (record('shell.openPath', file), ''),
};

export const net = {
  fetch: (url: string, init?: RequestInit): Promise<Response> => (record('net.fetch', url), fetch(url, init)),
};

/** No keyring here: the API key store says so rather than encrypt. */
export const safeStorage = {
  isEncryptionAvailable: (): boolean => false,
  isAsyncEncryptionAvailable: (): Promise<boolean> => Promise.resolve(false),
  getSelectedStorageBackend: (): string => 'basic_text',
  encryptStringAsync: (_text: string): Promise<Buffer> => Promise.reject(new Error('the stand-in for Electron has no keyring')),
  decryptStringAsync: (_data: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }> => Promise.reject(new Error('the stand-in for Electron has no keyring')),
};

// ---------------------------------------------------------------------------
// The test's commands

function lastWindow(id?: number): BrowserWindow {
  const w = id === undefined ? windows.at(-1) : windows[id - 1];
  if (!w) throw new Error(id === undefined ? 'no window has been created' : `no window ${id}`);
  return w;
}

function emitter(target: EmitTarget, window?: number): EventEmitter {
  switch (target) {
    case 'app':
      return app;
    case 'window':
      return lastWindow(window);
    case 'webContents':
      return lastWindow(window).webContents;
    case 'powerMonitor':
      return powerMonitor;
    case 'tray':
      if (!lastTray) throw new Error('no tray icon has been created');
      return lastTray;
  }
}

function carryOut(command: Command): void {
  switch (command.cmd) {
    case 'ready':
      record('test: ready');
      app.makeReady();
      return;
    case 'emit': {
      record(`test: emit ${command.target} ${command.event}`, ...(command.args ?? []));
      const target = emitter(command.target, command.window);
      if (target instanceof WebContents && command.event === 'did-finish-load') target.finishLoad();
      else target.emit(command.event, electronEvent(), ...(command.args ?? []));
      return;
    }
    case 'send': {
      const contents = lastWindow().webContents;
      record(`test: send ${command.channel}`);
      ipcMain.emit(command.channel, contents.ipcEvent(), ...command.args);
      return;
    }
    case 'invoke': {
      const { invokeId, channel } = command;
      record(`test: invoke ${channel}`, ...command.args);
      const answer = (ok: boolean, rest: { value?: unknown; error?: string }) => post({ kind: 'answer', id: invokeId, seq: nextSeq(), t: performance.now(), ok, ...rest });
      ipcMain.invoke(lastWindow().webContents, channel, command.args).then(
        (value) => answer(true, { value: toData(value) }),
        (err: unknown) => answer(false, { error: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    case 'when':
      whens.set(command.call, command.then);
      return;
    case 'quit':
      app.quit();
      return;
    case 'exit':
      exitNow(command.code);
      return;
  }
}

process.on('message', (message: ToChild) => {
  let error: string | undefined;
  try {
    carryOut(message);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (message.cmd !== 'exit') post({ kind: 'done', id: message.id, error });
});
// The test went away: so does the app.
process.on('disconnect', () => process.exit(1));

// ---------------------------------------------------------------------------
// The import watcher (import-watch.ts, built beside this file)

// 'import: resolved' is numbered when the hooks thread sees the import, a moment after main.js calls import().
const { port1, port2 } = new MessageChannel();
port1.on('message', (m: { seq: number; url: string }) => post({ kind: 'call', seq: m.seq, t: performance.now(), name: 'import: resolved', args: [m.url] }));
port1.unref();
register<WatchData>(new URL('./import-watch.js', import.meta.url), { data: { counter: counter.buffer as SharedArrayBuffer, port: port2 }, transferList: [port2] });
(globalThis as Record<symbol, unknown>)[Symbol.for(MARKER_KEY)] = (url: string) => record('import: evaluated', url);

record('stand-in: loaded', process.platform);
