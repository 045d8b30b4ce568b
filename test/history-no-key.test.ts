/**
 * The conversation history never holds the API key: `talk --log` hands the recorder settings read
 * from a file that may carry one (the app's own settings never do: the key lives in the key store).
 * The log line keeps a hash of the settings, and that hash must not depend on the key either (a hash
 * of a short key can be guessed back).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { HistoryRecorder } from '../electron/history/recorder';
import { settingsHash } from '../electron/history/settings-hash';
import { DEFAULT_SETTINGS, mergeSettings } from '../electron/settings/schema';
import { TEST_CATALOG } from '../native-models/catalog';
import { tempDir } from './helpers';
import { sampleReport } from './history-fixtures';

const KEY = 'sk-Hk3x9QwErTy7uIoP2aSdFgHjKl';

/** Any 8 characters of the key in a row. */
function keyIn(text: string): boolean {
  for (let i = 0; i + 8 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 8))) return true;
  return false;
}

describe('the history log and the API key', () => {
  const withKey = (key: string) =>
    mergeSettings(DEFAULT_SETTINGS, { llm: { provider: 'openai-compatible', server: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: key } } });

  it('settings with a key: turns are logged, the key is in no line, and the settings hash does not depend on it', async () => {
    const dir = tempDir('lva-history-key-');
    const recorder = new HistoryRecorder(dir, { app: '0.1.0', catalog: TEST_CATALOG });
    const settings = withKey(KEY);
    const route = { provider: 'openai-compatible' as const, fallback: false, error: null };
    for (let i = 0; i < 3; i++) {
      const r = await recorder.record(sampleReport({ index: i, llm: route }), settings, {});
      assert.equal(r.ok, true, JSON.stringify(r));
    }
    await recorder.flush();
    const files = readdirSync(dir, { recursive: true }).map(String);
    assert.ok(files.length > 0, 'something was logged');
    const text = files.map((f) => readFileSync(path.join(dir, f), { encoding: 'utf8', flag: 'r' })).join('\n');
    assert.equal(text.trim().split('\n').length, 3, 'three turns logged');
    assert.equal(keyIn(text), false, 'the key is in the history');
    assert.equal(settingsHash(settings), settingsHash(withKey('sk-another-key-entirely-0000')), 'the hash changes with the key');
    assert.notEqual(settingsHash(settings), settingsHash(mergeSettings(settings, { llm: { maxTokens: 77 } })), 'but with a setting it does');
  });
});
