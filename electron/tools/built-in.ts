/**
 * The built-in tools for this app's settings: notes (in the settings folder) and the clipboard's
 * text where there is a clipboard to read, and opening links and files where the system can, each
 * switched by `tools.builtIn`.
 */
import path from 'node:path';
import type { Settings } from '../settings/schema';
import { clipboardTool, type ClipboardReader } from './clipboard';
import { NotesFile, noteTools } from './notes';
import { openTool, type Opener } from './open';
import { Toolbox, type Tool } from './toolbox';
import type { MemoryToolHost } from './memory-tools';

export interface BuiltInSources {
  /** The folder notes.md lives in (the settings folder); null: no notes. */
  dataDir: string | null;
  /** Electron's clipboard in the app; null where there is none to read. */
  clipboard: ClipboardReader | null;
  /** The system's handler for links and files (Electron's shell in the app); null: nothing is opened. */
  opener?: Opener | null;
  /** The memory of the pipeline running now, for the remember, forget and search_history tools; absent: no memory tools. */
  memory?: () => MemoryToolHost | null;
}

/** Which switch in `tools.builtIn` a built-in tool goes with. */
export type BuiltInSetting = keyof Settings['tools']['builtIn'];

export interface BuiltInTool {
  tool: Tool;
  setting: BuiltInSetting;
}

/** The built-in tools these sources allow, each switched by its setting. */
export function builtInTools(sources: BuiltInSources, settings: () => Settings): BuiltInTool[] {
  const tools: BuiltInTool[] = [];
  const switched = (tool: Tool, setting: BuiltInSetting): BuiltInTool => ({ tool: { ...tool, enabled: () => settings().tools.builtIn[setting] }, setting });
  if (sources.dataDir) tools.push(...noteTools(new NotesFile(path.join(sources.dataDir, 'notes.md'))).map((t) => switched(t, 'notes')));
  if (sources.clipboard) tools.push(switched(clipboardTool(sources.clipboard), 'clipboard'));
  if (sources.opener) tools.push(switched(openTool(sources.opener), 'open'));
  return tools;
}

/** A toolbox over `tools` (a list, or one read afresh on each use) with the settings' limits. */
export function toolboxOf(tools: readonly Tool[] | (() => readonly Tool[]), settings: () => Settings, now?: () => number): Toolbox {
  return new Toolbox(tools, () => ({ timeoutMs: settings().tools.timeoutMs, keepText: settings().history.logText }), now);
}

export function builtInToolbox(sources: BuiltInSources, settings: () => Settings, now?: () => number): Toolbox {
  return toolboxOf(
    builtInTools(sources, settings).map((b) => b.tool),
    settings,
    now,
  );
}
