/**
 * A tool call's result as text for the model (pure): its text content joined, other content named
 * ("[an image]"), the structured content when there is no text. A result the server marks as an
 * error is thrown with its text, so the toolbox records the call as failed and tells the model why.
 * Bounded: the toolbox cuts results further (MAX_RESULT_CHARS), this only keeps a huge one from
 * being joined whole.
 */
const MAX_CHARS = 16_000;

type Content = { type: string; text?: unknown; resource?: { text?: unknown; uri?: unknown }; uri?: unknown; name?: unknown };

function piece(c: Content): string {
  switch (c.type) {
    case 'text':
      return typeof c.text === 'string' ? c.text : '';
    case 'image':
      return '[an image]';
    case 'audio':
      return '[a sound]';
    case 'resource':
      return typeof c.resource?.text === 'string' ? c.resource.text : `[a file: ${String(c.resource?.uri ?? '')}]`;
    case 'resource_link':
      return `[a link: ${String(c.name ?? '')} ${String(c.uri ?? '')}]`;
    default:
      return '';
  }
}

export function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Content[]) : [];
  let text = '';
  for (const c of content) {
    if (text.length > MAX_CHARS) break;
    const p = typeof c === 'object' && c !== null ? piece(c) : '';
    if (p) text += (text ? '\n' : '') + p;
  }
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  // The protocol's older form: { toolResult }.
  if (!text && result.toolResult !== undefined) text = JSON.stringify(result.toolResult);
  text = text.slice(0, MAX_CHARS);
  if (result.isError === true) throw new Error(text.trim() || 'the tool reported an error');
  return text || 'The tool gave no result.';
}
