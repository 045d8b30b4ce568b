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
import { withoutSecrets } from '../settings/schema';
import { messageOf } from '../errors';

/** The key file's name in the data folder (dev:web; the app's safeStorage store names its own). */
export const API_KEY_FILE = 'llm-api-key';

/** How long "test connection" waits for the server (a cold Ollama loads the model first). */
const SERVER_TEST_TIMEOUT_MS = 60_000;

export interface KeyStatus {
  stored: boolean;
  protection: string;
}

export class ServerAccess {
  constructor(
    private readonly secrets: SecretStore,
    private readonly settings: SettingsStore,
    /** A failure to show in the window (kept for a window that connects later). */
    private readonly notice: (level: 'info' | 'error', message: string, keep?: boolean) => void,
    private readonly fetch?: FetchFunction,
  ) {}

  /** The key from its store; an unreadable store is shown, and the server is then asked without one. */
  async key(): Promise<string | null> {
    try {
      return await this.secrets.get();
    } catch (err) {
      this.notice('error', messageOf(err, 'Could not read the API key'), true);
      return null;
    }
  }

  /** Whether a key is stored (an unreadable store counts as none; `key()` reports it when it is needed). */
  async status(): Promise<KeyStatus> {
    let stored = false;
    try {
      stored = (await this.secrets.get()) !== null;
    } catch {
      // reported by key() when the key is needed
    }
    return { stored, protection: this.secrets.protection };
  }

  /** A key written into settings.json by hand goes to the key store, and out of the file. */
  async moveOutOfSettings(): Promise<void> {
    const key = this.settings.current.llm.server.apiKey;
    if (key === undefined) return;
    try {
      if (key) await this.secrets.set(key);
      await this.settings.replace(withoutSecrets(this.settings.current));
      if (key) this.notice('info', `The API key found in settings.json was moved out of it: it is now ${this.secrets.protection}.`);
    } catch (err) {
      this.notice('error', messageOf(err, 'Could not move the API key out of settings.json'), true);
    }
  }

  /** Stores the key, or removes it (null or ''); the error in words when the store refuses. */
  async store(key: string | null): Promise<string | null> {
    const problem = key === null ? null : apiKeyProblem(key.trim());
    if (problem) return problem;
    try {
      await this.secrets.set(key === null ? null : key.trim());
      return null;
    } catch (err) {
      return messageOf(err, 'Could not store the API key');
    }
  }

  /** The server at `baseUrl` (default: the settings'), with the stored key. */
  private async target(baseUrl: string | undefined, model: string | undefined): Promise<OpenAiLlmOptions> {
    const server = this.settings.current.llm.server;
    const key = await this.secrets.get();
    return { baseUrl: baseUrl ?? server.baseUrl, model: model ?? server.model, ...(key ? { apiKey: key } : {}), ...(this.fetch ? { fetch: this.fetch } : {}) };
  }

  async models(baseUrl: string | undefined): Promise<Responses['llm-server-models']> {
    try {
      const t = await this.target(baseUrl, undefined);
      return { ok: true, models: await listModels(t.baseUrl, t.apiKey, t.fetch) };
    } catch (err) {
      return { ok: false, error: messageOf(err, "Could not list the server's models") };
    }
  }

  async test(baseUrl: string | undefined, model: string | undefined): Promise<Responses['llm-server-test']> {
    try {
      const t = await this.target(baseUrl, model);
      if (!t.model) return { ok: false, error: 'Choose a model first: the test asks it for one word.' };
      return { ok: true, ...(await testConnection({ ...t, timeoutMs: SERVER_TEST_TIMEOUT_MS })) };
    } catch (err) {
      return { ok: false, error: messageOf(err, 'The connection test failed') };
    }
  }
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
