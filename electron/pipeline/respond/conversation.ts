import type { ChatMessage } from '../../engines/llm-types';
import type { ToolRound } from '../../engines/tool-calls';
import { matchesAll } from '../../memory/memory-book';

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
  /** The line about the present given with these words ('' when it had not changed since the last one given). */
  now: string;
}

/** Ends an answer the user cut off, in history: the model knows it was interrupted. */
export const CUT_MARK = '…';

/** An exchange whose answer is in (whole, heard in part, or none); not one still being answered, which may yet be dropped. */
const settled = (e: Exchange) => e.answer !== null;

/** The user's words with the line about the present before them, when there is one. */
function withNow(now: string, text: string): string {
  return now ? `[${now}]\n${text}` : text;
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
  /**
   * A line about the present (the local date and time), given with the user's words when it changed
   * since it was last given: in the system prompt it would change the prompt's start every minute,
   * and a model would evaluate the prompt (and the tools' description after it) again each time.
   */
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

  /** Sets the line about the present; an edit only when it changed (the next user message carries it). */
  setNow(line: string): void {
    if (line === this.nowLine) return;
    this.nowLine = line;
    this.edits++;
  }

  /**
   * The line about the present, if the next user message must carry it (it changed since it was last
   * given). Given means in a settled exchange: one still being answered may yet be dropped (the user
   * went on), and the words fed ahead for the turn that continues it must carry the line as its
   * answer's prompt will, once that exchange is gone.
   */
  private nowToGive(): string {
    const given = [...this.exchanges].reverse().find((e) => e.now && settled(e))?.now ?? '';
    return this.nowLine !== given ? this.nowLine : '';
  }

  /** The user's words as the model is given them: with the line about the present when it is new. */
  userMessage(text: string): ChatMessage {
    return { role: 'user', text: withNow(this.nowToGive(), text) };
  }

  /** The user's words for `turn`, about to be answered. */
  append(turn: number, userText: string): void {
    this.exchanges.push({ turn, user: userText, answer: null, now: this.nowToGive() });
    this.edits++;
  }

  /**
   * An exchange that happened outside a spoken turn (the window's Run for a tool): already settled,
   * with the call it ran, so the next turn knows.
   */
  appendDone(userText: string, answer: string, tools: readonly ToolRound[]): void {
    this.exchanges.push({ turn: -1, user: userText, answer, tools, now: this.nowToGive() });
    this.edits++;
  }

  /** Records what the user heard of `turn`'s answer; settling it again replaces the first record. */
  settle(turn: number, s: Settlement): void {
    const i = this.exchanges.findIndex((e) => e.turn === turn);
    if (i < 0) return; // trimmed away or reset since
    if (s.type === 'dropped') this.exchanges.splice(i, 1);
    else {
      const e = this.exchanges[i]!;
      e.answer = s.type === 'whole' ? s.text : `${s.heard}${CUT_MARK}`;
      if (s.tools?.length) e.tools = s.tools;
    }
    this.edits++;
  }

  /**
   * The system prompt, then each exchange; one not settled yet gives only the user's words, or
   * nothing with `settledOnly` (a turn being answered or dropped: its words are not yet history).
   */
  messages(settledOnly = false): ChatMessage[] {
    const out: ChatMessage[] = [{ role: 'system', text: this.prompt }];
    for (const e of this.exchanges) {
      if (settledOnly && !settled(e)) continue;
      out.push({ role: 'user', text: withNow(e.now, e.user) });
      if (e.answer !== null) out.push({ role: 'assistant', text: e.answer, ...(e.tools ? { tools: e.tools } : {}) });
    }
    return out;
  }

  /**
   * Keeps a long conversation from growing without end: once the history passes half the context,
   * the oldest exchanges are dropped until it fits in a quarter (the system prompt stays). Cutting
   * well below the trigger means the model re-evaluates the history from scratch only now and then,
   * not on every turn. `keep`: the latest exchanges never dropped (trimmed as an answer settles, the
   * exchange just had is what the next turn follows on). Returns whether it dropped any.
   */
  trim(contextSize: number, countTokens: (text: string) => number, keep = 0): boolean {
    const size = (text: string) => countTokens(text) + FRAMING_TOKENS;
    const rounds = (e: Exchange) => (e.tools ?? []).reduce((n, r) => n + r.calls.reduce((m, c) => m + size(c.name + c.arguments), 0) + r.results.reduce((m, x) => m + size(x.content), 0), 0);
    const sizes = this.exchanges.map((e) => size(withNow(e.now, e.user)) + (e.answer === null ? 0 : size(e.answer)) + rounds(e));
    let total = size(this.prompt) + sizes.reduce((a, b) => a + b, 0);
    if (total <= contextSize / 2) return false;
    let cut = 0;
    while (cut < this.exchanges.length - keep && total > contextSize / 4) total -= sizes[cut++]!;
    if (cut === 0) return false;
    // The first exchange kept carries the latest line given so far, or the model would lose the date.
    const given = this.exchanges.slice(0, cut).reverse().find((e) => e.now)?.now ?? '';
    this.exchanges = this.exchanges.slice(cut);
    if (this.exchanges[0] && !this.exchanges[0].now && given && !this.exchanges.some((e) => e.now)) this.exchanges[0].now = given;
    this.edits++;
    return true;
  }

  /**
   * Forgets the exchanges whose user words hold every one of `terms` (content terms: "forget what I
   * said about my sister" leaves no exchange about her for the model). No terms: nothing goes.
   */
  forgetExchanges(terms: readonly string[]): void {
    if (terms.length === 0) return;
    const kept = this.exchanges.filter((e) => !matchesAll(e.user, terms));
    if (kept.length === this.exchanges.length) return;
    this.exchanges = kept;
    this.edits++;
  }

  /** Forgets every exchange; the system prompt stays. */
  reset(): void {
    this.exchanges = [];
    this.edits++;
  }
}
