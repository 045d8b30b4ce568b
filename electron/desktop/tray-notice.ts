/**
 * The one-time "still running in the tray" notice, shown as a system notification, with a dialog
 * where notifications cannot show (none supported, or the notification failed: an unsigned macOS
 * build since Electron 42, a Windows shortcut whose app id does not match). It counts as shown, and
 * the marker is written, only once the user could see it. Typed structurally, so it is tested with
 * stand-ins for Notification and dialog.
 */

export interface NoticeNotification {
  on(event: 'show' | 'failed', listener: () => void): unknown;
  show(): void;
}

export interface NoticeDeps {
  /** Notification.isSupported(). */
  supported(): boolean;
  notification(title: string, body: string): NoticeNotification;
  dialog(title: string, body: string): Promise<unknown>;
  /** Called once, when the notice has been seen: remembers it (the marker file). */
  shown(): void;
}

/** Shows the notice; returns the notification to hold (a collected one never shows), or null for the dialog. */
export function showTrayNotice(title: string, body: string, deps: NoticeDeps): NoticeNotification | null {
  let done = false;
  const seen = () => {
    if (done) return;
    done = true;
    deps.shown();
  };
  const fallBack = () => {
    if (done) return;
    deps.dialog(title, body).then(seen, () => undefined);
  };
  if (!deps.supported()) {
    fallBack();
    return null;
  }
  const n = deps.notification(title, body);
  n.on('show', seen);
  n.on('failed', fallBack);
  try {
    n.show();
  } catch {
    fallBack();
  }
  return n;
}
