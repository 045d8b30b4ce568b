/**
 * Shortcuts the system or most programs already use on each platform, for a warning when the global
 * shortcut is one of them: registering may still work (macOS lets an app register Spotlight's keys)
 * and the user may not use the other one. Pure, like the parsing in electron/settings/accelerator.ts:
 * the window warns with it as the user types.
 */
import { acceleratorChord, shellPlatform, type ShellPlatform } from '../settings/accelerator';

interface KnownShortcut {
  platform: ShellPlatform;
  /** Whether a chord (its physical modifiers, sorted, and the key) is this one. */
  matches(mods: readonly string[], key: string): boolean;
  /** What else the keys are, read after "<label> is also". */
  is: string;
}

function exactly(platform: ShellPlatform, accelerator: string, is: string): KnownShortcut {
  const chord = acceleratorChord(accelerator, platform);
  if (!chord) throw new Error(`bad entry ${accelerator}: no shortcut on ${platform}`);
  const want = chordText(chord.modifiers, chord.key);
  return { platform, is, matches: (mods, key) => chordText(mods, key) === want };
}

function chordText(mods: readonly string[], key: string): string {
  return [...mods, key].join('+');
}

const only = (mods: readonly string[], ...want: string[]) => mods.length === want.length && want.every((m) => mods.includes(m));
const LETTER_OR_DIGIT = /^[A-Z0-9]$/;
const ARROWS = ['Up', 'Down', 'Left', 'Right'];
const PROGRAM_COMMANDS = 'how most programs take their own commands (Ctrl+C copies)';

const KNOWN: readonly KnownShortcut[] = [
  exactly('darwin', 'Command+Space', "Spotlight's shortcut"),
  exactly('darwin', 'Command+Alt+Space', "the shortcut of Finder's search window"),
  exactly('darwin', 'Control+Space', 'the shortcut that switches the input source'),
  exactly('darwin', 'Control+Alt+Space', 'the shortcut that selects the next input source'),
  exactly('darwin', 'Command+Tab', 'the app switcher'),
  exactly('darwin', 'Command+Shift+3', 'the screenshot shortcut'),
  exactly('darwin', 'Command+Shift+4', 'the shortcut for a screenshot of a selection'),
  exactly('darwin', 'Command+Shift+5', "the screenshot toolbar's shortcut"),
  exactly('darwin', 'Command+Control+Q', 'the shortcut that locks the screen'),
  exactly('darwin', 'Command+Alt+Escape', 'the Force Quit shortcut'),
  { platform: 'darwin', is: 'how most Mac apps take their own commands (Cmd+C copies)', matches: (m, k) => only(m, 'cmd') && LETTER_OR_DIGIT.test(k) },
  { platform: 'darwin', is: 'how a Mac types special characters (Option+E types ´)', matches: (m, k) => (only(m, 'alt') || only(m, 'alt', 'shift')) && k.length === 1 },
  exactly('win32', 'Alt+Space', 'the shortcut of the window menu'),
  exactly('win32', 'Alt+Tab', 'the window switcher'),
  exactly('win32', 'Alt+F4', 'the shortcut that closes the window in front'),
  exactly('win32', 'Control+Shift+Escape', "Task Manager's shortcut"),
  exactly('win32', 'Control+Escape', "the Start menu's shortcut"),
  { platform: 'win32', is: 'in the range Windows keeps for itself (Win+H is voice typing)', matches: (m) => m.includes('super') },
  { platform: 'win32', is: PROGRAM_COMMANDS, matches: (m, k) => only(m, 'ctrl') && LETTER_OR_DIGIT.test(k) },
  { platform: 'win32', is: 'the screen rotation shortcut of some graphics drivers', matches: (m, k) => only(m, 'alt', 'ctrl') && ARROWS.includes(k) },
  exactly('linux', 'Alt+Space', 'the shortcut of the window menu on GNOME and KDE'),
  exactly('linux', 'Alt+Tab', 'the window switcher'),
  exactly('linux', 'Alt+F2', "the run dialog's shortcut on GNOME and KDE"),
  exactly('linux', 'Alt+F4', 'the shortcut that closes the window in front'),
  exactly('linux', 'Control+Alt+T', "Ubuntu's shortcut for a terminal"),
  exactly('linux', 'Control+Alt+Delete', 'the shortcut that logs out'),
  exactly('linux', 'Control+Alt+L', 'the shortcut that locks the screen on some desktops'),
  { platform: 'linux', is: 'in the range the desktop keeps for itself (on GNOME and KDE, Super+Space switches the input source)', matches: (m) => m.includes('super') },
  { platform: 'linux', is: "GNOME's shortcut for switching workspaces", matches: (m, k) => only(m, 'alt', 'ctrl') && ARROWS.includes(k) },
  { platform: 'linux', is: 'the shortcut that switches to a text console', matches: (m, k) => only(m, 'alt', 'ctrl') && /^F([1-9]|1[0-2])$/.test(k) },
  { platform: 'linux', is: PROGRAM_COMMANDS, matches: (m, k) => only(m, 'ctrl') && LETTER_OR_DIGIT.test(k) },
];

/**
 * A warning when `accelerator` is a shortcut the system or most programs already use on
 * `platform`: registering may still succeed (macOS lets an app take Spotlight's keys), and then one
 * of the two does not get the keys. null when none is known. Not a refusal: the user may never use
 * the other one.
 */
export function shortcutConflict(accelerator: string, platform: string): string | null {
  const p = shellPlatform(platform);
  const chord = acceleratorChord(accelerator, p);
  if (!chord) return null;
  const known = KNOWN.find((k) => k.platform === p && k.matches(chord.modifiers, chord.key));
  return known ? `${chord.label} is also ${known.is}: one of the two will not get it. Choose another shortcut if that matters to you.` : null;
}
