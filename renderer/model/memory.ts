/**
 * What the Memory panel says about the remembered facts. Pure: the tests give any fact and date.
 */
import type { MemoryView } from '../../electron/ipc-contract';
import type { Settings } from '../../electron/settings/schema';

export type FactView = MemoryView['facts'][number];

/** Written out, so every browser and locale shows "7 Sep 2026" the same (Intl's en-GB says "Sept"). */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The local date a fact was said: "7 Dec 2026"; "" for a date that does not parse (a hand-edited file). */
export function formatFactDate(said: string): string {
  const d = new Date(said);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getDate()} ${MONTHS[d.getMonth()]!} ${d.getFullYear()}`;
}

/** Newest first: what was just said is at the top (the book keeps them oldest first). */
export function newestFirst(facts: readonly FactView[]): FactView[] {
  return [...facts].reverse();
}

/** A label fit for a screen reader: a 500-character fact is cut at a word. */
export function shortFact(text: string, max = 60): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The Delete button's accessible name, naming its fact. */
export function deleteLabel(text: string): string {
  return `Delete “${shortFact(text)}”`;
}

/** Clear all's question: what goes, or what happens to a file that could not be used. */
export function clearQuestion(memory: Pick<MemoryView, 'facts' | 'problem'>): string {
  if (memory.problem) return 'Start a new, empty memory? The file that could not be used is kept aside, not deleted.';
  const n = memory.facts.length;
  return `Forget ${n === 1 ? 'the one fact' : `all ${n} facts`}? This cannot be undone.`;
}

/** Where the facts go besides this computer: a plain sentence when the language model runs on a server, else null. */
export function serverSentence(llm: Pick<Settings['llm'], 'provider' | 'server'> | undefined): string | null {
  if (llm?.provider !== 'openai-compatible') return null;
  const where = llm.server.baseUrl ? ` at ${llm.server.baseUrl}` : '';
  return `The language model runs on a server${where}: while memory is on, these facts are sent to it as part of the prompt.`;
}
