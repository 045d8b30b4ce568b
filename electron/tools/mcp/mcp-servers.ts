/**
 * The MCP servers in settings, kept running (server-runner.ts) and turned into tools the toolbox
 * offers: the tools of the servers that are ready, each switched off by its server's disabledTools,
 * named for the model (tool-names.ts), called with the turn's signal, and timed for the Tools panel.
 * Settings changes start, stop or restart only the servers whose entries changed; close() ends them all.
 */
import { isStdioServer, type McpServerSettings } from '../../settings/mcp-servers';
import type { Tool } from '../toolbox';
import type { McpServerStatus } from '../tool-status';
import { DEFAULT_BACKOFF, McpServerRunner, type Backoff, type RunnerOptions } from './server-runner';
import type { McpToolInfo } from './tool-list';
import { exposedNames } from './tool-names';

export interface McpServersOptions {
  /** A server's environment values, read when it starts. */
  env(server: McpServerSettings): Promise<Record<string, string>>;
  /** Changes when a server's stored values change (their names alone are in its settings): it is restarted. */
  envVersion?(name: string): number;
  notice(level: 'info' | 'error', message: string): void;
  /** A server's state, tools or a tool's last call changed (the window's status follows). */
  changed(): void;
  /** Connecting and listing the tools (default 30 s: a server npx fetches on its first start is slow). */
  timeoutMs?: number;
  backoff?: Partial<Backoff>;
  now?: () => number;
  /** The app's version, told to the servers. */
  version?: string;
  pingMs?: number;
}

/** What a server's process or address is: a change to it restarts the server. */
function connectionKey(s: McpServerSettings, envVersion: number): string {
  return JSON.stringify(isStdioServer(s) ? [s.command, s.args, s.env, s.enabled, envVersion] : [s.url, s.enabled]);
}

export class McpServers {
  private readonly runners = new Map<string, { runner: McpServerRunner; key: string }>();
  private order: string[] = [];
  /** The last call of each tool, by server and the tool's own name. */
  private readonly times = new Map<string, { ms: number; ok: boolean }>();
  private readonly runnerOptions: RunnerOptions;
  private closed = false;

  constructor(private readonly opts: McpServersOptions) {
    this.runnerOptions = {
      timeoutMs: opts.timeoutMs ?? 30_000,
      backoff: { ...DEFAULT_BACKOFF, ...opts.backoff },
      now: opts.now ?? (() => performance.now()),
      version: opts.version ?? '0.0.0',
      ...(opts.pingMs ? { pingMs: opts.pingMs } : {}),
    };
  }

  /** Makes the running servers those of `servers`: new ones start, removed ones stop, changed ones restart. */
  apply(servers: readonly McpServerSettings[]): void {
    if (this.closed) return;
    const names = new Set(servers.map((s) => s.name));
    for (const [name, { runner }] of this.runners) {
      if (names.has(name)) continue;
      this.runners.delete(name);
      void runner.stop();
    }
    for (const s of servers) {
      const key = connectionKey(s, this.opts.envVersion?.(s.name) ?? 0);
      const have = this.runners.get(s.name);
      if (have?.key === key) {
        have.runner.settings = s;
        continue;
      }
      if (have) void have.runner.stop();
      const runner = new McpServerRunner(s, { env: (x) => this.opts.env(x), notice: (l, m) => this.opts.notice(l, m), changed: () => this.opts.changed() }, this.runnerOptions);
      this.runners.set(s.name, { runner, key });
      if (s.enabled) runner.start();
    }
    this.order = servers.map((s) => s.name);
    this.opts.changed();
  }

  private list(): McpServerRunner[] {
    return this.order.flatMap((n) => {
      const r = this.runners.get(n)?.runner;
      return r ? [r] : [];
    });
  }

  /** Every known tool's name for the model, by server; stable while a server restarts. */
  private names(reserved: Iterable<string>): Map<string, Map<string, string>> {
    const known = this.list().filter((r) => r.settings.enabled);
    return exposedNames(known.map((r) => ({ server: r.name, tools: r.tools.map((t) => t.name) })), reserved);
  }

  /** The tools of the servers that are ready, for the toolbox (`reserved`: the built-ins' names). */
  tools(reserved: Iterable<string> = []): Tool[] {
    const names = this.names(reserved);
    return this.list()
      .filter((r) => r.state === 'ready')
      .flatMap((r) => r.tools.map((info) => this.toolFor(r, info, names.get(r.name)?.get(info.name) ?? info.name)));
  }

  private toolFor(r: McpServerRunner, info: McpToolInfo, calledAs: string): Tool {
    return {
      spec: { name: calledAs, description: info.description || `A tool of the MCP server ${r.name}.`, parameters: info.parameters },
      server: r.name,
      changes: info.changes,
      readOnly: info.readOnly,
      enabled: () => !(r.settings.disabledTools ?? []).includes(info.name),
      run: (args, signal) => this.call(r, info.name, args, signal),
    };
  }

  private async call(r: McpServerRunner, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const conn = r.connection;
    if (!conn || r.state !== 'ready') throw new Error(`the MCP server "${r.name}" is not running`);
    const now = this.runnerOptions.now;
    const start = now();
    const done = (ok: boolean) => {
      this.times.set(`${r.name}\n${name}`, { ms: Math.round((now() - start) * 10) / 10, ok });
      this.opts.changed();
    };
    try {
      const text = await conn.call(name, args, signal);
      done(true);
      return text;
    } catch (err) {
      done(false);
      throw err;
    }
  }

  status(reserved: Iterable<string> = []): McpServerStatus[] {
    const names = this.names(reserved);
    return this.list().map((r) => {
      const off = new Set(r.settings.disabledTools ?? []);
      return {
        name: r.name,
        transport: isStdioServer(r.settings) ? 'stdio' : 'http',
        enabled: r.settings.enabled,
        state: r.state,
        error: r.error,
        restarts: r.restarts,
        tools: r.tools.map((t) => {
          const last = this.times.get(`${r.name}\n${t.name}`);
          return { name: t.name, calledAs: names.get(r.name)?.get(t.name) ?? t.name, description: t.description, changes: t.changes, enabled: !off.has(t.name), lastMs: last?.ms ?? null, lastOk: last?.ok ?? null };
        }),
      };
    });
  }

  /** Settles once every enabled server's first attempt has ended, ready or failed (talk waits for it). */
  async settled(): Promise<void> {
    await Promise.all(this.list().map((r) => r.firstAttempt));
  }

  /** Ends every server (their processes with them); nothing starts after it. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.runners.values()].map(({ runner }) => runner.stop());
    this.runners.clear();
    this.order = [];
    await Promise.all(all);
  }
}
