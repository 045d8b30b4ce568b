/**
 * Settings on disk: a read-only loader for the CLI (`--settings FILE`) and a
 * persistent store for the app (settings.json in the user data dir).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors';
import { DEFAULT_SETTINGS, formatSettingsErrors, freezeSettings, validateSettings, type Settings } from './schema';
import { takeSecrets, type FoundKey } from './secrets-in-text';
import { jsonSyntaxError } from './json-error';

/** A settings file is a few kB; a larger one is not read (it would be held whole, and parsed). */
export const MAX_SETTINGS_BYTES = 1024 * 1024;
/** A larger file is moved aside without being read at all (no API key can be taken out of it). */
const MAX_SCRUBBED_BYTES = 64 * 1024 * 1024;

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
    // Line and column, as an editor shows them, rather than JSON.parse's "position 34".
    const at = jsonSyntaxError(body);
    const where = at ? `line ${at.line}, column ${at.column}: ${at.message}` : (e as Error).message;
    return { ok: false, code: 'settings-invalid-json', reason: `is not valid JSON (${where})` };
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

export interface LoadResult {
  settings: Settings;
  notice?: string;
  /** An API key found in a file that could not be used: for the key store, never for a backup. */
  foundKey?: FoundKey;
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
  load(): Promise<LoadResult> {
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

  private async loadNow(): Promise<LoadResult> {
    let text: string;
    try {
      const size = (await stat(this.filePath)).size;
      if (size > MAX_SETTINGS_BYTES) {
        // Not used, but read to take any API key out of the backup, unless it is too large even for that.
        const why = `is ${Math.round(size / 1024)} kB, far more than settings need (at most ${MAX_SETTINGS_BYTES / 1024} kB), so it was not used`;
        return await this.setAside(why, size > MAX_SCRUBBED_BYTES ? null : await readFile(this.filePath, 'utf8'));
      }
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

    return this.setAside(parsed.code === 'invalid-settings' ? `had invalid settings (${parsed.reason})` : parsed.reason, text);
  }

  /**
   * A file that cannot be used: kept aside as a backup (its API key taken out of it, for the caller
   * to move to the key store), and the defaults saved in its place. `text` null: too large even to
   * scrub, so it is moved aside whole.
   */
  private async setAside(reason: string, text: string | null): Promise<LoadResult> {
    const what = `Your settings file ${this.filePath} ${reason}`;
    this.settings = DEFAULT_SETTINGS;
    this.loaded = true;
    const found = text === null ? null : takeSecrets(text);
    let backup: string;
    try {
      backup = await this.backUp(found?.text ?? null);
    } catch (e) {
      // Without a backup the broken file is left in place rather than destroyed.
      return { settings: this.settings, notice: `${what}. It could not be backed up (${(e as Error).message}), so it was left as is; the defaults are in use.` };
    }
    try {
      await this.write(DEFAULT_SETTINGS);
    } catch (e) {
      return { settings: this.settings, notice: `${what}. It was backed up to ${backup}, but the defaults could not be saved (${(e as Error).message}); the defaults are in use.` };
    }
    const key = found?.key ? ' The API key in it was taken out of the backup.' : '';
    const env = found?.envTaken ? " The MCP servers' environment values in it were taken out of the backup: enter them again." : '';
    return { settings: this.settings, notice: `${what}. It was kept as ${backup} and the settings were reset to the defaults.${key}${env}`, ...(found?.key ? { foundKey: found.key } : {}) };
  }

  /**
   * Writes `text` (the file with its secrets taken out) to a fresh `<file>.corrupt-<timestamp>`
   * name, then removes the file; null moves the file there as it is. Never overwrites an earlier backup.
   */
  private async backUp(text: string | null): Promise<string> {
    // No ':' in the name: it is not allowed in Windows file names.
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let n = 0; ; n++) {
      const backup = `${this.filePath}.corrupt-${stamp}${n ? `-${n}` : ''}`;
      try {
        if (text === null) {
          await stat(backup).then(
            () => Promise.reject(Object.assign(new Error('exists'), { code: 'EEXIST' })),
            () => undefined,
          );
          await rename(this.filePath, backup);
        } else {
          await writeFile(backup, text, { flag: 'wx', mode: 0o600 });
        }
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
