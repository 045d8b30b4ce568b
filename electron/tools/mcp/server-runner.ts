/**
 * One MCP server kept running: started, its state (connecting, ready, error with the reason, off),
 * and started again with backoff when it fails to start or stops (1 s, 2 s, 4 s … at most 60 s; back
 * to 1 s once it had run for a minute). A first failure and every stop are told as a notice; the
 * retries after them only change the state. Nothing here throws into the app.
 */
import { isStdioServer, type McpServerSettings } from '../../settings/mcp-servers';
import type { McpServerState } from '../tool-status';
import { McpConnection, type McpEndpoint } from './connection';
import type { McpToolInfo } from './tool-list';

export interface Backoff {
  firstMs: number;
  maxMs: number;
  /** Up this long, a server that stops starts again from firstMs. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1000, maxMs: 60_000, stableMs: 60_000 };

export function backoffMs(failures: number, b: Backoff): number {
  return Math.min(b.firstMs * 2 ** Math.min(failures, 30), b.maxMs);
}

export interface RunnerHooks {
  /** The server's environment values, read when it starts (the app's secret store, or talk's settings). */
  env(server: McpServerSettings): Promise<Record<string, string>>;
  notice(level: 'info' | 'error', message: string): void;
  changed(): void;
}

export interface RunnerOptions {
  timeoutMs: number;
  backoff: Backoff;
  now: () => number;
  version: string;
  pingMs?: number;
}

function endpointOf(s: McpServerSettings, env: Record<string, string>): McpEndpoint {
  return isStdioServer(s) ? { kind: 'stdio', command: s.command, args: s.args, env } : { kind: 'http', url: s.url };
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

export class McpServerRunner {
  state: McpServerState = 'off';
  error: string | null = null;
  restarts = 0;
  connection: McpConnection | null = null;
  /** As last listed; kept while it restarts. */
  tools: McpToolInfo[] = [];
  /** Settles when the first attempt since start() has ended, ready or not. */
  firstAttempt: Promise<void> = Promise.resolve();
  private failures = 0;
  private readySince = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped by start and stop: whatever an older attempt finishes is dropped. */
  private generation = 0;

  constructor(
    /** The latest settings entry (disabledTools may change without a restart). */
    public settings: McpServerSettings,
    private readonly hooks: RunnerHooks,
    private readonly options: RunnerOptions,
  ) {}

  get name(): string {
    return this.settings.name;
  }

  start(): void {
    const gen = ++this.generation;
    this.failures = 0;
    this.restarts = 0;
    this.error = null;
    this.firstAttempt = this.attempt(gen, false);
  }

  async stop(): Promise<void> {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const conn = this.connection;
    this.connection = null;
    this.state = 'off';
    this.error = null;
    this.hooks.changed();
    await conn?.close().catch(() => undefined);
  }

  private async attempt(gen: number, again: boolean): Promise<void> {
    this.state = 'connecting';
    this.hooks.changed();
    let conn: McpConnection;
    try {
      const env = await this.hooks.env(this.settings);
      conn = await McpConnection.open(
        endpointOf(this.settings, env),
        { timeoutMs: this.options.timeoutMs, onClosed: (why) => this.stopped(gen, why), onToolsChanged: () => void this.relist(gen), ...(this.options.pingMs ? { pingMs: this.options.pingMs } : {}) },
        this.options.version,
      );
    } catch (err) {
      if (gen === this.generation) this.failed(gen, (err as Error)?.message ?? String(err), again);
      return;
    }
    if (gen !== this.generation) {
      await conn.close();
      return;
    }
    this.connection = conn;
    this.tools = conn.listed.tools;
    this.readySince = this.options.now();
    this.state = 'ready';
    this.error = null;
    if (!again && conn.listed.left.length > 0) this.hooks.notice('info', `The MCP server "${this.name}" offers tools the app leaves out: ${conn.listed.left.join('; ')}.`);
    if (again) this.hooks.notice('info', `The MCP server "${this.name}" is running again (${this.tools.length} tool${this.tools.length === 1 ? '' : 's'}).`);
    this.hooks.changed();
  }

  private failed(gen: number, why: string, again: boolean): void {
    this.state = 'error';
    this.error = why;
    const delay = backoffMs(this.failures++, this.options.backoff);
    if (!again) this.hooks.notice('error', `The MCP server "${this.name}" could not start: ${why}. It is tried again in ${seconds(delay)}.`);
    this.retry(gen, delay);
    this.hooks.changed();
  }

  /** The connection ended on its own: the process exited or the address stopped answering. */
  private stopped(gen: number, why: string): void {
    if (gen !== this.generation) return;
    const conn = this.connection;
    this.connection = null;
    void conn?.close().catch(() => undefined);
    if (this.options.now() - this.readySince >= this.options.backoff.stableMs) this.failures = 0;
    this.state = 'error';
    this.error = `it stopped: ${why}`;
    const delay = backoffMs(this.failures++, this.options.backoff);
    this.hooks.notice('error', `The MCP server "${this.name}" stopped (${why}); it is started again in ${seconds(delay)}.`);
    this.retry(gen, delay);
    this.hooks.changed();
  }

  private retry(gen: number, delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (gen !== this.generation) return;
      this.restarts++;
      void this.attempt(gen, true);
    }, delay);
    // A retry pending must not keep `talk` from ending.
    this.timer.unref?.();
  }

  private async relist(gen: number): Promise<void> {
    const conn = this.connection;
    if (!conn || gen !== this.generation) return;
    try {
      const listed = await conn.list();
      if (gen !== this.generation || conn !== this.connection) return;
      this.tools = listed.tools;
      this.hooks.changed();
    } catch {
      // The old list stays; a server that stopped is seen by its connection's end.
    }
  }
}
