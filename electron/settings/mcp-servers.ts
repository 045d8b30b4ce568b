/**
 * The MCP servers setting, `tools.mcpServers` (pure, browser-safe): its shape and its check. A server
 * is started by a command and spoken to over stdio, or reached at an address (streamable HTTP). Its
 * environment values are secrets: the app keeps them in its secret store and settings.json keeps only
 * the variables' names, each with "" as its value (app/mcp-env.ts); a settings file for `talk` may
 * hold the values themselves.
 */
import { describe } from './describe-value';

interface McpServerBase {
  /** Shown in the Tools panel, in notices and as the tools' server in turn reports; unique. */
  name: string;
  enabled: boolean;
  /** The server's own names of the tools switched off one by one (absent: none). */
  disabledTools?: string[];
}

/** A server this computer starts: `command` with `args`, its environment merged over a minimal safe one. */
export interface McpStdioServer extends McpServerBase {
  command: string;
  args: string[];
  /** Variable names and values; "" in the app's settings.json: the value is in the secret store. */
  env: Record<string, string>;
}

/** A server at an address, spoken to over streamable HTTP. */
export interface McpHttpServer extends McpServerBase {
  url: string;
}

export type McpServerSettings = McpStdioServer | McpHttpServer;

export function isStdioServer(s: McpServerSettings): s is McpStdioServer {
  return 'command' in s;
}

/** Bounds on what a settings file may hold: each reader of it (the window, the manager) stays small. */
export const MCP_LIMITS = {
  servers: 16,
  nameChars: 64,
  commandChars: 1024,
  args: 64,
  argChars: 4096,
  envVars: 32,
  envNameChars: 128,
  envValueChars: 4096,
  urlChars: 2000,
  disabledTools: 256,
  /** MCP's own limit on a tool's name. */
  toolNameChars: 128,
} as const;

const NAME = /^[A-Za-z0-9 _.-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STDIO_KEYS = ['name', 'command', 'args', 'env', 'enabled', 'disabledTools'];
const HTTP_KEYS = ['name', 'url', 'enabled', 'disabledTools'];
const EXAMPLE = '{"name": "files", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]} or {"name": "search", "url": "http://localhost:3000/mcp"}';

/** `at` reads after `tools.mcpServers` ("[0].name"). */
export interface McpProblem {
  at: string;
  message: string;
}

export type McpServersCheck = { ok: true; value: McpServerSettings[] } | { ok: false; problems: McpProblem[] };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Text that can go on a command line or in an environment: no NUL (spawn refuses it). */
function plainText(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max && !v.includes('\0');
}

/** Every server checked, every mistake named once; the value with names, commands and urls trimmed. */
export function checkMcpServers(v: unknown): McpServersCheck {
  if (!Array.isArray(v)) return { ok: false, problems: [{ at: '', message: `must be a list of servers such as [${EXAMPLE}], got ${describe(v)}` }] };
  if (v.length > MCP_LIMITS.servers) return { ok: false, problems: [{ at: '', message: `must list at most ${MCP_LIMITS.servers} servers, got ${v.length}` }] };
  const problems: McpProblem[] = [];
  const value: McpServerSettings[] = [];
  const seen = new Map<string, number>();
  v.forEach((raw, i) => {
    const server = checkServer(raw, `[${i}]`, problems);
    if (!server) return;
    const key = server.name.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) problems.push({ at: `[${i}].name`, message: `repeats the name ${JSON.stringify(server.name)} of tools.mcpServers[${first}]; each server needs a name of its own` });
    else seen.set(key, i);
    value.push(server);
  });
  return problems.length ? { ok: false, problems } : { ok: true, value };
}

function checkServer(raw: unknown, at: string, problems: McpProblem[]): McpServerSettings | null {
  if (!isPlainObject(raw)) {
    problems.push({ at, message: `must be a server such as ${EXAMPLE}, got ${describe(raw)}` });
    return null;
  }
  const hasCommand = 'command' in raw;
  const hasUrl = 'url' in raw;
  if (hasCommand && hasUrl) {
    problems.push({ at, message: 'has both a command and a url: a server is either started by a command on this computer or reached at a url, not both' });
    return null;
  }
  if (!hasCommand && !hasUrl) {
    problems.push({ at, message: 'needs a command (a server this computer starts, e.g. "npx") or a url (a server at an address, e.g. "http://localhost:3000/mcp")' });
    return null;
  }
  const before = problems.length;
  const allowed = hasCommand ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(raw)) {
    if (allowed.includes(key)) continue;
    const other = hasCommand ? HTTP_KEYS.includes(key) : STDIO_KEYS.includes(key);
    const why = !other ? 'is an unknown setting' : hasCommand ? 'is only for a server at a url' : 'is only for a server started by a command';
    problems.push({ at: `${at}.${key.length > 60 ? `${key.slice(0, 60)}…` : key}`, message: why });
  }
  const name = typeof raw.name === 'string' ? raw.name.trim() : null;
  if (name === null || name.length === 0 || name.length > MCP_LIMITS.nameChars || !NAME.test(name)) {
    problems.push({ at: `${at}.name`, message: `must be a name of letters, digits, spaces and _ . - (at most ${MCP_LIMITS.nameChars} characters), got ${describe(raw.name)}` });
  }
  const enabled = raw.enabled === undefined ? true : raw.enabled;
  if (typeof enabled !== 'boolean') problems.push({ at: `${at}.enabled`, message: `must be true or false, got ${describe(raw.enabled)}` });
  const disabledTools = raw.disabledTools === undefined ? undefined : checkToolList(raw.disabledTools, `${at}.disabledTools`, problems);
  const base = { name: name ?? '', enabled: enabled === true, ...(disabledTools ? { disabledTools } : {}) };
  if (hasUrl) {
    const url = checkUrl(raw.url, `${at}.url`, problems);
    return problems.length > before ? null : { ...base, url: url! };
  }
  const command = typeof raw.command === 'string' ? raw.command.trim() : null;
  if (command === null || command === '' || !plainText(command, MCP_LIMITS.commandChars) || /[\r\n]/.test(command)) {
    problems.push({ at: `${at}.command`, message: `must be the program that starts the server (e.g. "npx" or a full path), at most ${MCP_LIMITS.commandChars} characters, got ${describe(raw.command)}` });
  }
  const args = raw.args === undefined ? [] : checkArgs(raw.args, `${at}.args`, problems);
  const env = raw.env === undefined ? {} : checkEnv(raw.env, `${at}.env`, problems);
  return problems.length > before ? null : { ...base, command: command!, args: args!, env: env! };
}

function checkArgs(v: unknown, at: string, problems: McpProblem[]): string[] | null {
  if (!Array.isArray(v) || v.length > MCP_LIMITS.args) {
    problems.push({ at, message: `must be a list of at most ${MCP_LIMITS.args} arguments, e.g. ["-y", "@modelcontextprotocol/server-memory"], got ${Array.isArray(v) ? `${v.length} of them` : describe(v)}` });
    return null;
  }
  const bad = v.findIndex((a) => !plainText(a, MCP_LIMITS.argChars));
  if (bad >= 0) {
    problems.push({ at: `${at}[${bad}]`, message: `must be text of at most ${MCP_LIMITS.argChars} characters, got ${describe(v[bad])}` });
    return null;
  }
  return v as string[];
}

/** Never echoes a value: it is a secret, and an error may reach a log or the window. */
function checkEnv(v: unknown, at: string, problems: McpProblem[]): Record<string, string> | null {
  if (!isPlainObject(v)) {
    problems.push({ at, message: `must be an object of variable names and values, e.g. {"API_TOKEN": "…"}, got ${Array.isArray(v) ? 'a list' : typeof v === 'string' ? 'text' : describe(v)}` });
    return null;
  }
  const names = Object.keys(v);
  if (names.length > MCP_LIMITS.envVars) {
    problems.push({ at, message: `must hold at most ${MCP_LIMITS.envVars} variables, got ${names.length}` });
    return null;
  }
  const before = problems.length;
  for (const name of names) {
    if (name.length > MCP_LIMITS.envNameChars || !ENV_NAME.test(name)) {
      problems.push({ at, message: `has a variable name that is not one (letters, digits and _, not starting with a digit, at most ${MCP_LIMITS.envNameChars} characters): ${describe(name)}` });
    } else if (!plainText(v[name], MCP_LIMITS.envValueChars)) {
      problems.push({ at: `${at}.${name}`, message: `must be text of at most ${MCP_LIMITS.envValueChars} characters (the value is not shown)` });
    }
  }
  return problems.length > before ? null : { ...(v as Record<string, string>) };
}

/** http(s) only, and no user name or password in it: the address is shown in the window, which never sees a secret. */
function checkUrl(v: unknown, at: string, problems: McpProblem[]): string | null {
  const text = typeof v === 'string' && v.length <= MCP_LIMITS.urlChars ? v.trim() : null;
  let url: URL | null = null;
  try {
    url = text ? new URL(text) : null;
  } catch {
    // not a URL: reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // An address with an @ may carry a password: not repeated.
    const shown = typeof v === 'string' && v.includes('@') ? 'an address with an @ (not shown)' : describe(v);
    problems.push({ at, message: `must be an http(s) address as the server documents it, e.g. "http://localhost:3000/mcp", got ${shown}` });
    return null;
  }
  if (url.username || url.password) {
    problems.push({ at, message: 'must not hold a user name or password: the address is shown in the window (the value is not shown)' });
    return null;
  }
  return text;
}

function checkToolList(v: unknown, at: string, problems: McpProblem[]): string[] | null {
  const ok = Array.isArray(v) && v.length <= MCP_LIMITS.disabledTools && v.every((t) => typeof t === 'string' && t.length > 0 && t.length <= MCP_LIMITS.toolNameChars);
  if (!ok) {
    problems.push({ at, message: `must be a list of at most ${MCP_LIMITS.disabledTools} tool names (as the server names them, 1-${MCP_LIMITS.toolNameChars} characters), got ${describe(v)}` });
    return null;
  }
  return [...new Set(v as string[])];
}
