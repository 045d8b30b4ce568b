/**
 * The names the language model sees for MCP tools (pure). A server may name its tools anything of
 * up to 128 characters; a model is offered names of letters, digits, _ and - of at most 64 (OpenAI's
 * rule for function names, stricter than the tool-calls module's, which also takes dots: a name
 * must work with every OpenAI-compatible server). Two servers may offer the same name, or a server a
 * built-in's: then each such tool is called by its server's name and its own ("files_read").
 */

export const MAX_TOOL_NAME = 64;

/** `name` with every other character made "_", cut to 64; never empty. */
export function safeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME) || 'tool';
}

export interface ServerTools {
  server: string;
  /** The server's own names, in its order. */
  tools: readonly string[];
}

/**
 * For each server, its own tool names mapped to the names the model sees: unique among all of
 * them and `reserved` (the built-ins'). Deterministic: servers and tools keep their order, and a
 * clash left after the server's name is added gets a number ("files_read_2").
 */
export function exposedNames(servers: readonly ServerTools[], reserved: Iterable<string>): Map<string, Map<string, string>> {
  const taken = new Set(reserved);
  const count = new Map<string, number>();
  for (const s of servers) for (const t of s.tools) count.set(safeToolName(t), (count.get(safeToolName(t)) ?? 0) + 1);
  const out = new Map<string, Map<string, string>>();
  for (const s of servers) {
    const names = new Map<string, string>();
    for (const t of s.tools) {
      const plain = safeToolName(t);
      const clash = (count.get(plain) ?? 0) > 1 || taken.has(plain);
      let name = clash ? safeToolName(`${s.server}_${t}`) : plain;
      for (let n = 2; taken.has(name); n++) name = `${safeToolName(`${s.server}_${t}`).slice(0, MAX_TOOL_NAME - String(n).length - 1)}_${n}`;
      taken.add(name);
      names.set(t, name);
    }
    out.set(s.server, names);
  }
  return out;
}
