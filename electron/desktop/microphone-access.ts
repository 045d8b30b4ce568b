/**
 * Whether the system lets this app use the microphone, asked before the window opens it. Since
 * Electron 32 a microphone the system has denied makes getUserMedia fail with NotAllowedError, and
 * the fix is in the system's settings, not in the window: macOS asks the user once (askForMediaAccess)
 * and otherwise needs Privacy & Security, then a restart; Windows has a privacy switch for desktop apps.
 * Typed structurally, so the flow is tested with a stand-in for systemPreferences.
 */

export type MicrophoneAccess = { ok: true } | { ok: false; message: string };

type MediaAccessStatus = 'not-determined' | 'granted' | 'denied' | 'restricted' | 'unknown';

export interface MediaAccessApi {
  getMediaAccessStatus(mediaType: 'microphone'): MediaAccessStatus;
  /** macOS only. */
  askForMediaAccess(mediaType: 'microphone'): Promise<boolean>;
}

const MAC_FIX = 'Open System Settings > Privacy & Security > Microphone, switch on Local Voice Assistant, then quit the app and start it again.';
const WINDOWS_FIX = 'Open Settings > Privacy & security > Microphone, switch on "Microphone access" and "Let desktop apps access your microphone", then restart the app.';

export async function microphoneAccess(platform: NodeJS.Platform, api: MediaAccessApi): Promise<MicrophoneAccess> {
  if (platform !== 'darwin' && platform !== 'win32') return { ok: true };
  let status: MediaAccessStatus;
  try {
    status = api.getMediaAccessStatus('microphone');
  } catch {
    // Cannot tell: let getUserMedia try, and say what it says.
    return { ok: true };
  }
  if (status === 'granted' || status === 'unknown') return { ok: true };
  if (platform === 'win32') {
    return status === 'denied' || status === 'restricted' ? { ok: false, message: `Windows blocks the microphone for this app. ${WINDOWS_FIX}` } : { ok: true };
  }
  if (status === 'not-determined') {
    // macOS shows its own dialog once; the answer is kept by the system.
    const granted = await api.askForMediaAccess('microphone').catch(() => false);
    return granted ? { ok: true } : { ok: false, message: `Microphone access was not allowed. ${MAC_FIX}` };
  }
  if (status === 'restricted') return { ok: false, message: 'The microphone is restricted on this Mac (a device management profile or Screen Time). Ask whoever manages it, or check Screen Time > Content & Privacy.' };
  return { ok: false, message: `macOS has denied this app the microphone. ${MAC_FIX}` };
}
