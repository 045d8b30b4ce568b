/**
 * What the app (main.ts), dev:web and the tests give the controller: where its files are, and the
 * parts each of them supplies its own way.
 */
import type { ClipboardReader } from '../tools/clipboard';
import type { Opener } from '../tools/open';
import type { FetchFunction } from '../../native-models/downloader';
import type { Hardware } from '../../native-models/recommend';
import type { ModelEntry } from '../../native-models/types';
import type { DesktopShell } from '../desktop/shell';
import type { Clock } from '../pipeline/clock';
import type { AudioSink } from '../renderer-output';
import type { SecretStore } from '../secrets/secret-store';
import type { Settings } from '../settings/schema';

export interface ControllerOptions {
  /** settings.json, created on the first change. */
  settingsFile: string;
  /** Folders searched for models, most specific first, for these settings. */
  modelRoots(settings: Settings): string[];
  /** Where assistant audio goes: the connected renderer, or null. */
  audioSink(): AudioSink | null;
  /** Where first-run downloads go (the user's models folder). */
  downloadRoot: string;
  /** How downloads reach the network (default: Node's fetch; the app passes Electron's net.fetch, which honours system proxies). */
  fetch?: FetchFunction;
  /** The model catalog (a test or a mirror may give its own). */
  catalog?: readonly ModelEntry[];
  /** What the machine offers the LLM (for the recommended size); detected with llama.cpp by default. */
  detectHardware?: () => Promise<Hardware>;
  clock?: Clock;
  /** Where timers.json lives (default: the folder of settingsFile, the app's data folder). */
  dataDir?: string;
  /** The app's version, logged with each turn of the conversation history (the app passes its own). */
  appVersion?: string;
  /** Where the LLM server's API key is kept (default: an owner-only file in dataDir; the app passes safeStorage). */
  secrets?: SecretStore;
  /** Where the MCP servers' environment values are kept (default: an owner-only file in dataDir; the app passes safeStorage). */
  mcpSecrets?: SecretStore;
  /** The global shortcut and start at login (the Electron app's; none in dev:web and the tests). */
  shell?: DesktopShell;
  /** The clipboard the read_clipboard tool reads (Electron's in the app; none in dev:web: no such tool there). */
  clipboard?: ClipboardReader;
  /** The system's handler the open tool uses (Electron's shell in the app; none in dev:web). */
  opener?: Opener;
}
