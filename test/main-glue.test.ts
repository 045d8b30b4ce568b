/**
 * The main process's glue to Electron (electron/main.ts, electron/desktop/), run for real but on a
 * STAND-IN FOR ELECTRON: Electron itself is not installed here. The main process is built as
 * test/main-bundle.test.ts builds it (into a scratch folder under node_modules, so packages resolve
 * as from dist-electron/), and the built main.js runs in a child Node process in which the package
 * `electron` is test/stand-in-electron/electron.ts (built into the scratch folder's node_modules,
 * which shadows the real package). The stand-in records every call the glue makes, in order, and
 * lets this test be the app becoming ready, a second launch, the window's page (its load, its IPC,
 * its crashes) and the tray's Quit; a module hook beside it (import-watch.ts) says when the
 * controller chunk, and with it the native engines, is imported. The controller is the real one and
 * loads the test models of ../shared/models (settings.json in the user data folder points there).
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { APP_ID } from '../electron/desktop/identity';
import { IPC, type AppEvent, type Snapshot } from '../electron/ipc-contract';
import { APP_NAME as APP_DIR_NAME } from '../native-models/resolver';
import { buildMain } from '../scripts/build-electron.mjs';
import { MODELS_DIR, sleep } from './engine-fixtures';
import { ROOT, tempDir } from './helpers';
import { ENV, type Answer, type Call, type Command, type FromChild } from './stand-in-electron/protocol';

const OUT = path.join(ROOT, 'node_modules', '.cache', `lva-main-glue-${process.pid}`);
const STAND_IN = path.join(ROOT, 'test', 'stand-in-electron');

/** The stand-in for Electron, as the package `electron` in the scratch folder (it shadows the real one for main.js). */
async function buildStandIn(): Promise<void> {
  const dir = path.join(OUT, 'node_modules', 'electron');
  await build({
    entryPoints: { index: path.join(STAND_IN, 'electron.ts'), 'import-watch': path.join(STAND_IN, 'import-watch.ts') },
    outdir: dir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'electron', type: 'module', main: 'index.js' }));
}

/** The built main process in a child, on the stand-in; what it recorded, and commands to it. */
class StandInRun {
  readonly calls: Call[] = [];
  private readonly answers = new Map<number, Answer>();
  private readonly done = new Map<number, string | undefined>();
  private readonly wakers = new Set<() => void>();
  private nextId = 1;
  private output = '';
  exitCode: number | null | undefined = undefined;
  readonly exited: Promise<number | null>;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (m: FromChild) => {
      if (m.kind === 'call') this.calls.push(m);
      else if (m.kind === 'answer') this.answers.set(m.id, m);
      else this.done.set(m.id, m.error);
      this.wake();
    });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-6000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve((this.exitCode = code))));
    void this.exited.then(() => this.wake());
  }

  private wake(): void {
    for (const w of this.wakers) w();
  }

  /** What went on, for a failure's message: the last calls and the child's output. */
  story(): string {
    const calls = this.ordered()
      .slice(-40)
      .map((c) => `${c.seq} ${c.name} ${JSON.stringify(c.args).slice(0, 160)}`)
      .join('\n');
    return `\n--- last calls:\n${calls}\n--- child output:\n${this.output}`;
  }

  /** Resolves once `ready()` holds; fails after `ms`, or when the child exits first. */
  until(ready: () => boolean, ms: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (ready()) finish(null);
        else if (this.exitCode !== undefined) finish(`the child exited (${this.exitCode}) before ${what}`);
      };
      const timer = setTimeout(() => finish(`no ${what} within ${ms} ms`), ms);
      const finish = (failure: string | null) => {
        clearTimeout(timer);
        this.wakers.delete(check);
        if (failure === null) resolve();
        else reject(new Error(failure + this.story()));
      };
      this.wakers.add(check);
      check();
    });
  }

  /** Sends a command and waits until the stand-in has carried it out (its records arrive before). */
  async command(command: Command, ms = 10_000): Promise<void> {
    const id = this.nextId++;
    this.child.send({ ...command, id });
    await this.until(() => this.done.has(id), ms, `done for ${command.cmd}`);
    const error = this.done.get(id);
    if (error) throw new Error(`the stand-in could not carry out ${JSON.stringify(command)}: ${error}`);
  }

  ordered(): Call[] {
    return [...this.calls].sort((a, b) => a.seq - b.seq);
  }

  all(name: string, match: (c: Call) => boolean = () => true): Call[] {
    return this.ordered().filter((c) => c.name === name && match(c));
  }

  first(name: string, match?: (c: Call) => boolean): Call {
    const c = this.all(name, match)[0];
    assert.ok(c, `no call ${name}${this.story()}`);
    return c;
  }

  async waitCall(name: string, ms: number, match: (c: Call) => boolean = () => true): Promise<Call> {
    await this.until(() => this.calls.some((c) => c.name === name && match(c)), ms, name);
    return this.first(name, match);
  }

  async answer(invokeId: number, ms: number): Promise<Answer> {
    await this.until(() => this.answers.has(invokeId), ms, `the answer to invoke ${invokeId}`);
    return this.answers.get(invokeId)!;
  }

  /** The child's exit code, once it has exited (null: by a signal). */
  async exit(ms: number): Promise<number | null> {
    await this.until(() => this.exitCode !== undefined, ms, 'the exit');
    return this.exitCode ?? null;
  }

  /** Ends the child if it still runs. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** Starts the built main.js on the stand-in, with its user data and models folders in `tmp`. */
function launch(tmp: string, options: { env?: NodeJS.ProcessEnv; execArgv?: string[] } = {}): StandInRun {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // defaultUserDataDir() and defaultUserModelsDir() on Linux: app.setPath('userData') lands here.
    XDG_CONFIG_HOME: path.join(tmp, 'config'),
    XDG_DATA_HOME: path.join(tmp, 'data'),
    [ENV.appPath]: ROOT,
    [ENV.paths]: path.join(tmp, 'paths'),
    ...options.env,
  };
  for (const name of ['ELECTRON_RENDERER_URL', 'APPIMAGE', 'NODE_TEST_CONTEXT']) delete env[name];
  const child = fork(path.join(OUT, 'main.js'), [], {
    cwd: tmp,
    env,
    // Not the test runner's --import tsx: main.js is built JavaScript.
    execArgv: options.execArgv ?? [],
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  return new StandInRun(child);
}

const isAppEvent = (type: AppEvent['type']) => (c: Call) => c.args[0] === IPC.appEvent && (c.args[1] as AppEvent | undefined)?.type === type;
const statusOf = (c: Call) => (c.args[1] as Extract<AppEvent, { type: 'status' }>).status;
/** The page is told the models loaded, or could not. */
const modelsSettled = (c: Call) => isAppEvent('status')(c) && ['ready', 'error', 'setup'].includes(statusOf(c).phase);

/** The invoke the page makes while the engines import. */
const EARLY_SNAPSHOT = 1;

before(async () => {
  await buildMain(OUT);
  await buildStandIn();
});
after(() => rmSync(OUT, { recursive: true, force: true }));

describe('the main process glue, on a stand-in for Electron', () => {
  let tmp: string;
  let run: StandInRun;

  before(async () => {
    tmp = tempDir('lva-glue-');
    const userData = path.join(tmp, 'config', APP_DIR_NAME);
    mkdirSync(userData, { recursive: true });
    writeFileSync(path.join(userData, 'settings.json'), JSON.stringify({ models: { dir: MODELS_DIR }, llm: { threads: 1, maxTokens: 16 } }));
    run = launch(tmp);
    await run.waitCall('app.whenReady', 10_000);
    // As soon as the window starts loading (the engines are being imported then): the page asks for
    // the snapshot, and the app is launched a second time.
    await run.command({
      cmd: 'when',
      call: 'BrowserWindow.loadURL',
      then: [
        { cmd: 'invoke', channel: IPC.request, args: [{ type: 'get-snapshot' }], invokeId: EARLY_SNAPSHOT },
        { cmd: 'emit', target: 'app', event: 'second-instance', args: [[process.execPath, '.'], tmp, {}] },
      ],
    });
    await run.command({ cmd: 'ready' });
    await run.waitCall('import: evaluated', 60_000);
    await run.command({ cmd: 'emit', target: 'window', event: 'ready-to-show' });
    await run.command({ cmd: 'emit', target: 'webContents', event: 'did-finish-load' });
    // The models load on the main thread: the watchdog's timing is measured once they are in.
    await run.waitCall('webContents.send', 60_000, modelsSettled);
  });

  after(async () => {
    await run?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('before ready: the user data folder is set before the single-instance lock, the app:// scheme is registered, no Windows app id', () => {
    const userData = run.first('app.setPath', (c) => c.args[0] === 'userData');
    assert.equal(userData.args[1], path.join(tmp, 'config', APP_DIR_NAME));
    // The lock is kept in the user data folder: taken before it is set, it would be another folder's.
    assert.ok(userData.seq < run.first('app.requestSingleInstanceLock').seq);
    assert.ok(run.first('protocol.registerSchemesAsPrivileged').seq < run.first('test: ready').seq, 'Electron takes privileged schemes only before ready');
    assert.deepEqual(run.all('app.setAppUserModelId'), []);
  });

  it('puts up the tray icon and the window, the page loading, before it imports the controller chunk', () => {
    const imported = run.first('import: resolved');
    const ready = run.first('test: ready');
    for (const name of ['protocol.handle', 'session.setPermissionRequestHandler', 'ipcMain.handle', 'new Tray', 'new BrowserWindow', 'BrowserWindow.loadURL']) {
      const call = run.first(name);
      assert.ok(ready.seq < call.seq && call.seq < imported.seq, `${name} (#${call.seq}) after ready (#${ready.seq}) and before the controller chunk is imported (#${imported.seq})${run.story()}`);
    }
    assert.equal(run.first('BrowserWindow.loadURL').args[0], 'app://local/index.html');
    assert.ok(imported.seq < run.first('import: evaluated').seq);
  });

  it('answers a get-snapshot that the page sent while the engines were importing, once they are in', async () => {
    const asked = run.first(`test: invoke ${IPC.request}`);
    const evaluated = run.first('import: evaluated');
    assert.ok(asked.seq < evaluated.seq, `the request (#${asked.seq}) came only after the controller chunk was in (#${evaluated.seq}): nothing waited${run.story()}`);
    const answer = await run.answer(EARLY_SNAPSHOT, 30_000);
    assert.ok(answer.ok, `the request failed: ${answer.error}${run.story()}`);
    assert.ok(answer.seq > evaluated.seq);
    const snapshot = answer.value as Snapshot;
    assert.equal(typeof snapshot.status.phase, 'string');
    assert.ok(Array.isArray(snapshot.notices) && Array.isArray(snapshot.timers) && typeof snapshot.settings === 'object', JSON.stringify(snapshot).slice(0, 500));
    assert.equal(snapshot.settings.models.dir, MODELS_DIR, 'the settings read from settings.json, not the defaults');
  });

  it('shows the window when the app is launched again while the engines import', () => {
    const second = run.first('test: emit app second-instance');
    const evaluated = run.first('import: evaluated');
    assert.ok(second.seq < evaluated.seq, `the second launch (#${second.seq}) came only after the controller chunk was in (#${evaluated.seq})${run.story()}`);
    const during = (name: string) => run.all(name, (c) => c.seq > second.seq && c.seq < evaluated.seq);
    assert.equal(during('BrowserWindow.show').length, 1, `show() after the second launch${run.story()}`);
    assert.equal(during('BrowserWindow.focus').length, 1, `focus() after the second launch${run.story()}`);
    assert.equal(run.all('new BrowserWindow').length, 1, 'the one window is shown, no second one made');
  });

  it('asks the page to reopen its microphone 2 to 3 s after its frames stop', async () => {
    for (let i = 0; i < 10; i++) {
      await run.command({ cmd: 'send', channel: IPC.micAudio, args: [new Float32Array(320)] });
      await sleep(20);
    }
    const frames = run.all(`test: send ${IPC.micAudio}`);
    const last = frames.at(-1)!;
    assert.equal(run.all('webContents.send', (c) => isAppEvent('microphone-restart')(c) && c.seq < last.seq).length, 0, 'no restart while frames come');
    const restart = await run.waitCall('webContents.send', 4000, isAppEvent('microphone-restart'));
    const afterMs = restart.t - last.t;
    assert.ok(afterMs >= 2000 && afterMs <= 3000, `the restart came ${afterMs.toFixed(0)} ms after the last frame`);
  });

  it('reloads the page when its process crashes, and the third crash within a minute shows a dialog instead', async () => {
    const crash = async () => {
      await run.command({ cmd: 'emit', target: 'webContents', event: 'render-process-gone', args: [{ reason: 'crashed', exitCode: 139 }] });
      return run.all('test: emit webContents render-process-gone').at(-1)!.seq;
    };
    const reloadsAfter = (seq: number) => run.all('webContents.reload', (c) => c.seq > seq).length;
    const dialogsAfter = (seq: number) => run.all('dialog.showErrorBox', (c) => c.seq > seq);

    const first = await crash();
    assert.equal(reloadsAfter(first), 1, `a reload after the first crash${run.story()}`);
    await run.command({ cmd: 'emit', target: 'webContents', event: 'did-finish-load' });
    const second = await crash();
    assert.equal(reloadsAfter(second), 1, `a reload after the second crash${run.story()}`);
    await run.command({ cmd: 'emit', target: 'webContents', event: 'did-finish-load' });
    const third = await crash();
    assert.equal(reloadsAfter(third), 0, `no reload after the third crash${run.story()}`);
    assert.equal(dialogsAfter(third).length, 1, `a dialog after the third crash${run.story()}`);
    assert.deepEqual(dialogsAfter(first).map((c) => c.seq), dialogsAfter(third).map((c) => c.seq), 'no dialog for the first two');
  });

  it('loads the models it was pointed at, then the tray\'s Quit releases the shortcut, the tray and the models, and exits 0', async () => {
    const status = statusOf(run.first('webContents.send', modelsSettled));
    assert.equal(status.phase, 'ready', `${status.error}${run.story()}`);
    run.first('globalShortcut.register');

    await run.command({ cmd: 'quit' });
    assert.equal(await run.exit(10_000), 0, run.story());
    const quit = run.first('app.quit').seq;
    for (const name of ['globalShortcut.unregisterAll', 'Tray.destroy']) assert.ok(run.first(name).seq > quit, name);
    assert.deepEqual(run.all('app.exit'), [], `exited by app.exit: the models were not released in time${run.story()}`);
  });
});

describe('the main process glue on Windows (process.platform faked in the child), on a stand-in for Electron', () => {
  let tmp: string;
  let run: StandInRun;

  before(async () => {
    tmp = tempDir('lva-glue-win-');
    const fake = `data:text/javascript,${encodeURIComponent('Object.defineProperty(process, "platform", { value: "win32" });')}`;
    // The app is never made ready: nothing past main() runs, so no engine is loaded for the wrong OS.
    run = launch(tmp, { execArgv: ['--import', fake], env: { APPDATA: path.join(tmp, 'AppData') } });
    await run.waitCall('app.whenReady', 10_000);
  });

  after(async () => {
    await run?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('sets the app user model id (notifications need it) before taking the single-instance lock', () => {
    assert.equal(run.first('stand-in: loaded').args[0], 'win32');
    const id = run.first('app.setAppUserModelId');
    assert.equal(id.args[0], APP_ID);
    assert.ok(id.seq < run.first('app.requestSingleInstanceLock').seq);
    assert.equal(run.first('app.setPath', (c) => c.args[0] === 'userData').args[1], path.win32.join(tmp, 'AppData', APP_DIR_NAME));
    assert.deepEqual(run.all('import: resolved'), []);
  });
});
