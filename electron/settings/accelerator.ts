/**
 * Electron accelerators ("CommandOrControl+Alt+Space") for the global shortcut: parsed, checked
 * against the rules a shortcut that works from every program must follow, written in one canonical
 * form and shown the way each platform writes shortcuts. Pure and free of Node and Electron imports:
 * the settings schema (which the renderer also imports) validates with it, and so does the window.
 * Registering the shortcut is electron/desktop/'s.
 */

/** The three desktop families Electron's shortcuts differ between (other Unixes behave like Linux). */
export type ShellPlatform = 'darwin' | 'win32' | 'linux';

export function shellPlatform(platform: string): ShellPlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/** Canonical modifier names, in the order the canonical string lists them. */
const MODIFIERS = ['CommandOrControl', 'Command', 'Control', 'Super', 'Alt', 'AltGr', 'Shift'] as const;
type Modifier = (typeof MODIFIERS)[number];

/** Every spelling Electron accepts (lower case), folded onto the canonical name; Option is macOS's Alt. */
const MODIFIER_NAMES: Readonly<Record<string, Modifier>> = {
  commandorcontrol: 'CommandOrControl',
  cmdorctrl: 'CommandOrControl',
  command: 'Command',
  cmd: 'Command',
  control: 'Control',
  ctrl: 'Control',
  super: 'Super',
  meta: 'Super',
  alt: 'Alt',
  option: 'Alt',
  altgr: 'AltGr',
  shift: 'Shift',
};

const MEDIA_KEYS = ['MediaNextTrack', 'MediaPreviousTrack', 'MediaStop', 'MediaPlayPause'] as const;

/** Named keys (lower case -> canonical), as Electron's accelerator documentation lists them. */
const NAMED_KEYS: ReadonlyMap<string, string> = new Map([
  ...['Plus', 'Space', 'Tab', 'Capslock', 'Numlock', 'Scrolllock', 'Backspace', 'Delete', 'Insert', 'Return', 'Up', 'Down', 'Left', 'Right',
    'Home', 'End', 'PageUp', 'PageDown', 'Escape', 'VolumeUp', 'VolumeDown', 'VolumeMute', ...MEDIA_KEYS, 'PrintScreen',
    'numdec', 'numadd', 'numsub', 'nummult', 'numdiv'].map((k): [string, string] => [k.toLowerCase(), k]),
  ['enter', 'Return'],
  ['esc', 'Escape'],
]);

/** The punctuation keys Electron takes as written (+ is the separator: it is spelled Plus). */
const PUNCTUATION = new Set([...")!@#$%^&*(:;=<,_->.?/~`{][|\\}\"'"]);

/** A key code in canonical form, or null when Electron does not know it. */
function canonicalKey(token: string): string | null {
  const lower = token.toLowerCase();
  if (/^[a-z0-9]$/.test(lower)) return lower.toUpperCase();
  if (token.length === 1 && PUNCTUATION.has(token)) return token;
  const f = /^f(\d{1,2})$/.exec(lower);
  if (f && Number(f[1]) >= 1 && Number(f[1]) <= 24 && !f[1]!.startsWith('0')) return `F${f[1]}`;
  if (/^num[0-9]$/.test(lower)) return lower;
  return NAMED_KEYS.get(lower) ?? null;
}

/** Keys that type nothing and that programs rarely bind, so they may stand alone: F13-F24 and the media keys. */
function mayStandAlone(key: string): boolean {
  const f = /^F(\d+)$/.exec(key);
  return (f !== null && Number(f[1]) >= 13) || (MEDIA_KEYS as readonly string[]).includes(key);
}

/** The physical modifier each canonical one means on a platform (null: no effect there). */
function physical(m: Modifier, p: ShellPlatform): string | null {
  switch (m) {
    case 'CommandOrControl':
      return p === 'darwin' ? 'cmd' : 'ctrl';
    case 'Command':
      return p === 'darwin' ? 'cmd' : null;
    case 'Super':
      return p === 'darwin' ? 'cmd' : 'super';
    case 'Control':
      return 'ctrl';
    case 'Alt':
      return 'alt';
    case 'AltGr':
      return 'altgr';
    case 'Shift':
      return 'shift';
  }
}

export const EXAMPLE_SHORTCUT = 'CommandOrControl+Alt+Space';
const FOR_EXAMPLE = `for example "${EXAMPLE_SHORTCUT}"`;
const MAX_LENGTH = 100;

interface Parsed {
  modifiers: Modifier[];
  key: string;
}

export type AcceleratorResult =
  /** `accelerator` '' (and label '') means no shortcut. */
  | { ok: true; accelerator: string; label: string }
  | { ok: false; error: string };

function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** Syntax and the rules that hold on every platform; the error is one sentence with an example. */
function parse(text: string): { ok: true; value: Parsed } | { ok: false; error: string } {
  const shown = quoted(text);
  if (text.length > MAX_LENGTH) return { ok: false, error: `${shown} is too long for a shortcut; use a few modifiers and one key, ${FOR_EXAMPLE}.` };
  const tokens = text.split('+').map((t) => t.trim());
  if (tokens.some((t) => t === '')) {
    return { ok: false, error: `${shown} has an empty part between the + signs; write the + key as Plus, for example "CommandOrControl+Alt+Plus".` };
  }
  const modifiers: Modifier[] = [];
  const keys: string[] = [];
  for (const token of tokens) {
    const modifier = MODIFIER_NAMES[token.toLowerCase()];
    if (modifier) {
      if (modifiers.includes(modifier)) return { ok: false, error: `${shown} names ${modifier} twice; give each modifier once, ${FOR_EXAMPLE}.` };
      modifiers.push(modifier);
      continue;
    }
    const key = canonicalKey(token);
    if (!key) {
      return {
        ok: false,
        error: `${shown}: ${quoted(token)} is not a key or modifier Electron knows; use a letter, a digit, F1-F24, Space or another key from Electron's list, ${FOR_EXAMPLE}.`,
      };
    }
    keys.push(key);
  }
  if (keys.length === 0) return { ok: false, error: `${shown} has no key; add one key after the modifiers, ${FOR_EXAMPLE}.` };
  if (keys.length > 1) return { ok: false, error: `${shown} has ${keys.length} keys (${keys.join(', ')}); a shortcut has exactly one key, ${FOR_EXAMPLE}.` };
  const key = keys[0]!;
  if (modifiers.includes('CommandOrControl') && (modifiers.includes('Command') || modifiers.includes('Control'))) {
    return { ok: false, error: `${shown} names CommandOrControl with Command or Control, the same key on one platform or another; keep one of them, ${FOR_EXAMPLE}.` };
  }
  // AltGr types characters on many layouts (AltGr+Q is @ on a German keyboard): it does not make a key safe to take.
  if (!mayStandAlone(key) && !modifiers.some((m) => m !== 'Shift' && m !== 'AltGr')) {
    return {
      ok: false,
      error: `${shown} has no modifier besides Shift or AltGr, so it would take ${key} from every program; add Ctrl, Alt, Cmd or Super, ${FOR_EXAMPLE}.`,
    };
  }
  modifiers.sort((a, b) => MODIFIERS.indexOf(a) - MODIFIERS.indexOf(b));
  return { ok: true, value: { modifiers, key } };
}

function canonical(p: Parsed): string {
  return [...p.modifiers, p.key].join('+');
}

/** How keys are written on Windows and Linux ("Ctrl+Alt+Space"). */
const PC_KEY_LABELS: Readonly<Record<string, string>> = {
  Return: 'Enter', Escape: 'Esc', PageUp: 'Page Up', PageDown: 'Page Down', Capslock: 'Caps Lock', Numlock: 'Num Lock', Scrolllock: 'Scroll Lock',
  Plus: '+', PrintScreen: 'Print Screen', VolumeUp: 'Volume Up', VolumeDown: 'Volume Down', VolumeMute: 'Mute',
  MediaPlayPause: 'Play/Pause', MediaNextTrack: 'Next Track', MediaPreviousTrack: 'Previous Track', MediaStop: 'Stop',
};
const MAC_KEY_LABELS: Readonly<Record<string, string>> = { ...PC_KEY_LABELS, Return: '↩', Escape: '⎋', Backspace: '⌫', Delete: '⌦', Tab: '⇥', Up: '↑', Down: '↓', Left: '←', Right: '→' };
const NUMPAD_LABELS: Readonly<Record<string, string>> = { numdec: 'Num .', numadd: 'Num +', numsub: 'Num -', nummult: 'Num *', numdiv: 'Num /' };

function keyLabel(key: string, p: ShellPlatform): string {
  if (/^num\d$/.test(key)) return `Num ${key.slice(3)}`;
  return NUMPAD_LABELS[key] ?? (p === 'darwin' ? MAC_KEY_LABELS : PC_KEY_LABELS)[key] ?? key;
}

/** Apple's order for modifier symbols: Control, Option, Shift, Command. */
const MAC_SYMBOLS: ReadonlyArray<[string, string]> = [['ctrl', '⌃'], ['alt', '⌥'], ['altgr', '⌥'], ['shift', '⇧'], ['cmd', '⌘']];
const PC_NAMES: ReadonlyArray<[string, string]> = [['ctrl', 'Ctrl'], ['super', 'Super'], ['alt', 'Alt'], ['altgr', 'AltGr'], ['shift', 'Shift']];

function label(p: Parsed, platform: ShellPlatform): string {
  const held = new Set(p.modifiers.map((m) => physical(m, platform)));
  if (platform === 'darwin') return MAC_SYMBOLS.filter(([m]) => held.has(m)).map(([, s]) => s).join('') + keyLabel(p.key, platform);
  const names = PC_NAMES.filter(([m]) => held.has(m)).map(([m, name]) => (m === 'super' && platform === 'win32' ? 'Win' : name));
  return [...names, keyLabel(p.key, platform)].join('+');
}

/**
 * Text written the way `platform` shows shortcuts ("Ctrl+Alt+Space", "Win+K", "⌥⌘Space", "⌃⇧Page Up")
 * back in accelerator syntax, so the field can show labels and still take what is typed into it.
 * Text that is no such label comes back as it is, for parseAccelerator to check (and explain).
 */
export function acceleratorFromLabel(text: string, platform: string): string {
  const p = shellPlatform(platform);
  const trimmed = text.trim();
  if (trimmed === '' || parse(trimmed).ok) return trimmed;
  const keyOf = (shown: string): string | null => {
    if (canonicalKey(shown)) return shown;
    const labels = { ...(p === 'darwin' ? MAC_KEY_LABELS : PC_KEY_LABELS), ...NUMPAD_LABELS };
    const found = Object.entries(labels).find(([, l]) => l.toLowerCase() === shown.toLowerCase());
    if (found) return found[0];
    const num = /^Num (\d)$/i.exec(shown);
    return num ? `num${num[1]}` : null;
  };
  let modifiers: string[] = [];
  let rest = trimmed;
  if (p === 'darwin') {
    // Symbols first, then the key, with no separator: "⌥⌘Space".
    const names: Readonly<Record<string, string>> = { '⌃': 'Control', '⌥': 'Alt', '⇧': 'Shift', '⌘': 'Command' };
    while (rest && names[rest[0]!]) {
      modifiers.push(names[rest[0]!]!);
      rest = rest.slice(1).trim();
    }
  } else {
    // "Ctrl++" is Ctrl with the + key; "Win" is how Windows names Super.
    const parts = rest.endsWith('++') ? [...rest.slice(0, -2).split('+'), '+'] : rest.split('+');
    rest = parts.pop()!.trim();
    modifiers = parts.map((m) => (/^win$/i.test(m.trim()) ? 'Super' : m.trim()));
  }
  const key = keyOf(rest);
  return key && modifiers.length > 0 ? [...modifiers, key].join('+') : trimmed;
}

/** The rules one platform adds: modifiers it lacks, and two names for one key there. */
function platformError(text: string, p: Parsed, platform: ShellPlatform): string | null {
  const where = platform === 'win32' ? 'Windows' : 'Linux';
  if (platform !== 'darwin' && p.modifiers.includes('Command')) {
    return `${quoted(text)} uses Command, which has no effect on ${where}; use CommandOrControl (Ctrl here, Cmd on a Mac), ${FOR_EXAMPLE}.`;
  }
  const seen = new Map<string, Modifier>();
  for (const m of p.modifiers) {
    const key = physical(m, platform);
    const before = key ? seen.get(key) : undefined;
    if (before) return `${quoted(text)} names ${before} and ${m}, which are the same key on ${platform === 'darwin' ? 'macOS' : where}; keep one of them, ${FOR_EXAMPLE}.`;
    if (key) seen.set(key, m);
  }
  return null;
}

/**
 * Parses a global shortcut for `platform`: its canonical accelerator (what is registered and
 * stored) and its label there ("Ctrl+Alt+Space" on Windows and Linux, "⌥⌘Space" on macOS), or why
 * it cannot be one. Case and spacing do not matter; '' (or only spaces) means no shortcut.
 */
export function parseAccelerator(text: string, platform: string): AcceleratorResult {
  const p = shellPlatform(platform);
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, accelerator: '', label: '' };
  const parsed = parse(trimmed);
  if (!parsed.ok) return parsed;
  const error = platformError(trimmed, parsed.value, p);
  return error ? { ok: false, error } : { ok: true, accelerator: canonical(parsed.value), label: label(parsed.value, p) };
}

/** The label of an accelerator on `platform`, or the text itself when it does not parse ('' stays ''). */
export function acceleratorLabel(accelerator: string, platform: string): string {
  const r = parseAccelerator(accelerator, platform);
  return r.ok ? r.label : accelerator;
}

/**
 * The settings leaf: the rules that hold on every platform (a settings file may move between
 * machines; the shell checks the rest when it registers). Stores the canonical form.
 */
export function checkShortcutSetting(value: unknown): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: `must be a shortcut as text, ${FOR_EXAMPLE}, or "" for none` };
  const trimmed = value.trim();
  if (trimmed === '') return { ok: true, value: '' };
  const parsed = parse(trimmed);
  return parsed.ok ? { ok: true, value: canonical(parsed.value) } : { ok: false, message: `is not a usable shortcut: ${parsed.error}` };
}

function physicalModifiers(p: Parsed, platform: ShellPlatform): string[] {
  return p.modifiers.map((m) => physical(m, platform)).filter((m): m is string => m !== null).sort();
}

/**
 * The keys a shortcut presses on `platform`: its physical modifiers ('alt', 'altgr', 'cmd', 'ctrl',
 * 'shift', 'super'; sorted), its key and its label there. null when it is no shortcut there ('' included).
 */
export function acceleratorChord(text: string, platform: string): { modifiers: string[]; key: string; label: string } | null {
  const p = shellPlatform(platform);
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const parsed = parse(trimmed);
  if (!parsed.ok || platformError(trimmed, parsed.value, p)) return null;
  return { modifiers: physicalModifiers(parsed.value, p), key: parsed.value.key, label: label(parsed.value, p) };
}
