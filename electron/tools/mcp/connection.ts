/**
 * One connection to one MCP server, through the official SDK: a process started with its command
 * (stdio; the server's environment merged over the SDK's minimal safe one, never the app's whole
 * environment) or an address (streamable HTTP). Opening it connects, and lists the tools, within a
 * time limit. A call passes the turn's AbortSignal to the SDK, which sends the server
 * notifications/cancelled when it aborts (a barge-in). The connection says when it ends: the process
 * exited, or an HTTP server stopped answering its pings.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from './call-result';
import { trackChild } from './children';
import { boundTools, MCP_TOOL_LIMITS, type BoundedTools } from './tool-list';

export type McpEndpoint = { kind: 'stdio'; command: string; args: readonly string[]; env: Record<string, string> } | { kind: 'http'; url: string };

export interface ConnectionOptions {
  /** Connecting and the first listing together (a server fetched by npx on its first start is slow). */
  timeoutMs: number;
  /** The server ended (the process exited, the address stopped answering), in words. */
  onClosed(reason: string): void;
  /** The server says its tools changed (notifications/tools/list_changed). */
  onToolsChanged(): void;
  /** How often an HTTP server is pinged to tell whether it is still there. */
  pingMs?: number;
}

/** Longer than any tools.timeoutMs (at most 120 s): the toolbox's limit and the turn's signal decide. */
const CALL_LIMIT_MS = 130_000;
/** A server's last words on stderr kept for the reason it failed; more is not read into memory. */
const STDERR_TAIL = 2048;
/** Pages of a tool list followed (each holds many tools): a server that pages forever is cut short. */
const MAX_PAGES = 8;

/** Secret values taken out of text that may reach the window or a log (a server may print its environment). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}

export class McpConnection {
  private closing = false;
  /** The transport closed (the process exited): nothing is left to end. */
  private ended = false;
  /** Set once open: from then on an end is reported. */
  private onEnd: ((reason: string) => void) | null = null;
  private stderrTail = '';
  private untrack: (() => void) | null = null;
  private pinger: ReturnType<typeof setInterval> | null = null;
  listed: BoundedTools = { tools: [], left: [] };

  private constructor(
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly secrets: readonly string[],
  ) {}

  /** Connects and lists the tools; rejects with the reason in words (never a secret value). */
  static async open(endpoint: McpEndpoint, options: ConnectionOptions, version = '0.0.0'): Promise<McpConnection> {
    const secrets = endpoint.kind === 'stdio' ? Object.values(endpoint.env) : [];
    let conn: McpConnection | null = null;
    const client = new Client(
      { name: 'local-voice-assistant', version },
      // Refreshed by this class, bounded, rather than the SDK's own unbounded re-listing.
      { capabilities: {}, listChanged: { tools: { autoRefresh: false, onChanged: () => options.onToolsChanged() } } },
    );
    const transport: Transport =
      endpoint.kind === 'stdio'
        ? new StdioClientTransport({ command: endpoint.command, args: [...endpoint.args], env: endpoint.env, stderr: 'pipe' })
        : new StreamableHTTPClientTransport(new URL(endpoint.url));
    conn = new McpConnection(client, transport, secrets);
    client.onclose = () => {
      conn!.ended = true;
      if (conn!.closing || !conn!.onEnd) return;
      conn!.stop();
      conn!.onEnd(conn!.lastWords() ?? (endpoint.kind === 'stdio' ? 'its process ended' : 'the connection closed'));
    };
    if (transport instanceof StdioClientTransport) transport.stderr?.on('data', (chunk: Buffer) => conn!.keepStderr(chunk));
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(), options.timeoutMs);
    try {
      await Promise.race([
        (async () => {
          await client.connect(transport, { signal: limit.signal, timeout: options.timeoutMs });
          if (transport instanceof StdioClientTransport && transport.pid !== null) conn.untrack = trackChild(transport.pid);
          conn.listed = await conn.list(limit.signal, options.timeoutMs);
        })(),
        new Promise<never>((_, reject) => limit.signal.addEventListener('abort', () => reject(new Error(`it did not answer within ${options.timeoutMs / 1000} s`)), { once: true })),
      ]);
    } catch (err) {
      const why = limit.signal.aborted ? `it did not answer within ${options.timeoutMs / 1000} s` : conn.reason(err, endpoint);
      await conn.close();
      throw new Error(why);
    } finally {
      clearTimeout(timer);
    }
    conn.onEnd = options.onClosed;
    // Ended between the listing and now: reported at once.
    if (conn.ended) queueMicrotask(() => options.onClosed(conn!.lastWords() ?? 'its process ended'));
    if (endpoint.kind === 'http') conn.pinger = setInterval(() => void conn!.ping(options), options.pingMs ?? 30_000);
    conn.pinger?.unref?.();
    return conn;
  }

  /** The tools again (after the server said they changed); bounded as at the start. */
  async list(signal?: AbortSignal, timeout = 30_000): Promise<BoundedTools> {
    const all: SdkTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && all.length <= MCP_TOOL_LIMITS.tools; page++) {
      const r = await this.client.listTools(cursor ? { cursor } : undefined, { timeout, ...(signal ? { signal } : {}) });
      all.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return boundTools(all);
  }

  /** Calls the tool by its server's name; the result as text, or a throw with the server's error. */
  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: CALL_LIMIT_MS });
    try {
      return resultText(result as Record<string, unknown>);
    } catch (err) {
      throw new Error(scrub((err as Error).message, this.secrets));
    }
  }

  /** Ends the connection (and the process: the SDK ends its stdin, then signals it). Bounded in time. */
  async close(): Promise<void> {
    this.closing = true;
    this.stop();
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null;
    // The SDK waits up to 4 s for a process that ignores its closed stdin; the app's quit cannot.
    await Promise.race([this.client.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1500).unref())]);
    if (pid !== null && !this.ended) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended already, as it should have.
      }
    }
    this.untrack?.();
  }

  private stop(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
    this.untrack?.();
    this.untrack = null;
  }

  private async ping(options: ConnectionOptions): Promise<void> {
    try {
      await this.client.ping({ timeout: 10_000 });
    } catch (err) {
      if (this.closing) return;
      const why = `it stopped answering (${scrub((err as Error).message, this.secrets).slice(0, 200)})`;
      await this.close();
      options.onClosed(why);
    }
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  }

  /** The server's last line on stderr, scrubbed and short; null when it said nothing. */
  private lastWords(): string | null {
    const line = this.stderrTail.trim().split('\n').at(-1)?.trim();
    return line ? `it said: ${scrub(line, this.secrets).slice(0, 200)}` : null;
  }

  private reason(err: unknown, endpoint: McpEndpoint): string {
    const e = err as { code?: unknown; message?: unknown };
    if (endpoint.kind === 'stdio' && e?.code === 'ENOENT') return `the program ${JSON.stringify(endpoint.command)} was not found`;
    if (endpoint.kind === 'stdio' && e?.code === 'EACCES') return `the program ${JSON.stringify(endpoint.command)} cannot be run (permission denied)`;
    const message = scrub(String(e?.message ?? err).split('\n')[0]!, this.secrets).slice(0, 200);
    const words = this.lastWords();
    return words ? `${message}; ${words}` : message;
  }
}
