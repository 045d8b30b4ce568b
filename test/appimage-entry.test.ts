/** The AppImage's desktop entry (for the Wayland shortcut portal), written into temporary folders. */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { appImageEntryText, decideAppImageEntry, syncAppImageEntry } from '../electron/desktop/appimage-entry';
import { APP_ID, DESKTOP_NAME } from '../electron/desktop/identity';
import { ROOT, tempDir } from './helpers';

const NAME = 'dev.localvoice.assistant.desktop';

function setup() {
  const root = tempDir('lva-appimage-');
  const env = { XDG_DATA_HOME: path.join(root, 'home-share'), XDG_DATA_DIRS: path.join(root, 'usr-share') };
  const user = path.join(env.XDG_DATA_HOME, 'applications', NAME);
  const system = path.join(env.XDG_DATA_DIRS, 'applications', NAME);
  const sync = (appImage: string) => syncAppImageEntry({ appImage, desktopName: NAME, name: 'Local Voice Assistant', env, home: root });
  return { root, env, user, system, sync };
}

describe('the AppImage desktop entry', () => {
  it('is written under the desktopName, pointing at the AppImage, with the window class the portal matches', async () => {
    const s = setup();
    assert.equal(await s.sync('/home/me/Apps/Local Voice Assistant-1.0.AppImage'), 'write');
    const text = readFileSync(s.user, 'utf8');
    assert.match(text, /^\[Desktop Entry\]\n/);
    assert.match(text, /^Exec="\/home\/me\/Apps\/Local Voice Assistant-1\.0\.AppImage"$/m);
    assert.match(text, /^StartupWMClass=dev\.localvoice\.assistant$/m);
    assert.equal(await s.sync('/home/me/Apps/Local Voice Assistant-1.0.AppImage'), 'keep', 'a second start changes nothing');
    assert.equal(await s.sync('/home/me/Apps/Local Voice Assistant-1.1.AppImage'), 'write', 'a moved or newer AppImage is followed');
    assert.match(readFileSync(s.user, 'utf8'), /1\.1\.AppImage/);
  });

  it('never touches an entry the user or a package made, and writes none when the deb installed one', async () => {
    const s = setup();
    mkdirSync(path.dirname(s.system), { recursive: true });
    writeFileSync(s.system, '[Desktop Entry]\nExec=/opt/Local Voice Assistant/local-voice-assistant\n');
    assert.equal(await s.sync('/tmp/a.AppImage'), 'leave');
    mkdirSync(path.dirname(s.user), { recursive: true });
    writeFileSync(s.user, '[Desktop Entry]\nExec=/my/own/launcher\n');
    assert.equal(await s.sync('/tmp/a.AppImage'), 'leave');
    assert.equal(readFileSync(s.user, 'utf8'), '[Desktop Entry]\nExec=/my/own/launcher\n');
  });

  it('quotes the path as the desktop entry spec asks', () => {
    assert.match(appImageEntryText('/a/b"c$d`e\\f.AppImage', 'X', 'x'), /^Exec="\/a\/b\\"c\\\$d\\`e\\\\f\.AppImage"$/m);
  });

  it('the decision alone', () => {
    const wanted = appImageEntryText('/a.AppImage', 'X', 'x');
    assert.equal(decideAppImageEntry(null, false, wanted), 'write');
    assert.equal(decideAppImageEntry(null, true, wanted), 'leave');
    assert.equal(decideAppImageEntry(wanted, true, wanted), 'keep');
    assert.equal(decideAppImageEntry(appImageEntryText('/old.AppImage', 'X', 'x'), false, wanted), 'write');
  });
});

describe('the app identity', () => {
  it('is the same in the code, electron-builder.yml (appId) and package.json (desktopName)', () => {
    const yml = readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8');
    assert.equal(/^appId:\s*(\S+)$/m.exec(yml)?.[1], APP_ID);
    assert.equal(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).desktopName, DESKTOP_NAME);
  });
});
