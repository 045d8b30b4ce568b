/**
 * The clipboard's text as a tool ("read what I copied", "summarize my clipboard"). The app reads
 * Electron's clipboard; `talk` and `dev:web` pass their own reader. At most 4000 characters go to
 * the model.
 */
import type { Tool } from './toolbox';

export interface ClipboardReader {
  readText(): string | Promise<string>;
}

const MAX_CHARS = 4000;

export function clipboardTool(reader: ClipboardReader): Tool {
  return {
    spec: { name: 'read_clipboard', description: 'Reads the text the user copied to the clipboard.', parameters: { type: 'object', properties: {} } },
    server: 'built-in',
    changes: false,
    readOnly: true,
    run: async () => {
      const text = (await reader.readText()) ?? '';
      if (!text.trim()) return 'The clipboard holds no text.';
      return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}… (the clipboard holds ${text.length} characters; this is the start)` : text;
    },
  };
}
