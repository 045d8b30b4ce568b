/**
 * The global shortcut: one accelerator registered with Electron's globalShortcut at a time. Typed
 * structurally (the three calls used), so the app passes `globalShortcut` and the tests a stand-in.
 * globalShortcut reports presses only, not releases: a press activates one-shot listening.
 */
import { parseAccelerator } from '../settings/accelerator';

export type GlobalShortcutApi = {
  register(accelerator: string, callback: () => void): boolean;
  unregister(accelerator: string): void;
  unregisterAll(): void;
};

/** register() returned false: the OS gave the keys to another program first (it does not say which). */
export function shortcutTakenMessage(label: string): string {
  return `${label} is already used by another program. Choose another shortcut in Settings.`;
}

/** register() threw: Electron refused the accelerator itself. */
export function shortcutRefusedMessage(label: string, err: unknown): string {
  const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
  return `${label} could not be set as a global shortcut (${why}). Choose another shortcut in Settings.`;
}

export class GlobalShortcutBinding {
  /** The canonical accelerator in effect ('' = none). */
  private active = '';

  constructor(
    private readonly api: GlobalShortcutApi,
    private readonly platform: string,
    private readonly onPress: () => void,
  ) {}

  /** The shortcut in effect, canonical ('' = none): after a failed set, still the previous one. */
  get accelerator(): string {
    return this.active;
  }

  /**
   * Makes `accelerator` the shortcut ('' = none). null when it is in effect; else why not (invalid,
   * or taken by another program), and the previous shortcut stays registered.
   */
  set(accelerator: string): string | null {
    const parsed = parseAccelerator(accelerator, this.platform);
    if (!parsed.ok) return parsed.error;
    // Registering a shortcut this app already holds fails in Electron: it is in effect already.
    if (parsed.accelerator === this.active) return null;
    const previous = this.active;
    if (previous) this.api.unregister(previous);
    this.active = '';
    if (parsed.accelerator === '') return null;
    const error = this.register(parsed.accelerator, parsed.label);
    if (error === null) {
      this.active = parsed.accelerator;
      return null;
    }
    // The old keys were released a moment ago; taking them back normally succeeds.
    if (previous && this.register(previous, previous) === null) this.active = previous;
    return error;
  }

  private register(accelerator: string, label: string): string | null {
    try {
      return this.api.register(accelerator, this.onPress) ? null : shortcutTakenMessage(label);
    } catch (err) {
      return shortcutRefusedMessage(label, err);
    }
  }

  /** Releases every shortcut this app holds (at quit: the OS would, but not before the models are released). */
  dispose(): void {
    this.api.unregisterAll();
    this.active = '';
  }
}
