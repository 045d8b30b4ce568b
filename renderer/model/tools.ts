/**
 * The Tools panel's words and its settings patches (pure): each tool's last call, each server's
 * state, and the server list with one tool or one server switched. The list goes back whole (a
 * patch replaces a list); its environment values are "" here, which main reads as "keep the stored
 * value", so switching a tool never touches a secret.
 */
import type { McpServerStatus, ToolStatus } from '../../electron/ipc-contract';
import type { McpServerSettings } from '../../electron/settings/mcp-servers';

export function lastCallLine(t: Pick<ToolStatus, 'lastMs' | 'lastOk'>): string {
  if (t.lastMs === null) return 'not called yet';
  const ms = t.lastMs < 10 ? t.lastMs.toFixed(1) : String(Math.round(t.lastMs));
  return t.lastOk ? `last call ${ms} ms` : `last call failed after ${ms} ms`;
}

export function serverStateLine(s: Pick<McpServerStatus, 'state' | 'error' | 'restarts'>): string {
  const restarts = s.restarts > 0 ? ` (started again ${s.restarts === 1 ? 'once' : `${s.restarts} times`})` : '';
  switch (s.state) {
    case 'ready':
      return `ready${restarts}`;
    case 'connecting':
      return s.error ? `connecting again; last time ${s.error}` : 'connecting…';
    case 'error':
      return `not running: ${s.error ?? 'it failed'}; it is tried again${restarts}`;
    case 'off':
      return 'off';
  }
}

/** How the server is reached, as a line: its command (and arguments), or its address. */
export function serverWhere(s: McpServerSettings | undefined): string {
  if (!s) return '';
  if ('url' in s) return s.url;
  const line = [s.command, ...s.args].join(' ');
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** The servers with one tool switched on or off (by its server's own name for it). */
export function withToolSwitched(servers: readonly McpServerSettings[], server: string, tool: string, on: boolean): McpServerSettings[] {
  return servers.map((s) => {
    if (s.name !== server) return s;
    const off = new Set(s.disabledTools ?? []);
    if (on) off.delete(tool);
    else off.add(tool);
    const { disabledTools: _old, ...rest } = s;
    return off.size > 0 ? { ...rest, disabledTools: [...off] } : rest;
  });
}

/** The servers with one switched on or off as a whole. */
export function withServerEnabled(servers: readonly McpServerSettings[], server: string, on: boolean): McpServerSettings[] {
  return servers.map((s) => (s.name === server ? { ...s, enabled: on } : s));
}
