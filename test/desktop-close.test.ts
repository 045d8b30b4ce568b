/**
 * What closing the window does per platform (hide into the tray or the Dock, or really close), the
 * once-only notice and its marker file, and when closing every window quits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { backgroundNotice, decideClose, keepsRunningInBackground, quitWhenAllWindowsClosed, type CloseContext } from '../electron/desktop/close-policy';
import { NOTICE_MARKER, noticeWasShown, rememberNoticeShown } from '../electron/desktop/notice-marker';
import { tempDir } from './helpers';

const ctx = (patch: Partial<CloseContext>): CloseContext => ({ platform: 'win32', closeToTray: true, trayCreated: true, quitting: false, noticeShown: false, ...patch });

describe('decideClose', () => {
  it('Windows and Linux: with the setting on and a tray, closing hides the window, with the notice the first time', () => {
    for (const platform of ['win32', 'linux'] as const) {
      assert.deepEqual(decideClose(ctx({ platform })), { action: 'hide', showNotice: true });
      assert.deepEqual(decideClose(ctx({ platform, noticeShown: true })), { action: 'hide', showNotice: false });
    }
  });

  it('Windows and Linux: the setting off, or no tray icon, closes (and the app quits)', () => {
    for (const platform of ['win32', 'linux'] as const) {
      assert.deepEqual(decideClose(ctx({ platform, closeToTray: false })), { action: 'close', showNotice: false });
      assert.deepEqual(decideClose(ctx({ platform, trayCreated: false })), { action: 'close', showNotice: false });
      assert.equal(quitWhenAllWindowsClosed(ctx({ platform, trayCreated: false })), true);
      assert.equal(quitWhenAllWindowsClosed(ctx({ platform, closeToTray: false })), true);
      assert.equal(quitWhenAllWindowsClosed(ctx({ platform })), false);
    }
  });

  it('macOS: closing hides the window whatever the setting (the Dock keeps the app), and the app never quits for it', () => {
    for (const closeToTray of [true, false]) {
      for (const trayCreated of [true, false]) {
        const c = ctx({ platform: 'darwin', closeToTray, trayCreated });
        assert.deepEqual(decideClose(c), { action: 'hide', showNotice: true });
        assert.equal(keepsRunningInBackground(c), true);
        assert.equal(quitWhenAllWindowsClosed(c), false);
      }
    }
  });

  it('a quit in progress always closes, without a notice', () => {
    for (const platform of ['win32', 'linux', 'darwin'] as const) {
      assert.deepEqual(decideClose(ctx({ platform, quitting: true })), { action: 'close', showNotice: false });
    }
  });
});

describe('the once-only notice', () => {
  it('says where the assistant is, how to talk and how to quit', () => {
    assert.deepEqual(backgroundNotice('win32', 'Ctrl+Alt+Space', true, 'Local Voice Assistant'), {
      title: 'Local Voice Assistant is still running',
      body: 'The assistant is still running in the tray. Press Ctrl+Alt+Space to talk, or use the tray menu to quit.',
    });
    assert.equal(
      backgroundNotice('darwin', '⌥⌘Space', true, 'LVA').body,
      'The assistant is still running in the menu bar. Press ⌥⌘Space to talk, or quit it from its menu there (or with ⌘Q).',
    );
    assert.match(backgroundNotice('darwin', '⌥⌘Space', false, 'LVA').body, /running in the Dock/);
    assert.match(backgroundNotice('linux', 'Ctrl+Alt+Space', true, 'LVA').body, /No tray icon on your desktop\? Start the app again to open the window/);
    assert.match(backgroundNotice('win32', '', true, 'LVA').body, /Set a shortcut in Settings to talk from any program, or use the tray menu to quit\.$/);
  });

  it('is remembered in a marker file in the user data folder', async () => {
    const dir = tempDir('lva-notice-');
    const file = path.join(dir, NOTICE_MARKER);
    assert.equal(await noticeWasShown(file), false);
    await rememberNoticeShown(file, new Date('2026-01-02T03:04:05Z'));
    assert.equal(await noticeWasShown(file), true);
    assert.equal(readFileSync(file, 'utf8'), '2026-01-02T03:04:05.000Z\n');
    assert.equal(await noticeWasShown(path.join(dir, 'missing', NOTICE_MARKER)), false);
  });
});
