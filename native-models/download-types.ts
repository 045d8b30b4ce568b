/** What a download reports and takes: shared by the downloader, the one-file transfer and the progress line. */

export interface FileProgress {
  modelId: string;
  /** File name inside the model folder (the archive's name for archive models). */
  file: string;
  /** connecting: an attempt has started, nothing received yet; retrying: the last attempt failed, `message` says why and when the next is. */
  phase: 'waiting' | 'connecting' | 'downloading' | 'retrying' | 'verifying' | 'extracting' | 'done' | 'failed';
  receivedBytes: number;
  /** Null when neither the catalog nor the server says. */
  totalBytes: number | null;
  bytesPerSecond: number;
  /** Null when unknown. */
  etaSeconds: number | null;
  /** connecting, retrying, failed: one clause or sentence a person reads, naming the host, never the URL. */
  message?: string;
}

export interface FetchOptions {
  /** The models root: files go to `<root>/<entry.dir ?? entry.id>/`. */
  root: string;
  signal?: AbortSignal;
  onProgress?: (p: FileProgress) => void;
  /** Attempts per file for transient failures (network, 5xx, stalls). */
  attempts?: number;
  /** First retry delay; doubles each time. */
  backoffMs?: number;
  /** No byte for this long: the attempt is abandoned (and retried). */
  stallTimeoutMs?: number;
  /**
   * How requests reach the network (default: Node's fetch). The app passes Electron's `net.fetch`,
   * which goes through Chromium's network stack and so honours system, PAC and authenticating proxies.
   */
  fetch?: FetchFunction;
}

/** The part of `fetch` the downloader uses: Node's fetch and Electron's `net.fetch` both are one. */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;
