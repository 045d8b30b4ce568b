/**
 * The MCP servers' environment values, kept away from settings.json as the API key is: one secret
 * store (`mcp-env` beside the key's; encrypted with safeStorage in the app, an owner-only file in
 * dev:web) holds `{server name: {VARIABLE: value}}` as JSON. settings.json keeps each variable's
 * name with "" as its value, and "" in a patch or in the file means "the value already stored". The
 * window never receives a value; the values are read only to start a server.
 */
import { messageOf, UserError } from '../errors';
import type { SettingsStore } from '../settings/file';
import type { SecretLabel, SecretStore } from '../secrets/secret-store';
import { isStdioServer, type McpServerSettings } from '../settings/mcp-servers';
import { blankMcpEnv } from '../settings/schema';

export const MCP_ENV_FILE = 'mcp-env';

export const MCP_ENV_LABEL: SecretLabel = {
  what: "MCP servers' environment values",
  redo: 'Enter them again in settings.json (tools.mcpServers, each server\'s "env").',
  unsaved: 'The settings were not saved.',
};

/** Far below the stores' 64 kB file limit, with room for the cipher's own bytes. */
const MAX_STORED_CHARS = 32 * 1024;

/** Values by server name, then variable name. */
export type EnvValues = Record<string, Record<string, string>>;

/**
 * What to keep once `servers` are the settings (pure): a value given in them (not "") replaces the
 * stored one; "" keeps the stored one; variables and servers no longer named are dropped.
 */
export function mergeEnv(servers: readonly McpServerSettings[], stored: EnvValues): EnvValues {
  const out: EnvValues = {};
  for (const s of servers) {
    if (!isStdioServer(s)) continue;
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(s.env)) {
      const kept = value !== '' ? value : Object.hasOwn(stored, s.name) && Object.hasOwn(stored[s.name]!, name) ? stored[s.name]![name]! : '';
      if (kept !== '') values[name] = kept;
    }
    if (Object.keys(values).length > 0) out[s.name] = values;
  }
  return out;
}

/** Whether any server in `servers` has a value given (not "") for a variable. */
export function hasEnvValues(servers: readonly McpServerSettings[]): boolean {
  return servers.some((s) => isStdioServer(s) && Object.values(s.env).some((v) => v !== ''));
}

function sameValues(a: EnvValues, b: EnvValues): boolean {
  return JSON.stringify(sortDeep(a)) === JSON.stringify(sortDeep(b));
}

function sortDeep(v: EnvValues): [string, [string, string][]][] {
  return Object.keys(v)
    .sort()
    .map((k) => [k, Object.entries(v[k]!).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))]);
}

export class McpEnv {
  /** The stored values once read (main process memory only), so the keychain is asked once. */
  private cache: EnvValues | null = null;
  /** Bumped for a server whose stored values changed: a running server is restarted with them. */
  private readonly versions = new Map<string, number>();

  constructor(private readonly store: SecretStore) {}

  get protection(): string {
    return this.store.protection;
  }

  /** The stored values; an unreadable or garbled store is a UserError that says what to do. */
  async read(): Promise<EnvValues> {
    if (this.cache) return this.cache;
    const text = await this.store.get();
    let parsed: unknown = {};
    try {
      if (text !== null) parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UserError(`The stored ${MCP_ENV_LABEL.what} are not in the form the app writes. ${MCP_ENV_LABEL.redo}`, 'secret-unreadable');
    }
    const values: EnvValues = {};
    for (const [server, vars] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof vars !== 'object' || vars === null) continue;
      values[server] = Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
    this.cache = values;
    return values;
  }

  /**
   * Stores what `servers` give (mergeEnv) when it differs from what is stored; the caller then saves
   * the settings with every value "". A refusal (no keyring, too much) is a UserError, nothing stored.
   */
  async keep(servers: readonly McpServerSettings[]): Promise<void> {
    // An unreadable store counts as empty: rewritten only when new values are given (it was lost anyway).
    const stored = await this.read().catch((): EnvValues => ({}));
    const next = mergeEnv(servers, stored);
    if (sameValues(next, stored)) return;
    const text = JSON.stringify(next);
    if (text.length > MAX_STORED_CHARS) {
      throw new UserError(`The MCP servers' environment values come to ${Math.ceil(text.length / 1024)} kB; at most ${MAX_STORED_CHARS / 1024} kB can be kept. ${MCP_ENV_LABEL.unsaved}`, 'invalid-settings');
    }
    await this.store.set(Object.keys(next).length === 0 ? null : text);
    for (const name of new Set([...Object.keys(next), ...Object.keys(stored)])) {
      if (JSON.stringify(next[name] ?? {}) !== JSON.stringify(stored[name] ?? {})) this.versions.set(name, this.version(name) + 1);
    }
    this.cache = next;
  }

  /** Changes whenever the values stored for `server` change. */
  version(server: string): number {
    return this.versions.get(server) ?? 0;
  }

  /**
   * A server's environment to start it with: the values in its settings entry where given (a
   * settings file for `talk`, or one the store refused), else the stored ones; variables without a
   * value are left out.
   */
  async valuesFor(server: McpServerSettings): Promise<Record<string, string>> {
    if (!isStdioServer(server)) return {};
    const names = Object.keys(server.env);
    const needStore = names.some((n) => server.env[n] === '');
    const stored = needStore ? ((await this.read())[server.name] ?? {}) : {};
    const out: Record<string, string> = {};
    for (const n of names) {
      const v = server.env[n] !== '' ? server.env[n]! : stored[n];
      if (v) out[n] = v;
    }
    return out;
  }
}

/** A patch's `tools.mcpServers`, if it has one (validated already). */
function patchServers(patch: unknown): unknown[] | undefined {
  const tools = (patch as { tools?: unknown } | null)?.tools;
  const servers = (tools as { mcpServers?: unknown } | null | undefined)?.mcpServers;
  return Array.isArray(servers) ? servers : undefined;
}

/**
 * A settings patch from the window or the bridge that sets the MCP servers: their values go to the
 * store, and the patch to save carries `next`'s servers with every value "". The error in words when
 * the store refuses (then nothing is saved).
 */
export async function keepPatchEnv(env: McpEnv, patch: unknown, next: readonly McpServerSettings[]): Promise<{ ok: true; patch: unknown } | { ok: false; error: string }> {
  if (patchServers(patch) === undefined) return { ok: true, patch };
  try {
    await env.keep(next);
  } catch (err) {
    return { ok: false, error: messageOf(err, `Could not store the ${MCP_ENV_LABEL.what}`) };
  }
  const p = patch as { tools: Record<string, unknown> };
  return { ok: true, patch: { ...p, tools: { ...p.tools, mcpServers: blankMcpEnv(next) } } };
}

/**
 * Values written into settings.json by hand go to the store, and out of the file (as the API key
 * does, app/server-access.ts). When the store refuses, the file is left as it is and the window says why.
 */
export async function moveEnvOutOfSettings(env: McpEnv, settings: SettingsStore, notice: (level: 'info' | 'error', message: string, keep?: boolean) => void): Promise<void> {
  const servers = settings.current.tools.mcpServers;
  if (!hasEnvValues(servers)) return;
  try {
    await env.keep(servers);
    await settings.replace({ ...settings.current, tools: { ...settings.current.tools, mcpServers: blankMcpEnv(servers) } });
    notice('info', `The MCP servers' environment values found in settings.json were moved out of it: they are now ${env.protection}.`);
  } catch (err) {
    notice('error', messageOf(err, `Could not move the ${MCP_ENV_LABEL.what} out of settings.json`), true);
  }
}
