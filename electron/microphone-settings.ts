/**
 * The microphone's processing: what the app asks the browser for, and what the browser says it
 * applied (`MediaStreamTrack.getSettings()`). The app owns its audio front end: it knows exactly what
 * it played, so it cancels its own echo and sets its own input gain, and asks the browser for raw
 * capture. A browser may not honour that, so what it applied is reported, shown and logged. Pure and
 * browser-safe: the renderer reads a track with it, the IPC contract and the history reader check with it.
 */

/** The browser's processing the app asks to be off (see docs/turn-taking.md, "The microphone"). */
export const REQUESTED_PROCESSING = { echoCancellation: false, autoGainControl: false, noiseSuppression: false } as const;

export type ProcessingName = keyof typeof REQUESTED_PROCESSING;
export const PROCESSING_NAMES = Object.keys(REQUESTED_PROCESSING) as ProcessingName[];

/** One channel: the capture worklet listens to the first channel of whatever the browser opens. */
export const REQUESTED_CHANNELS = 1;

/**
 * What the browser applied; null where it did not say. echoCancellation may also be 'all' or
 * 'remote-only' (values proposed in 2025 to say which playback the canceller takes as its reference).
 */
export interface MicrophoneSettings {
  echoCancellation: boolean | 'all' | 'remote-only' | null;
  autoGainControl: boolean | null;
  noiseSuppression: boolean | null;
  /** The device's capture rate (Hz), before the app's AudioContext resamples it to 16 kHz. */
  sampleRate: number | null;
  channelCount: number | null;
  /**
   * The device's name as the browser gives it ("USB Audio Device", "Anna's AirPods"), for the window
   * only: a name may be personal, so it is never logged. The device id is not taken at all: an opaque,
   * stable per-site identifier that tells a person nothing.
   */
  label?: string;
}

/** What the conversation history keeps: the settings without the device's name. */
export type LoggedMicrophone = Omit<MicrophoneSettings, 'label'>;

export const MAX_MIC_LABEL_LENGTH = 200;

const KEYS: readonly (keyof MicrophoneSettings)[] = ['echoCancellation', 'autoGainControl', 'noiseSuppression', 'sampleRate', 'channelCount', 'label'];

/** The settings as the browser reported them: anything it left out, or gave in a form not known here, is null. */
export function readTrackSettings(reported: Record<string, unknown>, label: string): MicrophoneSettings {
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
  const ec = reported.echoCancellation;
  return {
    echoCancellation: typeof ec === 'boolean' || ec === 'all' || ec === 'remote-only' ? ec : null,
    autoGainControl: bool(reported.autoGainControl),
    noiseSuppression: bool(reported.noiseSuppression),
    sampleRate: isCount(reported.sampleRate, MAX_SAMPLE_RATE) ? reported.sampleRate : null,
    channelCount: isCount(reported.channelCount, MAX_CHANNELS) ? reported.channelCount : null,
    ...(label ? { label: label.slice(0, MAX_MIC_LABEL_LENGTH) } : {}),
  };
}

const MAX_SAMPLE_RATE = 768_000;
const MAX_CHANNELS = 64;

function isCount(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= max;
}

/** Null when `v` is microphone settings as the window sends them (or the history logs them); else what is wrong. */
export function microphoneProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'must be an object';
  const m = v as Record<string, unknown>;
  const extra = Object.keys(m).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (extra.length) return `has unknown field(s) ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}`;
  const ec = m.echoCancellation;
  if (!(ec === null || typeof ec === 'boolean' || ec === 'all' || ec === 'remote-only')) return '"echoCancellation" must be true, false, "all", "remote-only" or null';
  for (const k of ['autoGainControl', 'noiseSuppression'] as const) if (!(m[k] === null || typeof m[k] === 'boolean')) return `"${k}" must be true, false or null`;
  if (!(m.sampleRate === null || isCount(m.sampleRate, MAX_SAMPLE_RATE))) return `"sampleRate" must be a whole number of Hz up to ${MAX_SAMPLE_RATE}, or null`;
  if (!(m.channelCount === null || isCount(m.channelCount, MAX_CHANNELS))) return `"channelCount" must be a whole number from 1 to ${MAX_CHANNELS}, or null`;
  if (!(m.label === undefined || (typeof m.label === 'string' && m.label.length <= MAX_MIC_LABEL_LENGTH))) return `"label" must be text of at most ${MAX_MIC_LABEL_LENGTH} characters`;
  return null;
}

/** Whether a processing value means "on" ('all' and 'remote-only' cancel too); null when not reported. */
export function processingOn(v: MicrophoneSettings[ProcessingName]): boolean | null {
  return v === null ? null : v !== false;
}

/** What the browser reported applying otherwise than the app asked (a value it did not report is no refusal). */
export function notHonoured(m: MicrophoneSettings | LoggedMicrophone): (ProcessingName | 'channelCount')[] {
  const processing = PROCESSING_NAMES.filter((k) => {
    const on = processingOn(m[k]);
    return on !== null && on !== REQUESTED_PROCESSING[k];
  });
  return m.channelCount !== null && m.channelCount !== REQUESTED_CHANNELS ? [...processing, 'channelCount'] : processing;
}

/** The settings as the history keeps them: the device's name left out. */
export function loggedMicrophone(m: MicrophoneSettings): LoggedMicrophone {
  const { label: _label, ...rest } = m;
  return rest;
}
