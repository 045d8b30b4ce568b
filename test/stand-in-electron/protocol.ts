/**
 * What test/main-glue.test.ts and its stand-in for Electron (electron.ts beside this file, run in
 * the child process as the package `electron`) say to each other over the child's IPC channel
 * (fork with `serialization: 'advanced'`, so typed arrays pass as they are).
 */

/** One thing that happened in the child, numbered in the order it happened (`seq`, from 1). */
export interface Call {
  kind: 'call';
  seq: number;
  /** performance.now() in the child when it happened (the import watcher's: when its report arrived). */
  t: number;
  /** 'app.setPath', 'new BrowserWindow', 'webContents.send', 'test: emit app second-instance', 'import: resolved'... */
  name: string;
  /** The arguments as data: functions become '[function]', the stand-in's objects their label ('BrowserWindow#1'). */
  args: unknown[];
}

/** A command from the test was carried out (its records were sent before this). */
export interface Done {
  kind: 'done';
  id: number;
  /** Why it could not be carried out (no window to emit on...). */
  error?: string;
}

/** The answer to an `invoke`: what the ipcMain.handle handler returned, or why it threw. */
export interface Answer {
  kind: 'answer';
  /** The invoke's `invokeId`. */
  id: number;
  seq: number;
  t: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

export type FromChild = Call | Done | Answer;

/** Which emitter an `emit` goes to: the app, the last window (or window `id`), its web contents, the tray, powerMonitor. */
export type EmitTarget = 'app' | 'window' | 'webContents' | 'tray' | 'powerMonitor';

/** What the test asks of the stand-in (every command but `exit` is answered with Done). */
export type Command =
  /** app.whenReady() resolves and 'ready' is emitted. */
  | { cmd: 'ready' }
  /** Emits `event` with `args` on `target` (for webContents, 'did-finish-load' also ends the load). */
  | { cmd: 'emit'; target: EmitTarget; event: string; args?: unknown[]; window?: number }
  /** The window's page calls ipcRenderer.send(channel, ...args). */
  | { cmd: 'send'; channel: string; args: unknown[] }
  /** The window's page calls ipcRenderer.invoke(channel, ...args); the answer comes as Answer with this id. */
  | { cmd: 'invoke'; channel: string; args: unknown[]; invokeId: number }
  /** The first time a call named `call` is recorded, `then` is carried out (on the next turn of the event loop). */
  | { cmd: 'when'; call: string; then: Command[] }
  /** app.quit() as the tray's Quit does it. */
  | { cmd: 'quit' }
  /** Ends the child at once. */
  | { cmd: 'exit'; code: number };

export type ToChild = Command & { id: number };

/** Environment variables the stand-in reads. */
export const ENV = {
  /** app.getAppPath(): the project root. */
  appPath: 'LVA_STAND_IN_APP_PATH',
  /** The folder app.getPath() answers under (every name but one set with app.setPath). */
  paths: 'LVA_STAND_IN_PATHS',
} as const;

/** The controller chunk of the build, as the import watcher recognizes its URL. */
export const CONTROLLER_CHUNK = /\/controller-\w+\.js$/;

/** Where the stand-in's marker function hangs, for the line the import watcher appends to the controller chunk. */
export const MARKER_KEY = 'lva.stand-in-electron';
