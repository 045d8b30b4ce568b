/**
 * What an API key may look like (pure, browser-safe): keys are printable ASCII with no spaces. One
 * with a line break, a NUL or any other character cannot go in an HTTP header, and stored, every
 * request failed as "Cannot reach the LLM server".
 */

/** Longer than any provider's keys (OpenAI's project keys are about 164 characters). */
export const MAX_API_KEY_CHARS = 512;

/** Why `key` cannot be an API key, in one sentence that never repeats it; null when it can. */
export function apiKeyProblem(key: string): string | null {
  if (key.length > MAX_API_KEY_CHARS) return `The API key is ${key.length} characters long; a key is at most ${MAX_API_KEY_CHARS}. Paste just the key (the value is not shown).`;
  if (!/^[\x21-\x7e]*$/.test(key)) return 'The API key may only have letters, digits and punctuation (no spaces, line breaks or other characters). Paste just the key (the value is not shown).';
  return null;
}
