/**
 * Settings on disk: a read-only loader for the CLI (`--settings FILE`) and a
 * persistent store for the app (settings.json in the user data dir).
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors';
import { DEFAULT_SETTINGS, formatSettingsErrors, freezeSettings, validateSettings, type Settings } from './schema';

const EXAMPLE = '{"endpointing": {"silenceMs": 300}}';

type Parsed = { ok: true; settings: Settings } | { ok: false; code: string; reason: string };

/** Parses and validates file text; `reason` reads after "<file> ..." / inside a notice. */
function parseSettingsText(text: string): Parsed {
  // Editors on Windows like to add a BOM, which JSON.parse rejects.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return { ok: false, code: 'settings-invalid-json', reason: `is empty; it must hold a JSON object such as ${EXAMPLE}` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return { ok: false, code: 'settings-invalid-json', reason: `is not valid JSON (${(e as Error).message})` };
  }
  const result = validateSettings(json);
  if (!result.ok) return { ok: false, code: 'invalid-settings', reason: formatSettingsErrors(result.errors) };
  return { ok: true, settings: result.value };
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/**
 * For the CLI: reads a partial settings JSON file and merges it over the
 * defaults. Any problem is one UserError that lists every invalid field.
 */
export async function loadSettingsFile(path: string): Promise<Settings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') {
      throw new UserError(`Settings file not found: ${path}. Check the path given to --settings.`, 'settings-file-not-found');
    }
    throw new UserError(`Cannot read settings file ${path}: ${(e as Error).message}`, 'settings-file-unreadable');
  }
  const parsed = parseSettingsText(text);
  if (parsed.ok) return parsed.settings;
  if (parsed.code === 'invalid-settings') throw new UserError(`Invalid settings in ${path}: ${parsed.reason}`, parsed.code);
  throw new UserError(`Settings file ${path} ${parsed.reason}`, parsed.code);
}

/**
 * For the app: the user's settings, persisted as a complete JSON object.
 * Operations run one at a time (each sees the previous one's result), so
 * concurrent updates from the UI never lose each other's changes.
 */
export class SettingsStore {
  private settings: Settings = DEFAULT_SETTINGS;
  private loaded = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly filePath: string) {}

  /** The settings in effect (frozen; defaults until `load` has run). */
  get current(): Settings {
    return this.settings;
  }

  /**
   * Reads the file. Missing -> defaults (written on first change). Corrupt or
   * hand-broken -> kept as `<file>.corrupt-<timestamp>`, replaced by the
   * defaults, and `notice` tells the user what was wrong and where the backup is.
   */
  load(): Promise<{ settings: Settings; notice?: string }> {
    return this.serialize(() => this.loadNow());
  }

  /** Validates `patch` (a partial settings object) over the current settings and saves the result. Invalid -> UserError, nothing written. */
  update(patch: unknown): Promise<Settings> {
    return this.serialize(async () => {
      // Updating before loading would overwrite the saved settings with defaults + patch.
      if (!this.loaded) throw new Error('SettingsStore.update() called before load()');
      const result = validateSettings(patch, this.settings);
      if (!result.ok) throw new UserError(`Invalid settings: ${formatSettingsErrors(result.errors)}`, 'invalid-settings');
      await this.write(result.value);
      this.settings = freezeSettings(result.value);
      return this.settings;
    });
  }

  /** Saves `settings` whole (already valid: read from this store and changed in code). */
  replace(settings: Settings): Promise<Settings> {
    return this.serialize(async () => {
      await this.write(settings);
      this.settings = freezeSettings(settings);
      this.loaded = true;
      return this.settings;
    });
  }

  /** Back to the defaults, saved. */
  reset(): Promise<Settings> {
    return this.serialize(async () => {
      await this.write(DEFAULT_SETTINGS);
      this.settings = DEFAULT_SETTINGS;
      this.loaded = true;
      return this.settings;
    });
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    // A failed operation must not block the ones queued after it.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async loadNow(): Promise<{ settings: Settings; notice?: string }> {
    let text: string;
    try {
      text = await readFile(this.filePath, 'utf8');
    } catch (e) {
      this.settings = DEFAULT_SETTINGS;
      this.loaded = true;
      if (errnoCode(e) === 'ENOENT') return { settings: this.settings };
      // Unreadable (permissions, a folder in the way): nothing to back up; saving later reports its own error.
      return { settings: this.settings, notice: `Could not read your settings (${this.filePath}: ${(e as Error).message}); using the defaults.` };
    }

    const parsed = parseSettingsText(text);
    if (parsed.ok) {
      this.settings = freezeSettings(parsed.settings);
      this.loaded = true;
      return { settings: this.settings };
    }

    const what = `Your settings file ${this.filePath} ${parsed.code === 'invalid-settings' ? `had invalid settings (${parsed.reason})` : parsed.reason}`;
    this.settings = DEFAULT_SETTINGS;
    this.loaded = true;
    let backup: string;
    try {
      backup = await this.backUp();
    } catch (e) {
      // Without a backup the broken file is left in place rather than destroyed.
      return { settings: this.settings, notice: `${what}. It could not be backed up (${(e as Error).message}), so it was left as is; the defaults are in use.` };
    }
    try {
      await this.write(DEFAULT_SETTINGS);
    } catch (e) {
      return { settings: this.settings, notice: `${what}. It was backed up to ${backup}, but the defaults could not be saved (${(e as Error).message}); the defaults are in use.` };
    }
    return { settings: this.settings, notice: `${what}. It was kept as ${backup} and the settings were reset to the defaults.` };
  }

  /** Copies the file to a fresh `<file>.corrupt-<timestamp>` name; never overwrites an earlier backup. */
  private async backUp(): Promise<string> {
    // No ':' in the name: it is not allowed in Windows file names.
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let n = 0; ; n++) {
      const backup = `${this.filePath}.corrupt-${stamp}${n ? `-${n}` : ''}`;
      try {
        await copyFile(this.filePath, backup, constants.COPYFILE_EXCL);
        return backup;
      } catch (e) {
        if (errnoCode(e) !== 'EEXIST' || n >= 100) throw e;
      }
    }
  }

  private async write(settings: Settings): Promise<void> {
    try {
      await writeFileAtomic(this.filePath, `${JSON.stringify(settings, null, 2)}\n`);
    } catch (e) {
      throw new UserError(`Could not save settings to ${this.filePath}: ${(e as Error).message}`, 'settings-write-failed');
    }
  }
}

/**
 * Atomic replace: a crash leaves either the old file or the new one, never a torn one, and no temp
 * file behind on failure. Settings and timers are both stored this way.
 */
export async function writeFileAtomic(file: string, text: string | Uint8Array, mode?: number): Promise<void> {
  const dir = dirname(file);
  // Same dir as the target, so the rename cannot cross file systems.
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    // The mode applies from creation: a secret is never readable by others, not even for a moment.
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dir);
}

/** Makes the rename itself durable; not supported on Windows, where it is skipped. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the data is already written; only durability across a power cut is at stake.
  }
}
