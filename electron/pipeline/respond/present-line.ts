/**
 * The line about the present (the local date and time) the language model is given with the user's
 * words. It is told as of when the user began: the words fed ahead, a prepared answer and the reply
 * then share one prompt, and a minute that turns while they speak does not make the model evaluate
 * the whole request again.
 */
import type { Conversation } from './conversation';

export class PresentLine {
  /** The line was set when the turn in progress began. */
  private setForTurn = false;

  constructor(
    private readonly conversation: Conversation,
    /** Epoch ms now. */
    private readonly epochNow: () => number,
  ) {}

  get set(): boolean {
    return this.setForTurn;
  }

  /** A turn began; `refresh` false: it may continue a turn whose prompt began with the line as it was. */
  turnBegins(refresh: boolean): void {
    if (refresh) this.refresh();
    this.setForTurn = true;
  }

  /** A turn is answered with the line as of its start (or now, when none was set); the next turn tells it anew. */
  answering(): void {
    if (!this.setForTurn) this.refresh();
    this.setForTurn = false;
  }

  private refresh(): void {
    const d = new Date(this.epochNow());
    const date = d.toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
    const time = d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
    this.conversation.setNow(`It is now ${date}, ${time} (the user's local time).`);
  }
}
