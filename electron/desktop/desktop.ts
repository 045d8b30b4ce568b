/**
 * The desktop around the window, wired to Electron: the global shortcut, the tray icon, start at
 * login and what closing the window does. Every decision is made by the pure modules beside this
 * one (accelerator, close-policy, login-item, tray-model); this class only connects them to
 * Electron's objects and to the controller. Electron is not launched in this repository's tests:
 * this file is typechecked against Electron's typings, and what it calls is unit-tested.
 */
import { app, dialog, globalShortcut, Notification, powerMonitor, systemPreferences, type BrowserWindow } from 'electron';
import os from 'node:os';
import path from 'node:path';
import type { AppEvent } from '../ipc-contract';
import { DEFAULT_SETTINGS, type Settings } from '../settings/schema';
import { acceleratorLabel, shellPlatform, type ShellPlatform } from '../settings/accelerator';
import { backgroundNotice, decideClose, quitWhenAllWindowsClosed } from './close-policy';
import { applyStartAtLogin, autostartDir, launchCommand } from './login-item';
import { microphoneAccess } from './microphone-access';
import { isWaylandSession, waylandShortcutNote } from './wayland';
import { NOTICE_MARKER, noticeWasShown, rememberNoticeShown } from './notice-marker';
import type { DesktopShell } from './shell';
import { GlobalShortcutBinding } from './shortcut';
import { AssistantTray } from './tray';
import { showTrayNotice, type NoticeNotification } from './tray-notice';
import { INITIAL_TRAY_INPUT, nextTrayInput, trayView, type TrayInput } from './tray-model';

import { APP_NAME } from './identity';
/** The autostart entry's file name on Linux (the same id as the settings folder). */
const AUTOSTART_ID = 'local-voice-assistant';

/** The controller as the desktop uses it (structural, so this file needs none of its engines). */
export interface DesktopController {
  on(fn: (e: AppEvent) => void): () => void;
  command(raw: unknown): void;
  readonly settings: Settings;
  snapshot(): { status: { phase: TrayInput['phase']; listening: boolean; error: string | null; microphoneProblem: string | null } };
}

export interface DesktopOptions {
  userDataDir: string;
  /** Shows the window, creating it when there is none. */
  showWindow(): void;
}

export class Desktop {
  readonly shell: DesktopShell;
  private readonly platform: ShellPlatform = shellPlatform(process.platform);
  private readonly shortcut: GlobalShortcutBinding;
  private readonly noticeFile: string;
  private controller: DesktopController | null = null;
  private tray: AssistantTray | null = null;
  private input: TrayInput = INITIAL_TRAY_INPUT;
  private quitting = false;
  private noticeShown = false;
  /** Held so the notification is not collected before it shows. */
  notification: NoticeNotification | null = null;

  constructor(private readonly options: DesktopOptions) {
    // globalShortcut reports presses only: a press asks for one turn of listening.
    this.shortcut = new GlobalShortcutBinding(globalShortcut, this.platform, () => this.controller?.command({ type: 'activate' }));
    this.noticeFile = path.join(options.userDataDir, NOTICE_MARKER);
    void noticeWasShown(this.noticeFile).then((shown) => {
      this.noticeShown ||= shown;
    });
    this.shell = {
      setShortcut: (accelerator) => {
        const error = this.shortcut.set(accelerator);
        this.refreshTray();
        return error;
      },
      setStartAtLogin: (on) =>
        applyStartAtLogin(on, {
          platform: this.platform,
          name: APP_NAME,
          id: AUTOSTART_ID,
          launch: launchCommand({ execPath: process.execPath, appImage: process.env.APPIMAGE, packaged: app.isPackaged, appPath: app.getAppPath() }),
          loginItems: app,
          autostartDir: autostartDir(process.env, os.homedir()),
        }),
      shortcutNote: (accelerator) =>
        isWaylandSession(process.platform, process.env, process.argv) ? waylandShortcutNote(acceleratorLabel(accelerator, this.platform)) : null,
      microphoneAccess: () => microphoneAccess(process.platform, systemPreferences),
    };
  }

  /**
   * Puts up the tray icon at once, before the engines load (it says "starting"): its menu reaches the
   * controller once there is one.
   */
  showTray(): void {
    if (this.tray) return;
    this.tray = AssistantTray.create(
      this.platform,
      APP_NAME,
      {
        talk: () => this.controller?.command({ type: 'activate' }),
        mute: () => this.controller?.command({ type: 'set-listening', listening: !this.input.listening }),
        show: () => this.options.showWindow(),
        quit: () => {
          this.quitting = true;
          app.quit();
        },
      },
      this.view(),
    );
    // Linux and macOS: the system is shutting down; a window hidden instead of closed would hold it up.
    powerMonitor.on('shutdown', () => this.beginQuit());
  }

  /** Once the engines are imported: the tray follows the controller's events. */
  attach(c: DesktopController): void {
    this.controller = c;
    const { phase, listening, error, microphoneProblem } = c.snapshot().status;
    this.input = { phase, listening, error, microphoneProblem, pipeline: null };
    this.refreshTray();
    c.on((event) => {
      const next = nextTrayInput(this.input, event);
      if (next === this.input) return;
      this.input = next;
      this.refreshTray();
    });
  }

  /** Applies the close policy to the window's close button. */
  guardWindow(win: BrowserWindow): void {
    win.on('close', (event) => {
      const decision = decideClose({
        platform: this.platform,
        closeToTray: (this.controller?.settings ?? DEFAULT_SETTINGS).desktop.closeToTray,
        trayCreated: this.tray !== null,
        quitting: this.quitting,
        noticeShown: this.noticeShown,
      });
      if (decision.action === 'close') return;
      event.preventDefault();
      // macOS leaves a black screen behind a full-screen window that is hidden: leave full screen first.
      if (win.isFullScreen()) {
        win.once('leave-full-screen', () => win.hide());
        win.setFullScreen(false);
      } else win.hide();
      if (decision.showNotice) this.showNotice();
    });
    // Windows: the session is ending (shutdown, log-off); nothing may keep the window open.
    if (this.platform === 'win32') win.on('session-end', () => this.beginQuit());
  }

  /** The app is quitting (the Quit menu, app.quit, Cmd+Q, the OS): windows really close from now on. */
  beginQuit(): void {
    this.quitting = true;
  }

  /** For window-all-closed: whether the app quits now. */
  quitWhenAllClosed(): boolean {
    return quitWhenAllWindowsClosed({
      platform: this.platform,
      closeToTray: (this.controller?.settings ?? DEFAULT_SETTINGS).desktop.closeToTray,
      trayCreated: this.tray !== null,
    });
  }

  /** At will-quit: releases the shortcut and removes the tray icon. */
  dispose(): void {
    this.shortcut.dispose();
    this.tray?.destroy();
    this.tray = null;
  }

  private view() {
    return trayView(this.input, acceleratorLabel(this.shortcut.accelerator, this.platform));
  }

  private refreshTray(): void {
    this.tray?.update(this.view());
  }

  private showNotice(): void {
    const { title, body } = backgroundNotice(this.platform, acceleratorLabel(this.shortcut.accelerator, this.platform), this.tray !== null, APP_NAME);
    this.notification = showTrayNotice(title, body, {
      supported: () => Notification.isSupported(),
      notification: (t, b) => new Notification({ title: t, body: b, silent: true }),
      dialog: (t, b) => dialog.showMessageBox({ type: 'info', title: t, message: t, detail: b, buttons: ['OK'] }),
      shown: () => {
        this.noticeShown = true;
        rememberNoticeShown(this.noticeFile).catch((err: unknown) => console.error('Could not remember that the tray notice was shown:', err));
      },
    });
  }
}
