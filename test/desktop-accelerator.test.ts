/**
 * The global shortcut's decisions: parsing and checking accelerators, their labels per platform,
 * the warning for shortcuts the system already uses, the settings leaf, and the binding over
 * globalShortcut (with a stand-in: a taken shortcut is reported and the previous one stays).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceleratorLabel, checkShortcutSetting, parseAccelerator } from '../electron/settings/accelerator';
import { shortcutConflict } from '../electron/desktop/known-shortcuts';
import { GlobalShortcutBinding, shortcutTakenMessage, type GlobalShortcutApi } from '../electron/desktop/shortcut';
import { DEFAULT_SETTINGS, validateSettings } from '../electron/settings/schema';

function ok(text: string, platform: string): { accelerator: string; label: string } {
  const r = parseAccelerator(text, platform);
  assert.ok(r.ok, `${text} on ${platform}: ${r.ok ? '' : r.error}`);
  return { accelerator: r.accelerator, label: r.label };
}

function error(text: string, platform = 'linux'): string {
  const r = parseAccelerator(text, platform);
  assert.ok(!r.ok, `${text} on ${platform} should be refused, got ${JSON.stringify(r)}`);
  return r.error;
}

describe('parseAccelerator', () => {
  it('the default is Ctrl+Alt+Space on Windows and Linux, ⌥⌘Space on macOS', () => {
    assert.deepEqual(ok(DEFAULT_SETTINGS.desktop.shortcut, 'win32'), { accelerator: 'CommandOrControl+Alt+Space', label: 'Ctrl+Alt+Space' });
    assert.deepEqual(ok(DEFAULT_SETTINGS.desktop.shortcut, 'linux'), { accelerator: 'CommandOrControl+Alt+Space', label: 'Ctrl+Alt+Space' });
    assert.deepEqual(ok(DEFAULT_SETTINGS.desktop.shortcut, 'darwin'), { accelerator: 'CommandOrControl+Alt+Space', label: '⌥⌘Space' });
    // Another Unix behaves like Linux.
    assert.equal(ok('CmdOrCtrl+Alt+Space', 'freebsd').label, 'Ctrl+Alt+Space');
  });

  it('ignores case and spaces, folds aliases and sorts the modifiers into one canonical form', () => {
    assert.equal(ok(' ctrl + ALT + space ', 'linux').accelerator, 'Control+Alt+Space');
    assert.equal(ok('shift+cmdorctrl+k', 'linux').accelerator, 'CommandOrControl+Shift+K');
    assert.equal(ok('Option+Cmd+esc', 'darwin').accelerator, 'Command+Alt+Escape');
    assert.equal(ok('meta+alt+enter', 'linux').accelerator, 'Super+Alt+Return');
    assert.equal(ok('Space+Alt+Ctrl', 'win32').accelerator, 'Control+Alt+Space');
    assert.equal(ok('Ctrl+Alt+f12', 'win32').accelerator, 'Control+Alt+F12');
    assert.equal(ok('ctrl+shift+NUMADD', 'win32').accelerator, 'Control+Shift+numadd');
    assert.equal(ok('Ctrl+Alt+/', 'linux').accelerator, 'Control+Alt+/');
  });

  it('knows the key codes of Electronʼs list', () => {
    for (const key of ['0', '9', 'A', 'Z', 'F1', 'F24', ')', '~', '"', 'Plus', 'Space', 'Tab', 'Capslock', 'Numlock', 'Scrolllock', 'Backspace', 'Delete', 'Insert', 'Return', 'Enter', 'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Escape', 'Esc', 'VolumeUp', 'VolumeDown', 'VolumeMute', 'MediaNextTrack', 'MediaPreviousTrack', 'MediaStop', 'MediaPlayPause', 'PrintScreen', 'num0', 'num9', 'numdec', 'numadd', 'numsub', 'nummult', 'numdiv']) {
      ok(`Ctrl+Alt+${key}`, 'linux');
    }
    for (const bad of ['F0', 'F25', 'F07', 'num10', 'Foo', 'é', 'Spacebar']) assert.match(error(`Ctrl+Alt+${bad}`), /is not a key or modifier Electron knows/);
  });

  it('labels keys the way each platform writes them', () => {
    assert.equal(ok('Super+Shift+Return', 'win32').label, 'Win+Shift+Enter');
    assert.equal(ok('Super+Shift+Return', 'linux').label, 'Super+Shift+Enter');
    assert.equal(ok('Control+Alt+Shift+Command+Up', 'darwin').label, '⌃⌥⇧⌘↑');
    assert.equal(ok('Ctrl+Alt+Plus', 'win32').label, 'Ctrl+Alt++');
    assert.equal(ok('Ctrl+Alt+num5', 'linux').label, 'Ctrl+Alt+Num 5');
    assert.equal(ok('MediaPlayPause', 'win32').label, 'Play/Pause');
  });

  it('a shortcut has exactly one key', () => {
    assert.equal(error('Ctrl+Alt'), '"Ctrl+Alt" has no key; add one key after the modifiers, for example "CommandOrControl+Alt+Space".');
    assert.match(error('Ctrl+A+B'), /has 2 keys \(A, B\); a shortcut has exactly one key/);
  });

  it('needs a modifier besides Shift (or AltGr), except for F13-F24 and the media keys', () => {
    assert.equal(
      error('a'),
      '"a" has no modifier besides Shift or AltGr, so it would take A from every program; add Ctrl, Alt, Cmd or Super, for example "CommandOrControl+Alt+Space".',
    );
    for (const bare of ['Shift+A', 'AltGr+Q', 'Space', 'F12', 'Shift+F5', 'VolumeUp', 'PrintScreen']) error(bare);
    for (const alone of ['F13', 'F24', 'Shift+F20', 'MediaPlayPause', 'MediaNextTrack']) ok(alone, 'win32');
  });

  it('refuses a repeated modifier, also under another name', () => {
    assert.match(error('Ctrl+Control+K'), /names Control twice/);
    assert.match(error('Option+Alt+K', 'darwin'), /names Alt twice/);
    assert.match(error('CmdOrCtrl+Ctrl+K'), /CommandOrControl with Command or Control/);
    assert.match(error('Command+Super+K', 'darwin'), /Command and Super, which are the same key on macOS/);
    ok('Command+Control+K', 'darwin');
  });

  it('Command has no effect on Windows and Linux', () => {
    assert.equal(
      error('Cmd+Shift+K', 'win32'),
      '"Cmd+Shift+K" uses Command, which has no effect on Windows; use CommandOrControl (Ctrl here, Cmd on a Mac), for example "CommandOrControl+Alt+Space".',
    );
    assert.match(error('Command+Alt+K', 'linux'), /no effect on Linux/);
  });

  it('reports an empty part (the + key is Plus) and overlong input', () => {
    assert.match(error('Ctrl++'), /empty part between the \+ signs; write the \+ key as Plus/);
    assert.match(error('Ctrl+Alt+'), /empty part/);
    assert.match(error(`Ctrl+${'A'.repeat(120)}`), /is too long for a shortcut/);
  });

  it('an empty shortcut is none', () => {
    assert.deepEqual(parseAccelerator('', 'linux'), { ok: true, accelerator: '', label: '' });
    assert.deepEqual(parseAccelerator('   ', 'darwin'), { ok: true, accelerator: '', label: '' });
    assert.equal(acceleratorLabel('', 'win32'), '');
    assert.equal(acceleratorLabel('not one', 'win32'), 'not one');
  });
});

describe('shortcutConflict: a warning, not a refusal', () => {
  it('names what else uses the keys', () => {
    assert.equal(
      shortcutConflict('CommandOrControl+Alt+Space', 'darwin'),
      "⌥⌘Space is also the shortcut of Finder's search window: one of the two will not get it. Choose another shortcut if that matters to you.",
    );
    assert.match(shortcutConflict('Cmd+Space', 'darwin')!, /^⌘Space is also Spotlight's shortcut/);
    assert.match(shortcutConflict('Super+Space', 'darwin')!, /Spotlight/);
    assert.match(shortcutConflict('Alt+E', 'darwin')!, /types special characters/);
    assert.match(shortcutConflict('Alt+Space', 'win32')!, /^Alt\+Space is also the shortcut of the window menu/);
    assert.match(shortcutConflict('Super+H', 'win32')!, /^Win\+H is also in the range Windows keeps for itself/);
    assert.match(shortcutConflict('Ctrl+C', 'win32')!, /Ctrl\+C copies/);
    assert.match(shortcutConflict('CmdOrCtrl+V', 'linux')!, /most programs/);
    assert.match(shortcutConflict('Super+A', 'linux')!, /the desktop keeps for itself/);
    assert.match(shortcutConflict('Ctrl+Alt+F2', 'linux')!, /text console/);
    assert.match(shortcutConflict('Ctrl+Alt+Left', 'linux')!, /workspaces/);
    assert.match(shortcutConflict('ctrl+alt+t', 'linux')!, /terminal/);
  });

  it('is null for the default on Windows and Linux, for none, and for what it cannot parse', () => {
    assert.equal(shortcutConflict('CommandOrControl+Alt+Space', 'win32'), null);
    assert.equal(shortcutConflict('CommandOrControl+Alt+Space', 'linux'), null);
    assert.equal(shortcutConflict('Ctrl+Shift+K', 'darwin'), null);
    assert.equal(shortcutConflict('', 'darwin'), null);
    assert.equal(shortcutConflict('Ctrl+', 'linux'), null);
  });
});

describe('the desktop.shortcut setting', () => {
  it('stores the canonical form and accepts "" for none', () => {
    const r = validateSettings({ desktop: { shortcut: 'alt + ctrl + k' } });
    assert.ok(r.ok);
    assert.equal(r.value.desktop.shortcut, 'Control+Alt+K');
    const none = validateSettings({ desktop: { shortcut: '' } });
    assert.ok(none.ok);
    assert.equal(none.value.desktop.shortcut, '');
  });

  it('says what is wrong, with an example', () => {
    const r = validateSettings({ desktop: { shortcut: 'Ctrl+Alt' } });
    assert.ok(!r.ok);
    assert.deepEqual(r.errors, [
      { path: 'desktop.shortcut', message: 'is not a usable shortcut: "Ctrl+Alt" has no key; add one key after the modifiers, for example "CommandOrControl+Alt+Space".' },
    ]);
    assert.deepEqual(checkShortcutSetting(42), { ok: false, message: 'must be a shortcut as text, for example "CommandOrControl+Alt+Space", or "" for none' });
  });

  it('leaves what only one platform refuses to the app (a settings file may move between machines)', () => {
    assert.deepEqual(checkShortcutSetting('Cmd+Shift+K'), { ok: true, value: 'Command+Shift+K' });
  });
});

/** globalShortcut as the OS sees it: `taken` are held by other programs; `throws` are refused by Electron. */
function fakeGlobalShortcut(taken: string[] = [], throws: string[] = []) {
  const held = new Map<string, () => void>();
  const calls: string[] = [];
  const api: GlobalShortcutApi = {
    register(accelerator, callback) {
      calls.push(`register ${accelerator}`);
      if (throws.includes(accelerator)) throw new TypeError('conversion failure from ' + accelerator);
      if (taken.includes(accelerator) || held.has(accelerator)) return false;
      held.set(accelerator, callback);
      return true;
    },
    unregister(accelerator) {
      calls.push(`unregister ${accelerator}`);
      held.delete(accelerator);
    },
    unregisterAll() {
      calls.push('unregisterAll');
      held.clear();
    },
  };
  return { api, held, calls };
}

describe('GlobalShortcutBinding', () => {
  it('registers the canonical form, and a press activates', () => {
    const os = fakeGlobalShortcut();
    let presses = 0;
    const binding = new GlobalShortcutBinding(os.api, 'linux', () => presses++);
    assert.equal(binding.set('ctrl+alt+space'), null);
    assert.equal(binding.accelerator, 'Control+Alt+Space');
    os.held.get('Control+Alt+Space')!();
    assert.equal(presses, 1);
  });

  it('replaces the previous shortcut; the same one again changes nothing', () => {
    const os = fakeGlobalShortcut();
    const binding = new GlobalShortcutBinding(os.api, 'win32', () => undefined);
    binding.set('CommandOrControl+Alt+Space');
    assert.equal(binding.set('Ctrl+Shift+F9'), null);
    assert.deepEqual([...os.held.keys()], ['Control+Shift+F9']);
    os.calls.length = 0;
    assert.equal(binding.set('shift+ctrl+f9'), null);
    assert.deepEqual(os.calls, []);
  });

  it('a shortcut another program holds is reported plainly, and the previous one stays registered', () => {
    const os = fakeGlobalShortcut(['Control+Alt+K']);
    const binding = new GlobalShortcutBinding(os.api, 'linux', () => undefined);
    binding.set('CommandOrControl+Alt+Space');
    assert.equal(binding.set('Ctrl+Alt+K'), 'Ctrl+Alt+K is already used by another program. Choose another shortcut in Settings.');
    assert.equal(shortcutTakenMessage('⌥⌘Space'), '⌥⌘Space is already used by another program. Choose another shortcut in Settings.');
    assert.equal(binding.accelerator, 'CommandOrControl+Alt+Space');
    assert.deepEqual([...os.held.keys()], ['CommandOrControl+Alt+Space']);
  });

  it('a throw from register is reported too, and an invalid shortcut never reaches Electron', () => {
    const os = fakeGlobalShortcut([], ['Control+Alt+K']);
    const binding = new GlobalShortcutBinding(os.api, 'linux', () => undefined);
    assert.match(binding.set('Ctrl+Alt+K')!, /^Ctrl\+Alt\+K could not be set as a global shortcut \(conversion failure from Control\+Alt\+K\)\. Choose another shortcut in Settings\.$/);
    assert.equal(binding.accelerator, '');
    os.calls.length = 0;
    assert.match(binding.set('Cmd+K')!, /no effect on Linux/);
    assert.deepEqual(os.calls, []);
  });

  it('"" unregisters; dispose releases everything', () => {
    const os = fakeGlobalShortcut();
    const binding = new GlobalShortcutBinding(os.api, 'darwin', () => undefined);
    binding.set('Cmd+Shift+K');
    assert.equal(binding.set(''), null);
    assert.equal(os.held.size, 0);
    assert.equal(binding.accelerator, '');
    binding.set('Cmd+Shift+K');
    binding.dispose();
    assert.equal(os.held.size, 0);
    assert.equal(binding.accelerator, '');
  });
});
