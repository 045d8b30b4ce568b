/**
 * The global shortcut's field: it shows the shortcut in this platform's words ("Ctrl+Alt+Space",
 * "⌥⌘Space"), not the stored accelerator syntax, and takes either back. Pure, tested in Node.
 */
import { acceleratorChord, acceleratorFromLabel, acceleratorLabel } from '../../electron/settings/accelerator';

/** What the field shows for the saved accelerator ('' for none). */
export function shortcutFieldText(saved: string, platform: string): string {
  return acceleratorLabel(saved, platform);
}

/**
 * The accelerator to save for what the field holds: the saved one when the text presses the same
 * keys here (so showing it as a label changes nothing), else the text in accelerator syntax.
 */
export function shortcutToSave(text: string, saved: string, platform: string): string {
  const typed = acceleratorFromLabel(text, platform);
  const a = acceleratorChord(typed, platform);
  const b = acceleratorChord(saved, platform);
  if (a && b && a.key === b.key && a.modifiers.join() === b.modifiers.join()) return saved;
  return typed;
}
