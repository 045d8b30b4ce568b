/**
 * Holds messages for the window's page while it loads and delivers them, in order, once it has
 * loaded. Sent during a load, they would be lost: the page's listeners may not exist yet, and a
 * status that changed between the page's snapshot request and the end of the load (the models
 * becoming ready, a notice) would never reach it.
 */
export class PageGate<T> {
  private held: T[] = [];
  private open = false;

  /** `max` bounds what a page that never finishes loading can pile up (the newest are kept). */
  constructor(
    private readonly deliver: (message: T) => void,
    private readonly max = 1000,
  ) {}

  send(message: T): void {
    if (this.open) {
      this.deliver(message);
      return;
    }
    this.held.push(message);
    if (this.held.length > this.max) this.held.shift();
  }

  /** A load started (the first page, a reload): hold from now on. */
  close(): void {
    this.open = false;
  }

  /** The page has loaded: what was held goes first, then everything passes straight through. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const m of held) this.deliver(m);
    this.open = true;
  }
}
