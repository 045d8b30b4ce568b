/**
 * The tools as the window's Tools panel shows them (types only; re-exported by ipc-contract.ts): the
 * built-in ones and each MCP server with its state and its tools, with each tool's last call.
 */

export interface ToolStatus {
  /** Its own name (an MCP tool's as its server names it: what disabledTools holds). */
  name: string;
  /** What the language model calls it: an MCP tool whose name another has gets its server's name before it. */
  calledAs: string;
  description: string;
  /** It changes something outside the app: the assistant asks before it runs. */
  changes: boolean;
  /** Switched on in settings (an MCP tool: not in its server's disabledTools). */
  enabled: boolean;
  /** How long its last call took, in ms, and whether it worked; null before its first call. */
  lastMs: number | null;
  lastOk: boolean | null;
}

export interface BuiltInToolStatus extends ToolStatus {
  /** The switch in `tools.builtIn` it goes with (add_note and read_notes share `notes`). */
  setting: 'notes' | 'clipboard' | 'open';
}

/** connecting: starting or restarting; error: see `error` (it is tried again); off: not enabled. */
export type McpServerState = 'connecting' | 'ready' | 'error' | 'off';

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  enabled: boolean;
  state: McpServerState;
  /** Why it failed or stopped, in words (no secret value); null when it did not. */
  error: string | null;
  /** How many times it was started again after it failed or stopped. */
  restarts: number;
  /** Its tools as last listed (kept while it restarts; offered to the model only while it is ready). */
  tools: ToolStatus[];
}

export interface ToolsStatus {
  builtIn: BuiltInToolStatus[];
  servers: McpServerStatus[];
}
