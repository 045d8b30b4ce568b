/**
 * The memory as tools the language model may call when the user says it another way than the local
 * commands know ("my sister's name is Anna, keep that in mind"): `remember`, `forget`, and
 * `search_history` over earlier conversations. They change nothing outside the app's folder, so
 * they ask no confirmation; only the search reads alone. Switched by `memory.enabled`. The memory
 * belongs to the pipeline running now (a models reload makes a new one): `host` finds it.
 */
import type { Tool } from './toolbox';

/** What the tools do, in the running pipeline (skills/memory-commands.ts); each answers in words for the model. */
export interface MemoryToolHost {
  remember(fact: string): string;
  forget(about: string): string;
  searchHistory(query: string): Promise<string>;
}

/** Names no MCP tool may take. */
export const MEMORY_TOOL_NAMES = ['remember', 'forget', 'search_history'] as const;

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const NO_MEMORY = 'error: the memory is not available right now';

export function memoryTools(host: () => MemoryToolHost | null, enabled: () => boolean): Tool[] {
  const call = (f: (h: MemoryToolHost) => string | Promise<string>) => async () => {
    const h = host();
    return h ? f(h) : NO_MEMORY;
  };
  return [
    {
      spec: {
        name: 'remember',
        description: 'Keeps a fact about the user that they asked you to remember, for later conversations. One short fact in their words.',
        parameters: { type: 'object', properties: { fact: { type: 'string', description: 'The fact, e.g. "my sister is called Anna".' } }, required: ['fact'] },
      },
      server: 'built-in',
      changes: false,
      enabled,
      run: (args) => call((h) => h.remember(text(args.fact, 1000)))(),
    },
    {
      spec: {
        name: 'forget',
        description: 'Forgets the remembered facts about something, when the user asks you to forget it.',
        parameters: { type: 'object', properties: { about: { type: 'string', description: 'What to forget, e.g. "my sister".' } }, required: ['about'] },
      },
      server: 'built-in',
      changes: false,
      enabled,
      run: (args) => call((h) => h.forget(text(args.about, 500)))(),
    },
    {
      spec: {
        name: 'search_history',
        description: 'Searches earlier conversations with the user for words, and gives back up to five turns that matched, with their dates. A time such as "yesterday" or "last week" in the query limits it to then.',
        parameters: { type: 'object', properties: { query: { type: 'string', description: 'Keywords, e.g. "trip Paris", optionally with "yesterday", "today" or "last week".' } }, required: ['query'] },
      },
      server: 'built-in',
      changes: false,
      readOnly: true,
      enabled,
      run: (args) => call((h) => h.searchHistory(text(args.query, 1000)))(),
    },
  ];
}
