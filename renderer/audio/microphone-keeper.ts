/**
 * Keeps the microphone open: asks the system's permission first (the app says where to allow it), and
 * reopens the capture when it stops by itself (device unplugged, audio suspended by the system), when
 * a device is plugged in while none works, and when the assistant's watchdog asks (no sound for
 * seconds, or a resume from sleep). Reopens are serialized and at most one a second, so a device that
 * keeps failing cannot spin.
 */
import type { AssistantApi } from '../../electron/ipc-contract';
import { startMicrophone, type Microphone } from './microphone';

const MIN_REOPEN_GAP_MS = 1000;

export class MicrophoneKeeper {
  private mic: Microphone | null = null;
  private queue: Promise<void> = Promise.resolve();
  private lastOpen = -Infinity;

  constructor(
    private readonly api: AssistantApi,
    private readonly onLevel: (rms: number) => void,
    /** The microphone's problem in words (null: it works). */
    private readonly report: (error: string | null) => void,
  ) {
    navigator.mediaDevices?.addEventListener?.('devicechange', () => {
      if (!this.mic || this.mic.ended) void this.reopen();
    });
  }

  get current(): Microphone | null {
    return this.mic;
  }

  /** Opens the microphone if it is not open; resolves when done (its problem, if any, is reported). */
  open(): Promise<void> {
    return this.serialize(async () => {
      if (!this.mic) await this.start();
    });
  }

  /** Closes and opens the capture again. */
  reopen(): Promise<void> {
    return this.serialize(async () => {
      const old = this.mic;
      this.mic = null;
      await old?.stop().catch(() => undefined);
      await this.start();
    });
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async start(): Promise<void> {
    const wait = this.lastOpen + MIN_REOPEN_GAP_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.lastOpen = performance.now();
    const access = await this.api.request({ type: 'microphone-access' }).catch(() => ({ ok: true }) as const);
    if (!access.ok) {
      this.report(access.message);
      return;
    }
    try {
      this.mic = await startMicrophone(this.api, this.onLevel, () => void this.reopen());
      this.report(null);
    } catch (e) {
      this.report((e as Error).message);
    }
  }
}
