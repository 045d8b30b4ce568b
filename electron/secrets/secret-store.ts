/**
 * Where the LLM server's API key is kept, away from settings.json: the window never receives it and
 * no log or report contains it. The app keeps it encrypted with Electron's safeStorage
 * (electron/secrets/safe-storage.ts); `dev:web` and the tests, which have no Electron, keep it in a
 * file only its owner can read (OwnerOnlyFile). Both store one value: the key, or nothing.
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { UserError } from '../errors';
import { writeFileAtomic } from '../settings/file';
import { decodeBoundKey } from './bound-key';

export interface SecretStore {
  /** How the key is protected, in words for the window ("encrypted with the system keychain"). */
  readonly protection: string;
  /**
   * Whether a key is stored and the server it is for, without decrypting it: the app's start never
   * waits on the keychain (a locked keyring or an unsigned build's Keychain prompt would block it).
   */
  peek(): Promise<{ stored: boolean; for: string | null }>;
  /** The key as stored (see bound-key.ts), or null when none is. An unreadable store is an error that says what to do. */
  get(): Promise<string | null>;
  /** Stores the key (bound-key.ts's text), or removes it (null or ''). */
  set(key: string | null): Promise<void>;
}

/** Encrypts and decrypts text: Electron's safeStorage (its asynchronous API) in the app. */
export interface Cipher {
  /** Why encryption cannot be used here (no keyring), or null when it can. */
  unavailable(): Promise<string | null>;
  encrypt(text: string): Promise<Uint8Array>;
  /** `reEncrypt`: the system rotated its key; the text should be encrypted again. */
  decrypt(data: Uint8Array): Promise<{ text: string; reEncrypt: boolean }>;
  readonly protection: string;
}

/** What a store holds, in its errors: the API key, or the MCP servers' environment values. */
export interface SecretLabel {
  /** "API key", "MCP servers' environment values" (after "the stored") */
  what: string;
  /** What the user does when it is lost: "Enter the key again in Settings." */
  redo: string;
  /** When it cannot be stored: "The key was not saved." */
  unsaved: string;
}

const API_KEY_LABEL: SecretLabel = { what: 'API key', redo: 'Enter the key again in Settings.', unsaved: 'The key was not saved.' };

function errnoCode(e: unknown): string | undefined {
  return (e as { code?: string })?.code;
}

/** No key store is anywhere near this: a bigger file is not one (and is not read whole). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

async function readOrNull(file: string, label: SecretLabel): Promise<Buffer | null> {
  try {
    const s = await stat(file);
    if (s.size > MAX_SECRET_FILE_BYTES) throw new Error(`it is ${s.size} bytes, not a stored key`);
    return await readFile(file);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    throw new UserError(`Cannot read the stored ${label.what} (${file}): ${(e as Error).message}. ${label.redo}`, 'secret-unreadable');
  }
}

/** The key as a file readable and writable by its owner only (mode 0600; on Windows, the user profile's ACLs). */
export class OwnerOnlyFile implements SecretStore {
  readonly protection = 'kept in a file only your user account can read';

  constructor(
    private readonly file: string,
    private readonly label: SecretLabel = API_KEY_LABEL,
  ) {}

  async peek(): Promise<{ stored: boolean; for: string | null }> {
    const stored = await this.get();
    return { stored: stored !== null, for: stored === null ? null : decodeBoundKey(stored).baseUrl };
  }

  async get(): Promise<string | null> {
    const data = await readOrNull(this.file, this.label);
    const key = data?.toString('utf8').trim() ?? '';
    return key || null;
  }

  async set(key: string | null): Promise<void> {
    if (!key?.trim()) return rm(this.file, { force: true });
    await writeFileAtomic(this.file, key.trim(), 0o600);
  }
}

/**
 * The key encrypted by a cipher (Electron's safeStorage: the OS keychain, DPAPI, or the desktop
 * keyring). The file starts with a line naming the server the key is for, in the clear (an address
 * is no secret), so the window can say so without a decryption; the rest is the cipher's output.
 * A file from before that line is still read, and rewritten with it once decrypted.
 */
export class EncryptedFile implements SecretStore {
  constructor(
    private readonly file: string,
    private readonly cipher: Cipher,
    private readonly label: SecretLabel = API_KEY_LABEL,
  ) {}

  get protection(): string {
    return this.cipher.protection;
  }

  async peek(): Promise<{ stored: boolean; for: string | null }> {
    const data = await readOrNull(this.file, this.label);
    return data ? { stored: true, for: splitHeader(data).for } : { stored: false, for: null };
  }

  async get(): Promise<string | null> {
    const data = await readOrNull(this.file, this.label);
    if (!data) return null;
    const { for: labelled, body } = splitHeader(data);
    let text: string;
    let reEncrypt: boolean;
    try {
      ({ text, reEncrypt } = await this.cipher.decrypt(body));
    } catch (e) {
      throw new UserError(
        `The stored ${this.label.what} cannot be decrypted (${(e as Error).message}); the system keyring may have changed. ${this.label.redo}`,
        'secret-unreadable',
      );
    }
    const key = text.trim() || null;
    // A rotated system key, or a file from before the header: written again, best effort.
    if (key && (reEncrypt || labelled === null)) await this.set(key).catch(() => undefined);
    return key;
  }

  async set(key: string | null): Promise<void> {
    if (!key?.trim()) return rm(this.file, { force: true });
    const why = await this.cipher.unavailable();
    // Never fall back to plain text silently: the user decides, by knowing why.
    if (why) throw new UserError(`The ${this.label.what} cannot be stored encrypted here: ${why}. ${this.label.unsaved}`, 'secret-unavailable');
    const bound = decodeBoundKey(key.trim());
    const header = Buffer.from(`${HEADER}${bound.baseUrl === null ? '' : encodeURIComponent(bound.baseUrl)}\n`, 'utf8');
    await writeFileAtomic(this.file, Buffer.concat([header, await this.cipher.encrypt(key.trim())]), 0o600);
  }
}

/** The clear first line of an encrypted key file; old files have none (their first bytes are the cipher's). */
const HEADER = 'local-voice-assistant api-key for=';

function splitHeader(data: Buffer): { for: string | null; body: Buffer } {
  const head = Buffer.from(HEADER, 'utf8');
  if (data.length < head.length || !data.subarray(0, head.length).equals(head)) return { for: null, body: data };
  const end = data.indexOf(0x0a, head.length);
  if (end < 0) return { for: null, body: data };
  let label: string | null;
  try {
    label = decodeURIComponent(data.subarray(head.length, end).toString('utf8')) || null;
  } catch {
    label = null;
  }
  return { for: label, body: data.subarray(end + 1) };
}
