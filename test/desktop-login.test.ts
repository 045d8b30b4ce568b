/**
 * Start at login: what is launched, the Linux autostart entry (its text, quoting per the Desktop
 * Entry spec, the folder, writing and removing it in a temporary XDG_CONFIG_HOME), and Electron's
 * login-item API on macOS and Windows with a stand-in.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  applyStartAtLogin,
  autostartDir,
  autostartEntry,
  execArgument,
  launchCommand,
  loginItemOutcome,
  loginItemSettings,
  writeAutostartEntry,
  type LoginItemApi,
  type LoginItemState,
  type StartAtLoginContext,
} from '../electron/desktop/login-item';
import { tempDir } from './helpers';

describe('what starts at login', () => {
  it('the AppImage when running from one, else the executable; unpackaged, with the app folder', () => {
    assert.deepEqual(launchCommand({ execPath: '/tmp/.mount_LVA/lva', appImage: '/home/u/Apps/LVA.AppImage', packaged: true, appPath: '/x' }), { path: '/home/u/Apps/LVA.AppImage', args: [] });
    assert.deepEqual(launchCommand({ execPath: '/opt/LVA/lva', appImage: undefined, packaged: true, appPath: '/x' }), { path: '/opt/LVA/lva', args: [] });
    assert.deepEqual(launchCommand({ execPath: '/r/node_modules/electron/dist/electron', appImage: '', packaged: false, appPath: '/r' }), {
      path: '/r/node_modules/electron/dist/electron',
      args: ['/r'],
    });
  });
});

describe('the XDG autostart entry', () => {
  it('quotes Exec arguments per the Desktop Entry spec', () => {
    assert.equal(execArgument('/opt/lva/lva'), '/opt/lva/lva');
    assert.equal(execArgument('/opt/Local Voice Assistant/lva'), '"/opt/Local Voice Assistant/lva"');
    assert.equal(execArgument('/a/$HOME`x`/"q"\\b'), '"/a/\\$HOME\\`x\\`/\\"q\\"\\\\b"');
    assert.equal(execArgument('/a/100%/b'), '/a/100%%/b');
    assert.equal(execArgument("/a/it's"), '"/a/it\'s"');
    assert.equal(execArgument(''), '""');
  });

  it('holds the launch command, Hidden=false and the GNOME switch', () => {
    const text = autostartEntry({ name: 'Local Voice Assistant', launch: { path: '/opt/Local Voice Assistant/local-voice-assistant', args: [] } });
    assert.equal(
      text,
      [
        '[Desktop Entry]',
        'Type=Application',
        'Version=1.5',
        'Name=Local Voice Assistant',
        'Comment=Starts Local Voice Assistant when you log in',
        'Exec="/opt/Local Voice Assistant/local-voice-assistant"',
        'Terminal=false',
        'Hidden=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n'),
    );
  });

  it('escapes a backslash again as a key file string (so a quoted one becomes four)', () => {
    const text = autostartEntry({ name: 'LVA', launch: { path: '/a\\b', args: ['/app dir'] } });
    assert.match(text, /^Exec="\/a\\\\\\\\b" "\/app dir"$/m);
  });

  it('goes in $XDG_CONFIG_HOME/autostart, or ~/.config/autostart (a relative XDG_CONFIG_HOME is ignored)', () => {
    assert.equal(autostartDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/u'), path.join('/cfg', 'autostart'));
    assert.equal(autostartDir({}, '/home/u'), path.join('/home/u', '.config', 'autostart'));
    assert.equal(autostartDir({ XDG_CONFIG_HOME: 'rel/cfg' }, '/home/u'), path.join('/home/u', '.config', 'autostart'));
    assert.equal(autostartDir({ XDG_CONFIG_HOME: '' }, '/home/u'), path.join('/home/u', '.config', 'autostart'));
  });

  it('is written (creating the folder) and removed; removing one that is not there is fine', async () => {
    const config = tempDir('lva-xdg-');
    const dir = autostartDir({ XDG_CONFIG_HOME: config }, '/nonexistent');
    const file = path.join(dir, 'local-voice-assistant.desktop');
    const c = linuxContext(dir);
    assert.equal(await applyStartAtLogin(true, c), null);
    assert.equal(readFileSync(file, 'utf8'), autostartEntry({ name: c.name, launch: c.launch }));
    assert.equal(await applyStartAtLogin(false, c), null);
    assert.equal(existsSync(file), false);
    assert.equal(await applyStartAtLogin(false, c), null);
    assert.equal(c.loginItems.getLoginItemSettings().openAtLogin, false, 'Electron’s login items are not used on Linux');
  });

  it('a folder that cannot be written is reported in one sentence', async () => {
    const root = tempDir('lva-xdg-');
    // A file where the folder should be: mkdir fails, whatever the user's rights.
    writeFileSync(path.join(root, 'autostart'), 'not a folder');
    const message = await applyStartAtLogin(true, linuxContext(path.join(root, 'autostart')));
    assert.match(message!, /^Could not write .*local-voice-assistant\.desktop \(.+\), so start at login was not turned on\.$/);
    mkdirSync(path.join(root, 'other'));
    assert.equal(await writeAutostartEntry(path.join(root, 'other'), 'x.desktop', null), null);
  });
});

/** app's login items as the OS keeps them; `status` is what macOS reports after a change. */
function fakeLoginItems(after: Partial<LoginItemState> = {}) {
  const calls: unknown[] = [];
  let open = false;
  const api: LoginItemApi = {
    setLoginItemSettings(settings) {
      calls.push(settings);
      open = settings.openAtLogin ?? false;
    },
    getLoginItemSettings: () => ({ openAtLogin: open, ...after }),
  };
  return { api, calls };
}

function linuxContext(dir: string): StartAtLoginContext {
  return { platform: 'linux', name: 'Local Voice Assistant', id: 'local-voice-assistant', launch: { path: '/opt/lva/lva', args: [] }, loginItems: fakeLoginItems().api, autostartDir: dir };
}

describe('macOS and Windows: Electronʼs login items', () => {
  const launch = { path: 'C:\\Program Files\\LVA\\LVA.exe', args: ['C:\\src\\app'] };

  it('Windows gets the executable and its arguments, quoted; macOS only the switch', () => {
    assert.deepEqual(loginItemSettings('win32', true, launch), { openAtLogin: true, path: launch.path, args: ['"C:\\src\\app"'] });
    assert.deepEqual(loginItemSettings('darwin', true, launch), { openAtLogin: true });
  });

  it('applies the setting and reads it back', async () => {
    for (const platform of ['win32', 'darwin'] as const) {
      const items = fakeLoginItems();
      const c: StartAtLoginContext = { platform, name: 'LVA', id: 'lva', launch, loginItems: items.api, autostartDir: '/unused' };
      assert.equal(await applyStartAtLogin(true, c), null);
      assert.equal(await applyStartAtLogin(false, c), null);
      assert.deepEqual(items.calls.map((s) => (s as { openAtLogin: boolean }).openAtLogin), [true, false]);
    }
  });

  it('macOS asking for approval, or a change that did not take, is said plainly', async () => {
    const approval = fakeLoginItems({ status: 'requires-approval' });
    const c: StartAtLoginContext = { platform: 'darwin', name: 'LVA', id: 'lva', launch, loginItems: approval.api, autostartDir: '/unused' };
    assert.equal(await applyStartAtLogin(true, c), 'macOS needs your approval to start LVA at login: allow it in System Settings > General > Login Items.');
    assert.equal(loginItemOutcome('win32', true, { openAtLogin: false }, 'LVA'), 'The system did not add LVA to the apps that start at login; add it in Settings > Apps > Startup.');
    assert.equal(loginItemOutcome('darwin', false, { openAtLogin: true }, 'LVA'), 'The system still starts LVA at login; remove it in System Settings > General > Login Items.');
    const throwing: LoginItemApi = {
      setLoginItemSettings: () => {
        throw new Error('denied');
      },
      getLoginItemSettings: () => ({ openAtLogin: false }),
    };
    assert.equal(await applyStartAtLogin(true, { ...c, loginItems: throwing }), 'Could not change start at login (denied).');
  });
});
