/**
 * The controller's side of the LLM server: the API key's store (the key is read here and handed to
 * the engine or a request, never to the window), a key left in settings.json moved out of it, and the
 * window's "list models" and "test connection" requests, answered as values.
 */
import type { FetchFunction } from '../../native-models/downloader';
import { apiKeyProblem } from '../secrets/api-key-shape';
import { listModels, testConnection, type OpenAiLlmOptions } from '../engines/openai-llm';
import type { Responses } from '../ipc-contract';
import type { SecretStore } from '../secrets/secret-store';
import type { SettingsStore } from '../settings/file';
import { withoutApiKey } from '../settings/schema';
import type { FoundKey } from '../settings/secrets-in-text';
import { isUserError, messageOf } from '../errors';
import { LLM_SERVER_ERROR } from '../engines/openai-errors';
import { decodeBoundKey, encodeBoundKey, sameServer, serverIdentity, type BoundKey } from '../secrets/bound-key';

/** The key file's name in the data folder (dev:web; the app's safeStorage store names its own). */
export const API_KEY_FILE = 'llm-api-key';

/** How long "test connection" waits for the server (a cold Ollama loads the model first). */
const SERVER_TEST_TIMEOUT_MS = 60_000;

export interface KeyStatus {
  stored: boolean;
  protection: string;
  /** The server the key is for (it is sent nowhere else); null when none is stored or it predates that. */
  for: string | null;
}

export class ServerAccess {
  constructor(
    private readonly secrets: SecretStore,
    private readonly settings: SettingsStore,
    /** A failure to show in the window (kept for a window that connects later). */
    private readonly notice: (level: 'info' | 'error', message: string, keep?: boolean) => void,
    private readonly fetch?: FetchFunction,
  ) {}

  /** The stored key and its server; an unreadable store is shown, and counts as none. */
  private async bound(report = true): Promise<BoundKey | null> {
    try {
      const stored = await this.secrets.get();
      return stored === null ? null : decodeBoundKey(stored);
    } catch (err) {
      if (report) this.notice('error', messageOf(err, 'Could not read the API key'), true);
      return null;
    }
  }

  /** Where a key is for: its own address, or (stored before keys had one) the server in settings. */
  private ownerOf(b: BoundKey): string {
    return b.baseUrl ?? this.settings.current.llm.server.baseUrl;
  }

  /** The key for the server at `baseUrl` (default: the settings'); null when none is stored for it. */
  async key(baseUrl = this.settings.current.llm.server.baseUrl): Promise<string | null> {
    const b = await this.bound();
    return b && sameServer(this.ownerOf(b), baseUrl) ? b.key : null;
  }

  /**
   * Whether a key is stored, and for which server, without decrypting it (the keychain is asked only
   * when the key is used). An unreadable store counts as none; `key()` reports it when it is needed.
   */
  async status(): Promise<KeyStatus> {
    const peeked = await this.secrets.peek().catch(() => ({ stored: false, for: null }));
    if (!peeked.stored) return { stored: false, protection: this.secrets.protection, for: null };
    // A key stored before keys had an address is for the server in settings (see ownerOf).
    return { stored: true, protection: this.secrets.protection, for: serverIdentity(peeked.for ?? this.settings.current.llm.server.baseUrl) };
  }

  /**
   * A key written into settings.json by hand goes to the key store, for the server in that file, and
   * out of the file; so does one found in a file that could not be used (`found`), which is lost otherwise.
   */
  async moveOutOfSettings(found?: FoundKey): Promise<void> {
    const { apiKey, baseUrl } = this.settings.current.llm.server;
    const key = apiKey ?? found?.key;
    if (key === undefined) return;
    const owner = serverIdentity(apiKey !== undefined ? baseUrl : (found?.baseUrl ?? ''));
    try {
      if (key) await this.secrets.set(encodeBoundKey({ key, baseUrl: owner }));
      if (apiKey !== undefined) await this.settings.replace(withoutApiKey(this.settings.current));
      if (key) this.notice('info', `The API key found in settings.json was moved out of it: it is now ${this.secrets.protection}.`);
    } catch (err) {
      this.notice('error', messageOf(err, 'Could not move the API key out of settings.json'), true);
    }
  }

  /**
   * Stores the key for the server at `baseUrl` (default: the settings'), or removes it (null or '');
   * the error in words when the key or the address is refused, or the store is.
   */
  async store(key: string | null, baseUrl?: string): Promise<string | null> {
    const clean = key?.trim() || null;
    const problem = clean === null ? null : apiKeyProblem(clean);
    if (problem) return problem;
    const owner = serverIdentity(baseUrl?.trim() || this.settings.current.llm.server.baseUrl);
    if (clean !== null && owner === null) return "Enter the server's address first: a key is kept for the address it was entered for, and sent only there.";
    try {
      await this.secrets.set(clean === null ? null : encodeBoundKey({ key: clean, baseUrl: owner }));
      return null;
    } catch (err) {
      return messageOf(err, 'Could not store the API key');
    }
  }

  /** The server at `baseUrl` (default: the settings'), with the key stored for it, if any. */
  private async target(baseUrl: string | undefined, model: string | undefined): Promise<{ options: OpenAiLlmOptions; elsewhere: string | null }> {
    const server = this.settings.current.llm.server;
    const address = baseUrl ?? server.baseUrl;
    const b = await this.bound();
    const key = b && sameServer(this.ownerOf(b), address) ? b.key : null;
    const options = { baseUrl: address, model: model ?? server.model, ...(key ? { apiKey: key } : {}), ...(this.fetch ? { fetch: this.fetch } : {}) };
    return { options, elsewhere: b && !key ? serverIdentity(this.ownerOf(b)) : null };
  }

  async models(baseUrl: string | undefined): Promise<Responses['llm-server-models']> {
    const { options: t, elsewhere } = await this.target(baseUrl, undefined);
    try {
      return { ok: true, models: await listModels(t.baseUrl, t.apiKey, t.fetch) };
    } catch (err) {
      return { ok: false, error: withKeyNote(messageOf(err, "Could not list the server's models"), err, elsewhere) };
    }
  }

  async test(baseUrl: string | undefined, model: string | undefined): Promise<Responses['llm-server-test']> {
    const { options: t, elsewhere } = await this.target(baseUrl, model);
    if (!t.model) return { ok: false, error: 'Choose a model first: the test asks it for one word.' };
    try {
      return { ok: true, ...(await testConnection({ ...t, timeoutMs: SERVER_TEST_TIMEOUT_MS })) };
    } catch (err) {
      return { ok: false, error: withKeyNote(messageOf(err, 'The connection test failed'), err, elsewhere) };
    }
  }
}

/** A server that wants a key, while the stored one is for another: why it was not sent. */
function withKeyNote(message: string, err: unknown, elsewhere: string | null): string {
  if (!elsewhere || !isUserError(err) || err.code !== LLM_SERVER_ERROR.auth) return message;
  return `${message} The stored key is for ${elsewhere} and is sent only there: enter this server's key, and it will be kept for this address.`;
}

/** Splits a settings patch into its API key (undefined when it has none) and the rest. */
export function takeKey(patch: unknown): { key: string | null | undefined; rest: unknown } {
  const llm = (patch as { llm?: unknown })?.llm;
  const server = (llm as { server?: unknown })?.server;
  if (typeof server !== 'object' || server === null || !('apiKey' in server)) return { key: undefined, rest: patch };
  const { apiKey, ...otherServer } = server as Record<string, unknown>;
  // Anything but text or null stays in the patch, for validation to refuse (without echoing it).
  if (typeof apiKey !== 'string' && apiKey !== null) return { key: undefined, rest: patch };
  const rest = { ...(patch as object), llm: { ...(llm as object), server: otherServer } };
  return { key: apiKey, rest };
}
