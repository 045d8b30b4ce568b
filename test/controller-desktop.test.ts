/**
 * The controller's side of the desktop shell (the global shortcut and start at login): settings are
 * applied to the shell before they are saved, so a shortcut another program holds is refused and
 * not saved as if it worked. The shell here is a recording stand-in for the Electron glue (which
 * cannot run on this machine): this tests the controller's decisions, not Electron.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { DesktopShell } from '../electron/desktop/shell';
import type { AppEvent } from '../electron/ipc-contract';
import { tempDir } from './helpers';
import { controllerWithoutModels } from './controller-fixture';

/** Records what it was asked; `taken` accelerators are refused as another program's. */
class RecordingShell implements DesktopShell {
  readonly shortcuts: string[] = [];
  readonly logins: boolean[] = [];
  constructor(private readonly taken: readonly string[] = []) {}
  setShortcut(accelerator: string): string | null {
    this.shortcuts.push(accelerator);
    return this.taken.includes(accelerator) ? `${accelerator} is already used by another program. Choose another shortcut in Settings.` : null;
  }
  async setStartAtLogin(on: boolean): Promise<string | null> {
    this.logins.push(on);
    return null;
  }
  shortcutNote(): string | null {
    return null;
  }
  micDenied: string | null = null;
  async microphoneAccess() {
    return this.micDenied === null ? ({ ok: true } as const) : ({ ok: false, message: this.micDenied } as const);
  }
}

function controllerWith(dir: string, shell?: DesktopShell): { controller: AssistantController; events: AppEvent[] } {
  return controllerWithoutModels(dir, shell ? { shell } : {});
}

describe('the desktop shell, from the controller', () => {
  it('at start, the saved shortcut and start-at-login are applied; a taken shortcut is reported, not fatal', async () => {
    const dir = tempDir('lva-desk-');
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ desktop: { shortcut: 'Control+Alt+K', startAtLogin: true } }));
    const shell = new RecordingShell(['Control+Alt+K']);
    const { controller, events } = controllerWith(dir, shell);
    try {
      await controller.start();
      assert.deepEqual(shell.shortcuts, ['Control+Alt+K']);
      assert.deepEqual(shell.logins, [true]);
      const desktop = controller.snapshot().status.desktop;
      assert.deepEqual(desktop, { shell: true, shortcut: '', shortcutError: 'Control+Alt+K is already used by another program. Choose another shortcut in Settings.', shortcutNote: null });
      assert.ok(events.some((e) => e.type === 'notice' && e.level === 'error' && /already used by another program/.test(e.message)));
    } finally {
      await controller.dispose();
    }
  });

  it('a shortcut another program holds is refused and not saved; a free one is applied, then saved', async () => {
    const dir = tempDir('lva-desk-');
    const shell = new RecordingShell(['CommandOrControl+Shift+Space']);
    const { controller } = controllerWith(dir, shell);
    try {
      await controller.start();
      const refused = await controller.request({ type: 'update-settings', patch: { desktop: { shortcut: 'CommandOrControl+Shift+Space' } } });
      assert.deepEqual(refused, { ok: false, error: 'CommandOrControl+Shift+Space is already used by another program. Choose another shortcut in Settings.' });
      assert.equal(controller.settings.desktop.shortcut, 'CommandOrControl+Alt+Space', 'the setting is unchanged');
      await assert.rejects(readFile(path.join(dir, 'settings.json'), 'utf8'), 'nothing was written');

      const ok = await controller.request({ type: 'update-settings', patch: { desktop: { shortcut: 'Alt+Shift+F9', startAtLogin: true } } });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.deepEqual(shell.shortcuts, ['CommandOrControl+Alt+Space', 'CommandOrControl+Shift+Space', 'Alt+Shift+F9']);
      assert.deepEqual(shell.logins, [true], 'off is not re-applied at start; the change to on is');
      assert.equal(JSON.parse(await readFile(path.join(dir, 'settings.json'), 'utf8')).desktop.shortcut, 'Alt+Shift+F9');
      assert.deepEqual(controller.snapshot().status.desktop, { shell: true, shortcut: 'Alt+Shift+F9', shortcutError: null, shortcutNote: null });

      // A patch that changes nothing on the desktop does not touch the shell.
      await controller.request({ type: 'update-settings', patch: { tts: { speed: 1.1 } } });
      assert.equal(shell.shortcuts.length, 3);
    } finally {
      await controller.dispose();
    }
  });

  it('without a shell (dev:web), the settings are saved and the window is told they apply in the app', async () => {
    const dir = tempDir('lva-desk-');
    const { controller } = controllerWith(dir);
    try {
      await controller.start();
      assert.deepEqual(controller.snapshot().status.desktop, { shell: false, shortcut: 'CommandOrControl+Alt+Space', shortcutError: null });
      const r = await controller.request({ type: 'update-settings', patch: { desktop: { shortcut: 'Alt+Shift+F9' } } });
      assert.equal(r.ok, true);
    } finally {
      await controller.dispose();
    }
  });
});

describe('microphone access, from the controller', () => {
  it("answers with the shell's decision; without a shell the browser asks itself", async () => {
    const shell = new RecordingShell();
    const withShell = controllerWith(tempDir('lva-desk-'), shell).controller;
    const without = controllerWith(tempDir('lva-desk-')).controller;
    try {
      assert.deepEqual(await withShell.request({ type: 'microphone-access' }), { ok: true });
      shell.micDenied = 'macOS has denied this app the microphone.';
      assert.deepEqual(await withShell.request({ type: 'microphone-access' }), { ok: false, message: shell.micDenied });
      assert.deepEqual(await without.request({ type: 'microphone-access' }), { ok: true });
      const bad = await without.request({ type: 'microphone-access', extra: 1 } as never);
      assert.equal(bad.ok, false);
    } finally {
      await withShell.dispose();
      await without.dispose();
    }
  });
});
