/**
 * An incremental reader of server-sent events (the `text/event-stream` format that OpenAI-compatible
 * servers stream chat completions in). Network chunks split lines anywhere, so lines are buffered
 * until complete; only the `data` field matters here (event names, ids and retry are ignored).
 */
export class SseReader {
  private buffer = '';
  private data: string[] = [];

  /** Adds decoded text; returns the data of each event it completed, in order. */
  push(text: string): string[] {
    this.buffer += text;
    // A trailing CR may be the first half of a CRLF split across chunks: wait for the next chunk.
    const cut = this.buffer.endsWith('\r') ? this.buffer.length - 1 : this.buffer.length;
    const lines = this.buffer.slice(0, cut).split(/\r\n|\r|\n/);
    this.buffer = lines.pop()! + this.buffer.slice(cut);
    const events: string[] = [];
    for (const line of lines) this.line(line, events);
    return events;
  }

  /**
   * The stream ended: what is left. The format says to drop an unterminated event, but some servers
   * end with `data: [DONE]` and no blank line after it, so it is kept.
   */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer) this.line(this.buffer.replace(/\r$/, ''), events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return; // a comment (servers send them as keep-alives)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    this.data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
}
