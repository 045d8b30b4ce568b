/**
 * The tools the assistant offers, in the app and in `talk`: the built-in ones and those of the MCP
 * servers in settings that are ready (each switched off one by one in settings), as one Toolbox
 * that reads them afresh on each use; and their status for the window's Tools panel. Built-in calls
 * are timed here, as McpServers times its servers' calls.
 */
import type { Settings } from '../settings/schema';
import { builtInTools, toolboxOf, type BuiltInSources, type BuiltInTool } from './built-in';
import { McpServers, type McpServersOptions } from './mcp/mcp-servers';
import type { Tool, Toolbox } from './toolbox';
import { memoryTools } from './memory-tools';
import type { ToolsStatus } from './tool-status';

export class AppTools {
  readonly mcp: McpServers;
  private readonly builtIn: BuiltInTool[];
  /** remember, forget, search_history: switched by memory.enabled (the Memory panel), not listed with the built-ins. */
  private readonly memory: Tool[];
  private readonly times = new Map<string, { ms: number; ok: boolean }>();
  private readonly now: () => number;

  constructor(
    sources: BuiltInSources,
    private readonly settings: () => Settings,
    private readonly opts: McpServersOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.builtIn = builtInTools(sources, settings).map((b) => ({ ...b, tool: this.timed(b.tool) }));
    this.memory = sources.memory ? memoryTools(sources.memory, () => settings().memory.enabled).map((t) => this.timed(t)) : [];
    this.mcp = new McpServers(opts);
  }

  private timed(tool: Tool): Tool {
    const record = (start: number, ok: boolean) => {
      this.times.set(tool.spec.name, { ms: Math.round((this.now() - start) * 10) / 10, ok });
      this.opts.changed();
    };
    return {
      ...tool,
      run: async (args, signal) => {
        const start = this.now();
        try {
          const result = await tool.run(args, signal);
          record(start, true);
          return result;
        } catch (err) {
          record(start, false);
          throw err;
        }
      },
    };
  }

  private builtInNames(): string[] {
    return [...this.builtIn, ...this.memory.map((tool) => ({ tool }))].map((b) => b.tool.spec.name);
  }

  /** Every tool now: the built-ins, the memory's, then the ready servers' (named apart from both). */
  tools(): Tool[] {
    return [...this.builtIn.map((b) => b.tool), ...this.memory, ...this.mcp.tools(this.builtInNames())];
  }

  /** The toolbox a pipeline is given: it reads tools() on every use, as servers come and go. */
  toolbox(now?: () => number): Toolbox {
    return toolboxOf(() => this.tools(), this.settings, now);
  }

  /** Starts, stops and restarts the servers for the settings now. */
  apply(): void {
    this.mcp.apply(this.settings().tools.mcpServers);
  }

  status(): ToolsStatus {
    const on = this.settings().tools.builtIn;
    return {
      builtIn: this.builtIn.map(({ tool, setting }) => {
        const last = this.times.get(tool.spec.name);
        return { name: tool.spec.name, calledAs: tool.spec.name, description: tool.spec.description, changes: tool.changes, enabled: on[setting], lastMs: last?.ms ?? null, lastOk: last?.ok ?? null, setting };
      }),
      servers: this.mcp.status(this.builtInNames()),
    };
  }

  /** Ends every server and its process. */
  close(): Promise<void> {
    return this.mcp.close();
  }
}
