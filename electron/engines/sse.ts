/**
 * An incremental reader of server-sent events (the `text/event-stream` format that OpenAI-compatible
 * servers stream chat completions in). Network chunks split lines anywhere, so lines are buffered
 * until complete; only the `data` field matters here (event names, ids and retry are ignored).
 *
 * Linear in what arrives: each chunk is scanned once, and an unfinished line is kept as pieces, not
 * re-joined and re-split with every chunk. A line or an event longer than `maxChars` is an error
 * (SseTooLong), so a server that grows one line forever costs bounded memory.
 */
export class SseTooLong extends Error {
  constructor(readonly maxChars: number) {
    super(`it sent a line or event longer than ${Math.round(maxChars / 1024)} kB`);
  }
}

/** Larger than any completion chunk of a real server (one token each, or a whole answer at most). */
export const SSE_MAX_CHARS = 1 << 20;

export class SseReader {
  /** The unfinished line, in the pieces it arrived in. */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The last chunk ended with CR: a LF starting the next one belongs to it. */
  private afterCr = false;
  private data: string[] = [];
  private dataChars = 0;

  constructor(private readonly maxChars = SSE_MAX_CHARS) {}

  /** Adds decoded text; returns the data of each event it completed, in order. */
  push(text: string): string[] {
    const events: string[] = [];
    let start = 0;
    if (this.afterCr && text.startsWith('\n')) start = 1;
    this.afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.take(text.slice(start, i));
      this.line(this.pending.join(''), events);
      this.pending = [];
      this.pendingChars = 0;
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.afterCr = true;
        }
      }
      start = i + 1;
    }
    this.take(text.slice(start));
    return events;
  }

  /**
   * The stream ended: what is left. The format says to drop an unterminated event, but some servers
   * end with `data: [DONE]` and no blank line after it, so it is kept.
   */
  end(): string[] {
    const events: string[] = [];
    if (this.pendingChars > 0) this.line(this.pending.join(''), events);
    this.pending = [];
    this.pendingChars = 0;
    this.line('', events);
    return events;
  }

  private take(piece: string): void {
    if (!piece) return;
    this.pendingChars += piece.length;
    if (this.pendingChars + this.dataChars > this.maxChars) throw new SseTooLong(this.maxChars);
    this.pending.push(piece);
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.join('\n'));
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (line.startsWith(':')) return; // a comment (servers send them as keep-alives)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    const data = value.startsWith(' ') ? value.slice(1) : value;
    this.dataChars += data.length + 1;
    if (this.dataChars > this.maxChars) throw new SseTooLong(this.maxChars);
    this.data.push(data);
  }
}
