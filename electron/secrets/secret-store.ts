/**
 * Where the LLM server's API key is kept, away from settings.json: the window never receives it and
 * no log or report contains it. The app keeps it encrypted with Electron's safeStorage
 * (electron/secrets/safe-storage.ts); `dev:web` and the tests, which have no Electron, keep it in a
 * file only its owner can read (OwnerOnlyFile). Both store one value: the key, or nothing.
 */
import { readFile, rm } from 'node:fs/promises';
import { UserError } from '../errors';
import { writeFileAtomic } from '../settings/file';

export interface SecretStore {
  /** How the key is protected, in words for the window ("encrypted with the system keychain"). */
  readonly protection: string;
  /** The key, or null when none is stored. An unreadable store is an error that says what to do. */
  get(): Promise<string | null>;
  /** Stores the key, or removes it (null or ''). */
  set(key: string | null): Promise<void>;
}

/** Encrypts and decrypts bytes; Electron's safeStorage in the app. */
export interface Cipher {
  /** Why encryption cannot be used here (no keyring), or null when it can. */
  unavailable(): string | null;
  encrypt(text: string): Uint8Array;
  decrypt(data: Uint8Array): string;
  readonly protection: string;
}

function errnoCode(e: unknown): string | undefined {
  return (e as { code?: string })?.code;
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    throw new UserError(`Cannot read the stored API key (${file}): ${(e as Error).message}. Enter the key again in Settings.`, 'secret-unreadable');
  }
}

/** The key as a file readable and writable by its owner only (mode 0600; on Windows, the user profile's ACLs). */
export class OwnerOnlyFile implements SecretStore {
  readonly protection = 'kept in a file only your user account can read';

  constructor(private readonly file: string) {}

  async get(): Promise<string | null> {
    const data = await readOrNull(this.file);
    const key = data?.toString('utf8').trim() ?? '';
    return key || null;
  }

  async set(key: string | null): Promise<void> {
    if (!key?.trim()) return rm(this.file, { force: true });
    await writeFileAtomic(this.file, key.trim(), 0o600);
  }
}

/** The key encrypted by a cipher (Electron's safeStorage: the OS keychain, DPAPI, or the desktop keyring). */
export class EncryptedFile implements SecretStore {
  constructor(
    private readonly file: string,
    private readonly cipher: Cipher,
  ) {}

  get protection(): string {
    return this.cipher.protection;
  }

  async get(): Promise<string | null> {
    const data = await readOrNull(this.file);
    if (!data) return null;
    try {
      return this.cipher.decrypt(data).trim() || null;
    } catch (e) {
      throw new UserError(
        `The stored API key cannot be decrypted (${(e as Error).message}); the system keyring may have changed. Enter the key again in Settings.`,
        'secret-unreadable',
      );
    }
  }

  async set(key: string | null): Promise<void> {
    if (!key?.trim()) return rm(this.file, { force: true });
    const why = this.cipher.unavailable();
    // Never fall back to plain text silently: the user decides, by knowing why.
    if (why) throw new UserError(`The API key cannot be stored encrypted here: ${why}. The key was not saved.`, 'secret-unavailable');
    await writeFileAtomic(this.file, this.cipher.encrypt(key.trim()), 0o600);
  }
}
