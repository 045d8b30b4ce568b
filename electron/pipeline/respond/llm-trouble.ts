/**
 * What the assistant says when the language model fails a turn: one short spoken line per kind of
 * failure. The window shows the full message (the turn's error); the voice only says enough for a
 * user who is looking elsewhere to know what happened and that it is not their words.
 */
import { LLM_SERVER_ERROR } from '../../engines/openai-errors';
import { LLM_SLOW_CODE } from '../../engines/llm-fallback';

const LINES: Record<string, string> = {
  [LLM_SERVER_ERROR.unreachable]: "I can't reach the language model server.",
  [LLM_SERVER_ERROR.auth]: 'The language model server refused the API key.',
  [LLM_SERVER_ERROR.model]: "The language model server doesn't have the model that is set.",
  [LLM_SERVER_ERROR.busy]: 'The language model server is busy. Please try again in a moment.',
  [LLM_SERVER_ERROR.http]: 'The language model server returned an error.',
  [LLM_SERVER_ERROR.address]: 'The language model server address is not valid.',
  [LLM_SLOW_CODE]: 'The language model server is taking too long to answer.',
};

/** The spoken line for a failed answer; `spoke` says whether part of the answer was already spoken. */
export function troubleLine(e: unknown, spoke: boolean): string {
  const code = (e as { code?: unknown })?.code;
  if (code === LLM_SERVER_ERROR.stream) return spoke ? "Sorry, the server's answer broke off." : 'The answer from the language model server broke off.';
  return (typeof code === 'string' && LINES[code]) || 'Sorry, the language model failed.';
}
