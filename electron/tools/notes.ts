/**
 * Notes the user dictates: `notes.md` beside the settings, one line per note ("- text  (date)"),
 * written atomically. Adding a note changes nothing outside the app's folder, so it needs no
 * confirmation. Bounded: a note is at most 1000 characters, the file at most 1 MB (the oldest notes
 * give way), and reading gives back the latest notes within 4000 characters.
 */
import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../settings/file';
import type { Tool } from './toolbox';

const MAX_NOTE_CHARS = 1000;
const MAX_FILE_BYTES = 1024 * 1024;
const READ_BACK_CHARS = 4000;
const HEADER = '# Notes\n\n';

export class NotesFile {
  /** One change at a time: two notes in quick succession must both be kept. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  private async lines(): Promise<string[]> {
    try {
      const size = (await stat(this.file)).size;
      // Not the app's writing (it keeps the file under 1 MB): left alone, never rewritten.
      if (size > 4 * MAX_FILE_BYTES) throw new Error(`notes.md is ${(size / 1048576).toFixed(1)} MB, too big to be the app's notes; it was left alone`);
      const text = await readFile(this.file, 'utf8');
      return text.split('\n').filter((l) => l.startsWith('- '));
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return [];
      throw e;
    }
  }

  add(text: string, now = new Date()): Promise<string> {
    const run = async () => {
      const clean = text.replace(/\s+/g, ' ').trim().slice(0, MAX_NOTE_CHARS);
      if (!clean) return 'error: the note is empty';
      const lines = [...(await this.lines()), `- ${clean}  (${now.toISOString().slice(0, 16).replace('T', ' ')})`];
      while (lines.length > 1 && Buffer.byteLength(HEADER + lines.join('\n')) > MAX_FILE_BYTES) lines.shift();
      await writeFileAtomic(this.file, `${HEADER}${lines.join('\n')}\n`);
      return `Noted: ${clean}`;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  async read(): Promise<string> {
    const lines = await this.lines();
    if (lines.length === 0) return 'There are no notes.';
    const out: string[] = [];
    let size = 0;
    for (let i = lines.length - 1; i >= 0 && size + lines[i]!.length <= READ_BACK_CHARS; i--) {
      out.unshift(lines[i]!);
      size += lines[i]!.length + 1;
    }
    return `${lines.length} note${lines.length === 1 ? '' : 's'}${out.length < lines.length ? `, the latest ${out.length}` : ''}:\n${out.join('\n')}`;
  }
}

export function noteTools(notes: NotesFile): Tool[] {
  return [
    {
      spec: {
        name: 'add_note',
        description: 'Saves a short note the user dictates, to read back later.',
        parameters: { type: 'object', properties: { text: { type: 'string', description: 'The note, as the user said it.' } }, required: ['text'] },
      },
      server: 'built-in',
      changes: false,
      run: async (args) => notes.add(typeof args.text === 'string' ? args.text : ''),
    },
    {
      spec: { name: 'read_notes', description: "Reads back the user's saved notes, latest last.", parameters: { type: 'object', properties: {} } },
      server: 'built-in',
      changes: false,
      readOnly: true,
      run: () => notes.read(),
    },
  ];
}
