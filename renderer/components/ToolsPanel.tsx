/**
 * The Tools tab: the built-in tools and each MCP server with its state (connecting, ready, or why
 * not), its tools with a switch each and the time each took last. Servers are added and removed in
 * settings.json for now (tools.mcpServers); this panel switches what is there.
 */
import type { McpServerStatus, ToolStatus } from '../../electron/ipc-contract';
import type { McpServerSettings } from '../../electron/settings/mcp-servers';
import { lastCallLine, serverStateLine, serverWhere, withServerEnabled, withToolSwitched } from '../model/tools';
import { useUi } from '../store';
import { saveSetting } from './useSetting';

function Switch({ on, label, testId, onChange }: { on: boolean; label: string; testId: string; onChange: (on: boolean) => void }) {
  return (
    <button type="button" role="switch" aria-checked={on} aria-label={label} className="switch" data-testid={testId} onClick={() => onChange(!on)}>
      <span className="knob" />
    </button>
  );
}

function ToolRow({ tool, testId, onSwitch }: { tool: ToolStatus; testId: string; onSwitch: (on: boolean) => void }) {
  return (
    <li className={`tool${tool.enabled ? '' : ' tool-off'}`} data-testid={testId}>
      <span className="tool-name">
        {tool.name}
        {tool.calledAs !== tool.name && <span className="hint-inline"> (the model calls it {tool.calledAs})</span>}
        {tool.changes && (
          <span className="badge" title="It may change something: the assistant asks before it runs.">
            asks first
          </span>
        )}
      </span>
      <Switch on={tool.enabled} label={`${tool.name} on`} testId={`${testId}-switch`} onChange={onSwitch} />
      {tool.description && <span className="tool-detail">{tool.description}</span>}
      <span className="tool-detail" data-testid={`${testId}-last`}>
        {lastCallLine(tool)}
      </span>
    </li>
  );
}

function Server({ server, settings, all }: { server: McpServerStatus; settings: McpServerSettings | undefined; all: readonly McpServerSettings[] }) {
  const id = `mcp-${server.name}`;
  const save = (next: McpServerSettings[]) => void saveSetting('tools.mcpServers', next);
  return (
    <section className={`mcp-server mcp-${server.state}`} aria-label={`MCP server ${server.name}`} data-testid={id}>
      <h3>
        {server.name} <span className={`badge${server.state === 'error' ? ' badge-error' : ''}`}>{server.transport === 'stdio' ? 'local' : 'HTTP'}</span>
      </h3>
      <div className="toggle-row">
        <Switch on={server.enabled} label={`MCP server ${server.name} on`} testId={`${id}-switch`} onChange={(on) => save(withServerEnabled(all, server.name, on))} />
        <span className={server.state === 'error' ? 'hint-error' : 'hint-inline'} role="status" data-testid={`${id}-state`}>
          {serverStateLine(server)}
        </span>
      </div>
      <p className="hint" data-testid={`${id}-where`}>
        {serverWhere(settings)}
        {settings && 'env' in settings && Object.keys(settings.env).length > 0 && ` · environment: ${Object.keys(settings.env).join(', ')} (values kept by the app, not shown)`}
      </p>
      {server.tools.length > 0 && (
        <ul className="tool-list">
          {server.tools.map((t) => (
            <ToolRow key={t.name} tool={t} testId={`${id}-tool-${t.name}`} onSwitch={(on) => save(withToolSwitched(all, server.name, t.name, on))} />
          ))}
        </ul>
      )}
    </section>
  );
}

export function ToolsPanel() {
  const tools = useUi((s) => s.status?.tools);
  const servers = useUi((s) => s.settings?.tools.mcpServers);
  if (!tools || !servers) return <p className="empty">Connecting…</p>;
  return (
    <section className="tools" aria-labelledby="tools-title" data-testid="tools">
      <h2 id="tools-title" className="visually-hidden">
        Tools
      </h2>
      <h3>Built in</h3>
      <ul className="tool-list">
        {tools.builtIn.map((t) => (
          <ToolRow key={t.name} tool={t} testId={`tool-${t.name}`} onSwitch={(on) => void saveSetting(`tools.builtIn.${t.setting}`, on)} />
        ))}
      </ul>
      {tools.servers.map((s) => (
        <Server key={s.name} server={s} settings={servers.find((x) => x.name === s.name)} all={servers} />
      ))}
      <p className="hint" data-testid="mcp-how">
        {tools.servers.length === 0 ? 'No MCP server is set up. ' : ''}
        MCP servers are added and removed in settings.json, under tools.mcpServers (a command this computer starts, or an address); the app starts them at once when changed from here, and at its next start when the file is edited.
      </p>
    </section>
  );
}
