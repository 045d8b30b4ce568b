/**
 * The API key in a settings file's text, found and taken out, even when the file is not valid JSON:
 * a file the app cannot use is kept as a backup for the user to repair, and that backup must not
 * hold the key in plain text. The MCP servers' environment values (`"env": {...}`) are blanked too.
 * Pure.
 */
import { apiKeyProblem } from '../secrets/api-key-shape';

export interface FoundKey {
  key: string;
  /** The server address beside it in the file, if one could be read. */
  baseUrl: string | null;
}

/** `"apiKey": "…"` as JSON writes a string, wherever it is (the file may not parse). */
const KEY_FIELD = /("apiKey"\s*:\s*)"((?:[^"\\\r\n]|\\.)*)"/g;
const URL_FIELD = /"baseUrl"\s*:\s*"((?:[^"\\\r\n]|\\.)*)"/;
/** An MCP server's `"env": {...}` (a flat object of strings), and each `"NAME": "value"` in it. */
const ENV_FIELD = /("env"\s*:\s*\{)((?:"(?:[^"\\\r\n]|\\.)*"|[^{}"])*)\}/g;
const ENV_VALUE = /("(?:[^"\\\r\n]|\\.)*"\s*:\s*)"((?:[^"\\\r\n]|\\.)*)"/g;

function unquote(inner: string): string | null {
  try {
    const v = JSON.parse(`"${inner}"`) as unknown;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * The text with every `apiKey` value replaced (and any other copy of the key), and the first key
 * that is a valid key, with the address beside it. A key that is not a valid key is still taken out.
 */
export function takeSecrets(text: string): { text: string; key: FoundKey | null; envTaken: boolean } {
  const keys: string[] = [];
  const values: string[] = [];
  let out = text.replace(KEY_FIELD, (_m, head: string, inner: string) => {
    const value = unquote(inner);
    if (value !== null && value.trim()) keys.push(value.trim());
    return `${head}"(taken out: the key is kept in the app's key store)"`;
  });
  out = out.replace(ENV_FIELD, (_m, head: string, body: string) => {
    const blanked = body.replace(ENV_VALUE, (_v, name: string, inner: string) => {
      const value = unquote(inner);
      if (value) values.push(value);
      return `${name}""`;
    });
    return `${head}${blanked}}`;
  });
  // A secret repeated elsewhere (a comment, another field) goes too, raw or JSON-escaped.
  for (const k of [...keys, ...values]) for (const form of new Set([k, JSON.stringify(k).slice(1, -1)])) if (form.length >= 8) out = out.split(form).join('***');
  const key = keys.find((k) => apiKeyProblem(k) === null) ?? null;
  const url = URL_FIELD.exec(text);
  const baseUrl = url ? unquote(url[1]!) : null;
  return { text: out, key: key === null ? null : { key, baseUrl }, envTaken: values.length > 0 };
}
