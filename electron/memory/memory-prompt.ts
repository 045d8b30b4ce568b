/**
 * The facts as the language model is given them: a short section after the system prompt, newest
 * facts first, as many as fit in `memory.maxTokens` (counted with the model's own tokenizer where
 * it has one). Pure. It is part of the system prompt, so a model that runs here evaluates it once
 * per conversation, not per turn.
 */
import type { Fact } from './memory-book';

export const MEMORY_HEADING = 'What the user asked you to remember (with the day they said it):';

export interface MemorySection {
  /** '' when no fact fits or there is none. */
  text: string;
  /** How many facts it holds. */
  facts: number;
  /** Its size in the model's tokens ('' is 0). */
  tokens: number;
}

/** A rough count for a model with no tokenizer here (a server): about three characters a token, rounded up, so it errs large. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 3);

const line = (f: Fact) => `- ${f.text} (${f.said.slice(0, 10)})`;

/** The section for `facts` (oldest first, as the book keeps them) within `maxTokens`. */
export function memorySection(facts: readonly Fact[], maxTokens: number, countTokens: (text: string) => number = estimateTokens): MemorySection {
  // Lines counted one by one (a line break is a token at most), newest first until the budget is spent...
  const chosen: string[] = [];
  let sum = countTokens(MEMORY_HEADING);
  for (let i = facts.length - 1; i >= 0; i--) {
    const l = line(facts[i]!);
    sum += countTokens(l) + 1;
    if (sum > maxTokens) break;
    chosen.unshift(l);
  }
  // ...then the whole counted once, the oldest chosen leaving while a tokenizer's merges across lines make it larger.
  for (; chosen.length > 0; chosen.shift()) {
    const text = `${MEMORY_HEADING}\n${chosen.join('\n')}`;
    const tokens = countTokens(text);
    if (tokens <= maxTokens) return { text, facts: chosen.length, tokens };
  }
  return { text: '', facts: 0, tokens: 0 };
}

/** The system prompt with the memory section after it (two line breaks apart). */
export function withMemory(systemPrompt: string, section: MemorySection): string {
  return section.text ? `${systemPrompt}\n\n${section.text}` : systemPrompt;
}
