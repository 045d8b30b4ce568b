/**
 * Notices a microphone that stopped without a word: an unplugged device, an audio context the OS
 * suspended, a sleep and resume, a renderer that hangs. The window sends a frame every 20 ms while
 * its microphone runs; once frames have started, a gap of `silentMs` asks the window to reopen the
 * microphone, a second gap reloads the page, and a third is reported (the tray and the window say
 * so) until frames come back. Pure: the caller passes the time and carries out the action.
 */

export type WatchdogAction = 'none' | 'restart-capture' | 'reload-page' | 'report' | 'recovered';

export interface WatchdogOptions {
  /** No frame for this long, after frames had started, counts as stopped. */
  silentMs: number;
}

export const DEFAULT_WATCHDOG: WatchdogOptions = { silentMs: 2000 };

/** What was last done about the gap: each step waits `silentMs` for frames before the next. */
type Stage = 'idle' | 'watching' | 'restarted' | 'reloaded' | 'reported';

export class MicWatchdog {
  private stage: Stage = 'idle';
  private since = 0;

  constructor(private readonly options: WatchdogOptions = DEFAULT_WATCHDOG) {}

  /** A microphone frame arrived. 'recovered' when a reported stop is over. */
  frame(now: number): WatchdogAction {
    const wasReported = this.stage === 'reported';
    this.stage = 'watching';
    this.since = now;
    return wasReported ? 'recovered' : 'none';
  }

  /**
   * The page is (re)loading: frames stop for a moment, and start again once its microphone opens.
   * A reload the watchdog asked for keeps watching (frames must come back); any other one waits for
   * the first frame, since the microphone may rightly stay closed (access denied, no device).
   */
  pageLoading(now: number): void {
    if (this.stage === 'reloaded') this.since = now;
    else if (this.stage !== 'reported') this.stage = 'idle';
  }

  /** The window is gone (closed on macOS, its page crashed): no frames are expected until a page sends one. */
  pageGone(): void {
    this.stage = 'idle';
  }

  /** The system resumed from sleep: the capture is reopened at once rather than after a gap. */
  resumed(now: number): WatchdogAction {
    if (this.stage === 'idle') return 'none';
    this.stage = 'restarted';
    this.since = now;
    return 'restart-capture';
  }

  /** Called a few times a second. */
  tick(now: number): WatchdogAction {
    if (this.stage === 'idle' || this.stage === 'reported') return 'none';
    if (now - this.since < this.options.silentMs) return 'none';
    this.since = now;
    switch (this.stage) {
      case 'watching':
        this.stage = 'restarted';
        return 'restart-capture';
      case 'restarted':
        this.stage = 'reloaded';
        return 'reload-page';
      case 'reloaded':
        this.stage = 'reported';
        return 'report';
    }
  }

  /** Whether a stop is being reported now. */
  get reporting(): boolean {
    return this.stage === 'reported';
  }
}

/** What the tray and the window say while the microphone sends nothing. */
export const MICROPHONE_STOPPED = 'The microphone stopped sending sound (unplugged, or taken by the system). Check the device: it is reopened when a microphone is plugged in; else restart the app.';
