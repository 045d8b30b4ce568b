/**
 * Two desktop flows with stand-ins for Electron's objects (Notification and dialog; systemPreferences):
 * the tray notice is remembered only once seen, with a dialog where the notification fails, and the
 * microphone permission is asked or explained before the window opens the microphone; on Wayland a
 * shortcut in effect says the desktop will ask to confirm it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDesktop, applyDesktopChange } from '../electron/desktop/desktop-settings';
import { DEFAULT_SETTINGS } from '../electron/settings/schema';
import { microphoneAccess, type MediaAccessApi } from '../electron/desktop/microphone-access';
import { showTrayNotice, type NoticeDeps } from '../electron/desktop/tray-notice';
import { isWaylandSession, waylandShortcutNote } from '../electron/desktop/wayland';

/** A notification the test makes show or fail, and a dialog the test can close. */
function stage(supported = true) {
  const log: string[] = [];
  const listeners = new Map<string, () => void>();
  let closeDialog: () => void = () => undefined;
  const deps: NoticeDeps = {
    supported: () => supported,
    notification: (title) => {
      log.push(`notification ${title}`);
      return { on: (event, fn) => listeners.set(event, fn), show: () => log.push('show called') };
    },
    dialog: (title) => {
      log.push(`dialog ${title}`);
      return new Promise<void>((resolve) => (closeDialog = resolve));
    },
    shown: () => log.push('remembered'),
  };
  return { deps, log, fire: (event: 'show' | 'failed') => listeners.get(event)?.(), closeDialog: () => closeDialog() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('the tray notice', () => {
  it('is remembered when the notification shows, not when it is created', async () => {
    const s = stage();
    assert.notEqual(showTrayNotice('Still running', 'body', s.deps), null);
    assert.deepEqual(s.log, ['notification Still running', 'show called']);
    s.fire('show');
    s.fire('show');
    assert.deepEqual(s.log.filter((l) => l === 'remembered'), ['remembered'], 'once');
  });

  it('a failed notification (unsigned macOS build, Windows id mismatch) falls back to a dialog, remembered once it was seen', async () => {
    const s = stage();
    showTrayNotice('Still running', 'body', s.deps);
    s.fire('failed');
    assert.ok(s.log.includes('dialog Still running'));
    assert.ok(!s.log.includes('remembered'), 'not before the dialog was seen');
    s.closeDialog();
    await tick();
    assert.equal(s.log.at(-1), 'remembered');
  });

  it('a notification that vanishes with no event is not remembered: the next close shows it again', () => {
    const s = stage();
    showTrayNotice('Still running', 'body', s.deps);
    assert.ok(!s.log.includes('remembered'));
  });

  it('where notifications are not supported, the dialog shows', async () => {
    const s = stage(false);
    assert.equal(showTrayNotice('Still running', 'body', s.deps), null);
    s.closeDialog();
    await tick();
    assert.deepEqual(s.log, ['dialog Still running', 'remembered']);
  });
});

function prefs(status: ReturnType<MediaAccessApi['getMediaAccessStatus']>, answer = true) {
  const asked: string[] = [];
  const api: MediaAccessApi = {
    getMediaAccessStatus: () => status,
    askForMediaAccess: async (t) => {
      asked.push(t);
      return answer;
    },
  };
  return { api, asked };
}

describe('microphone access', () => {
  it('macOS: asks once when undecided, and a yes opens the microphone', async () => {
    const p = prefs('not-determined', true);
    assert.deepEqual(await microphoneAccess('darwin', p.api), { ok: true });
    assert.deepEqual(p.asked, ['microphone']);
  });

  it('macOS: a no, or an earlier denial, says where to fix it and to restart, not "reload"', async () => {
    for (const p of [prefs('not-determined', false), prefs('denied')]) {
      const r = await microphoneAccess('darwin', p.api);
      assert.equal(r.ok, false);
      if (r.ok) continue;
      assert.match(r.message, /System Settings > Privacy & Security > Microphone/);
      assert.match(r.message, /start it again/);
      assert.doesNotMatch(r.message, /reload/i);
    }
    const denied = prefs('denied');
    await microphoneAccess('darwin', denied.api);
    assert.deepEqual(denied.asked, [], 'macOS shows its dialog only once: a denial is not asked again');
  });

  it('macOS: granted, or a status it cannot tell, goes ahead', async () => {
    assert.deepEqual(await microphoneAccess('darwin', prefs('granted').api), { ok: true });
    assert.deepEqual(await microphoneAccess('darwin', prefs('unknown').api), { ok: true });
    const throwing: MediaAccessApi = { getMediaAccessStatus: () => { throw new Error('no'); }, askForMediaAccess: async () => false };
    assert.deepEqual(await microphoneAccess('darwin', throwing), { ok: true });
  });

  it("Windows: the privacy switch's denial is explained; nothing is asked", async () => {
    const p = prefs('denied');
    const r = await microphoneAccess('win32', p.api);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /Privacy & security > Microphone/);
    assert.deepEqual(p.asked, []);
    assert.deepEqual(await microphoneAccess('win32', prefs('granted').api), { ok: true });
  });

  it('Linux has no system switch: always goes ahead', async () => {
    assert.deepEqual(await microphoneAccess('linux', prefs('denied').api), { ok: true });
  });
});

describe('the global shortcut on Wayland', () => {
  it('a Wayland session is one where Electron runs as a Wayland client: not forced to X11, not another OS', () => {
    assert.equal(isWaylandSession('linux', { XDG_SESSION_TYPE: 'wayland' }), true);
    assert.equal(isWaylandSession('linux', { WAYLAND_DISPLAY: 'wayland-0' }), true);
    assert.equal(isWaylandSession('linux', { XDG_SESSION_TYPE: 'x11' }), false);
    assert.equal(isWaylandSession('linux', { XDG_SESSION_TYPE: 'wayland' }, ['--ozone-platform=x11']), false);
    assert.equal(isWaylandSession('linux', { WAYLAND_DISPLAY: 'wayland-0', ELECTRON_OZONE_PLATFORM_HINT: 'x11' }), false);
    assert.equal(isWaylandSession('darwin', { WAYLAND_DISPLAY: 'wayland-0' }), false);
  });

  it('a shortcut in effect carries the note to confirm it; a refused or empty one carries none', async () => {
    const note = waylandShortcutNote('Ctrl+Alt+Space');
    assert.match(note, /confirm Ctrl\+Alt\+Space in a system dialog/);
    const shell = {
      setShortcut: (a: string) => (a === 'Control+Alt+K' ? 'Ctrl+Alt+K is already used by another program.' : null),
      shortcutNote: (a: string) => `note for ${a}`,
      setStartAtLogin: async () => null,
      microphoneAccess: async () => ({ ok: true }) as const,
    };
    const base = { ...DEFAULT_SETTINGS.desktop, shortcut: 'CommandOrControl+Alt+Space', startAtLogin: false };
    const ok = await applyDesktop(shell, base, () => undefined);
    assert.equal(ok.shortcutNote, 'note for CommandOrControl+Alt+Space');
    const taken = await applyDesktop(shell, { ...base, shortcut: 'Control+Alt+K' }, () => undefined);
    assert.equal(taken.shortcutNote, null);
    const none = await applyDesktop(shell, { ...base, shortcut: '' }, () => undefined);
    assert.equal(none.shortcutNote, null);
    const changed: unknown[] = [];
    await applyDesktopChange(shell, base, { ...base, shortcut: 'Alt+Shift+F9' }, (s) => changed.push(s.shortcutNote));
    assert.deepEqual(changed, ['note for Alt+Shift+F9']);
  });
});
