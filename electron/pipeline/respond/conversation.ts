import type { ChatMessage } from '../../engines/llm-types';
import type { ToolRound } from '../../engines/tool-calls';

/** What the user heard of the answer to one turn. */
export type Settlement =
  /** All of it: kept as the model wrote it, so the next prompt starts with the tokens already evaluated. */
  | { type: 'whole'; text: string; tools?: readonly ToolRound[] }
  /** Cut off by the user: the heard part, marked "…" so the model knows it was interrupted. */
  | { type: 'interrupted'; heard: string; tools?: readonly ToolRound[] }
  /** None of it (the user went on talking first): the exchange leaves history. */
  | { type: 'dropped' };

interface Exchange {
  turn: number;
  user: string;
  /** Null until the turn is settled. */
  answer: string | null;
  /** The tool calls the answer ran, with their results: the next turn knows what was done. */
  tools?: readonly ToolRound[];
}

/** A few tokens of chat-template framing per message. */
const FRAMING_TOKENS = 8;

/**
 * The conversation history the language model is given each turn: the system prompt and one
 * exchange per answered turn. Edits name their turn rather than "the last exchange", so an answer
 * settled late (played on after the next turn began) changes its own exchange.
 */
export class Conversation {
  private exchanges: Exchange[] = [];
  private edits = 0;
  /** A line about the present (the local date and time) after the system prompt, so the model knows when it is. */
  private nowLine = '';

  constructor(private prompt: string) {}

  get systemPrompt(): string {
    return this.prompt;
  }

  /** Changes on every edit: a reply prepared from an older version was prepared from another history. */
  get version(): number {
    return this.edits;
  }

  setSystemPrompt(prompt: string): void {
    if (prompt === this.prompt) return;
    this.prompt = prompt;
    this.edits++;
  }

  /** Sets the line about the present; an edit only when it changed (each change re-evaluates the prompt). */
  setNow(line: string): void {
    if (line === this.nowLine) return;
    this.nowLine = line;
    this.edits++;
  }

  /** The user's words for `turn`, about to be answered. */
  append(turn: number, userText: string): void {
    this.exchanges.push({ turn, user: userText, answer: null });
    this.edits++;
  }

  /** Records what the user heard of `turn`'s answer; settling it again replaces the first record. */
  settle(turn: number, s: Settlement): void {
    const i = this.exchanges.findIndex((e) => e.turn === turn);
    if (i < 0) return; // trimmed away or reset since
    if (s.type === 'dropped') this.exchanges.splice(i, 1);
    else {
      const e = this.exchanges[i]!;
      e.answer = s.type === 'whole' ? s.text : `${s.heard}…`;
      if (s.tools?.length) e.tools = s.tools;
    }
    this.edits++;
  }

  /** The system prompt, then each exchange; one not settled yet gives only the user's words. */
  messages(): ChatMessage[] {
    const out: ChatMessage[] = [{ role: 'system', text: this.nowLine ? `${this.prompt}\n\n${this.nowLine}` : this.prompt }];
    for (const e of this.exchanges) {
      out.push({ role: 'user', text: e.user });
      if (e.answer !== null) out.push({ role: 'assistant', text: e.answer, ...(e.tools ? { tools: e.tools } : {}) });
    }
    return out;
  }

  /**
   * Keeps a long conversation from growing without end: once the history passes half the context,
   * the oldest exchanges are dropped until it fits in a quarter (the system prompt stays). Cutting
   * well below the trigger means the model re-evaluates the history from scratch only now and then,
   * not on every turn.
   */
  trim(contextSize: number, countTokens: (text: string) => number): void {
    const size = (text: string) => countTokens(text) + FRAMING_TOKENS;
    const rounds = (e: Exchange) => (e.tools ?? []).reduce((n, r) => n + r.calls.reduce((m, c) => m + size(c.name + c.arguments), 0) + r.results.reduce((m, x) => m + size(x.content), 0), 0);
    const sizes = this.exchanges.map((e) => size(e.user) + (e.answer === null ? 0 : size(e.answer)) + rounds(e));
    let total = size(this.prompt) + sizes.reduce((a, b) => a + b, 0);
    if (total <= contextSize / 2) return;
    let cut = 0;
    while (cut < this.exchanges.length && total > contextSize / 4) total -= sizes[cut++]!;
    if (cut === 0) return;
    this.exchanges = this.exchanges.slice(cut);
    this.edits++;
  }

  /** Forgets every exchange; the system prompt stays. */
  reset(): void {
    this.exchanges = [];
    this.edits++;
  }
}
