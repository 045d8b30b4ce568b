/**
 * "Shown once" for the background notice: a marker file in the user data folder, so the notice is
 * not repeated after a restart. Written atomically (an interrupted write leaves no half file).
 */
import { access } from 'node:fs/promises';
import { writeFileAtomic } from '../settings/file';

export const NOTICE_MARKER = 'tray-notice-shown';

/** Whether the marker exists; an unreadable folder counts as not shown (the worst case is one more notice). */
export async function noticeWasShown(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

export async function rememberNoticeShown(file: string, now = new Date()): Promise<void> {
  await writeFileAtomic(file, `${now.toISOString()}\n`);
}
