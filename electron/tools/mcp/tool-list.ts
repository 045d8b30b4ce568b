/**
 * A server's tools as the app keeps them (pure): bounded, whatever the server sends. At most 64 tools,
 * names as MCP allows them (1-128 characters, the first of a repeated name kept), descriptions cut
 * at 1000 characters, and an input schema of at most 16 kB (a tool with a bigger one is left out:
 * the model would read it on every request). Whether a tool changes something follows its
 * annotations, conservatively but without making every tool ask first (see changesSomething).
 */
import type { Tool as SdkTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

export const MCP_TOOL_LIMITS = { tools: 64, nameChars: 128, descriptionChars: 1000, schemaBytes: 16 * 1024 } as const;

export interface McpToolInfo {
  /** The server's own name for it (what it is called with, and what disabledTools holds). */
  name: string;
  description: string;
  /** Its input schema, a JSON Schema object, as the model is given it. */
  parameters: Record<string, unknown>;
  changes: boolean;
  /** Marked `readOnlyHint: true`: it may run for an answer prepared during a pause. */
  readOnly: boolean;
}

/**
 * MCP's hints: `readOnlyHint: true` changes nothing; `destructiveHint: false` changes nothing that
 * cannot be undone (adding a note, say), so it runs without asking too; anything else may change
 * something (MCP's own default: not read-only, destructive) and asks first.
 */
export function changesSomething(a: ToolAnnotations | undefined): boolean {
  if (a?.readOnlyHint === true) return false;
  if (a?.destructiveHint === false) return false;
  return true;
}

export interface BoundedTools {
  tools: McpToolInfo[];
  /** Why some tools were left out, one line each (at most a few). */
  left: string[];
}

export function boundTools(listed: readonly SdkTool[]): BoundedTools {
  const tools: McpToolInfo[] = [];
  const left: string[] = [];
  const seen = new Set<string>();
  for (const t of listed) {
    const name = typeof t.name === 'string' ? t.name : '';
    if (name.length === 0 || name.length > MCP_TOOL_LIMITS.nameChars || seen.has(name)) {
      left.push(name.length === 0 || name.length > MCP_TOOL_LIMITS.nameChars ? `a tool with a name of ${name.length} characters` : `a second tool named ${JSON.stringify(name)}`);
      continue;
    }
    const { $schema: _dialect, ...schema } = t.inputSchema as Record<string, unknown>;
    const size = Buffer.byteLength(JSON.stringify(schema));
    if (size > MCP_TOOL_LIMITS.schemaBytes) {
      left.push(`${JSON.stringify(name)}, whose input schema is ${Math.ceil(size / 1024)} kB (at most ${MCP_TOOL_LIMITS.schemaBytes / 1024} kB)`);
      continue;
    }
    if (tools.length === MCP_TOOL_LIMITS.tools) {
      left.push(`every tool after the first ${MCP_TOOL_LIMITS.tools}`);
      break;
    }
    seen.add(name);
    const description = (t.description ?? t.annotations?.title ?? t.title ?? '').replace(/\s+/g, ' ').trim();
    tools.push({
      name,
      description: description.length > MCP_TOOL_LIMITS.descriptionChars ? `${description.slice(0, MCP_TOOL_LIMITS.descriptionChars)}…` : description,
      parameters: { ...schema, type: 'object' },
      changes: changesSomething(t.annotations),
      readOnly: t.annotations?.readOnlyHint === true,
    });
  }
  return { tools, left: left.slice(0, 4) };
}
