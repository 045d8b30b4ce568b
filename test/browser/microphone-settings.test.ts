/**
 * The microphone's processing as the browser reports it: a track's settings read into the typed
 * fields (anything unknown is "not reported"), what was not honoured, the Models panel's words for
 * it, and the history's copy without the device's name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedMicrophone, microphoneProblem, notHonoured, readTrackSettings, REQUESTED_PROCESSING, type MicrophoneSettings } from '../../electron/microphone-settings';
import { microphoneLines } from '../../renderer/model/labels';

const RAW: MicrophoneSettings = { echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1, label: 'Fake Default Audio Input' };

describe('the microphone settings the browser applied', () => {
  it('the app asks for every browser processing off', () => {
    assert.deepEqual(REQUESTED_PROCESSING, { echoCancellation: false, autoGainControl: false, noiseSuppression: false });
  });

  it('reads a track\'s settings into the typed fields; the device id and anything else are left behind', () => {
    const chromium = { deviceId: 'default', groupId: 'f00d', echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1, sampleSize: 16, latency: 0.01, voiceIsolation: false };
    assert.deepEqual(readTrackSettings(chromium, 'Fake Default Audio Input'), RAW);
    assert.equal(microphoneProblem(readTrackSettings(chromium, 'x')), null, 'what is read always passes the contract');
    // A browser that says nothing, or says it in a form not known here: not reported, never guessed.
    assert.deepEqual(readTrackSettings({ echoCancellation: 'maybe', autoGainControl: 1, sampleRate: 44100.5, channelCount: -1 }, ''), {
      echoCancellation: null,
      autoGainControl: null,
      noiseSuppression: null,
      sampleRate: null,
      channelCount: null,
    });
    assert.equal(readTrackSettings({ echoCancellation: 'remote-only' }, '').echoCancellation, 'remote-only');
    assert.equal(readTrackSettings({}, 'y'.repeat(500)).label?.length, 200, 'a long name is cut to what the contract takes');
  });

  it('says which requests were not honoured: a canceller that cancels only remote audio is still on', () => {
    assert.deepEqual(notHonoured(RAW), []);
    assert.deepEqual(notHonoured({ ...RAW, echoCancellation: true, noiseSuppression: true }), ['echoCancellation', 'noiseSuppression']);
    assert.deepEqual(notHonoured({ ...RAW, echoCancellation: 'remote-only' }), ['echoCancellation']);
    assert.deepEqual(notHonoured({ ...RAW, autoGainControl: null, channelCount: null }), [], 'not reported is not a refusal');
    assert.deepEqual(notHonoured({ ...RAW, channelCount: 2 }), ['channelCount']);
  });

  it('the Models panel line: rate, channels and each processing, and a plain sentence when one stayed on', () => {
    assert.deepEqual(microphoneLines(RAW), { line: '48 kHz, 1 channel; browser echo cancellation off, auto gain off, noise suppression off', notHonoured: [] });
    const kept = microphoneLines({ ...RAW, sampleRate: 44100, channelCount: 2, echoCancellation: true, autoGainControl: null });
    assert.equal(kept.line, '44.1 kHz, 2 channels; browser echo cancellation on, auto gain not reported, noise suppression off');
    assert.deepEqual(kept.notHonoured, [
      { level: 'error', text: "The browser did not turn its echo cancellation off as the app asked: it still runs in front of the app's own echo canceller and input gain." },
      { level: 'info', text: 'The browser opened 2 channels although the app asked for 1: the app listens to the first.' },
    ]);
    const unknown = microphoneLines({ ...RAW, sampleRate: null, channelCount: null, echoCancellation: 'all' });
    assert.equal(unknown.line, 'rate not reported, channels not reported; browser echo cancellation on (all audio), auto gain off, noise suppression off');
  });

  it('the history keeps the settings without the device\'s name', () => {
    assert.deepEqual(loggedMicrophone(RAW), { echoCancellation: false, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1 });
  });
});
