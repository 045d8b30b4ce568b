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

export interface BuiltInSources {
  /** The folder notes.md lives in (the settings folder); null: no notes. */
  dataDir: string | null;
  /** Electron's clipboard in the app; null where there is none to read. */
  clipboard: ClipboardReader | null;
  /** The system's handler for links and files (Electron's shell in the app); null: nothing is opened. */
  opener?: Opener | null;
}

export function builtInToolbox(sources: BuiltInSources, settings: () => Settings, now?: () => number): Toolbox {
  const tools: Tool[] = [];
  if (sources.dataDir) tools.push(...noteTools(new NotesFile(path.join(sources.dataDir, 'notes.md'))).map((t) => ({ ...t, enabled: () => settings().tools.builtIn.notes })));
  if (sources.clipboard) tools.push({ ...clipboardTool(sources.clipboard), enabled: () => settings().tools.builtIn.clipboard });
  if (sources.opener) tools.push({ ...openTool(sources.opener), enabled: () => settings().tools.builtIn.open });
  return new Toolbox(tools, () => ({ timeoutMs: settings().tools.timeoutMs, keepText: settings().history.logText }), now);
}
