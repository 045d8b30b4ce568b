/**
 * The system prompt the language model is given: the user's (settings `llm.systemPrompt`) and the
 * facts they asked to be remembered after it, within `memory.maxTokens`. Built when a conversation
 * begins and again only when the facts in it must change (a fact forgotten, memory switched, the
 * prompt edited): a model that runs here then evaluates it once, not every turn.
 */
import { memorySection, withMemory, type MemorySection } from '../../memory/memory-prompt';
import type { Settings } from '../../settings/schema';
import type { PipelineMemory } from '../skills/memory';

export class SystemPrompt {
  private section: MemorySection = memorySection([], 0);

  constructor(
    private readonly settings: () => Settings,
    private readonly memory: PipelineMemory | null,
    private readonly countTokens: (text: string) => number,
  ) {}

  /** The prompt as it is now (and the memory section it holds, for the reports). */
  build(): string {
    this.section = this.memory ? this.memory.section(this.countTokens) : memorySection([], 0);
    return withMemory(this.settings().llm.systemPrompt, this.section);
  }

  /** The report's `memory`: how many facts the prompt holds, and their tokens. */
  get inPrompt(): { facts: number; tokens: number } {
    return { facts: this.section.facts, tokens: this.section.tokens };
  }
}
