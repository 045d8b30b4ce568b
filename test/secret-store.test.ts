/**
 * The API key's encrypted store with a stand-in cipher (Electron's safeStorage cannot run here; the
 * stand-in reverses bytes and counts its calls): status without decrypting, files from before the
 * clear header, a rotated system key, and an unusable keyring.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { encodeBoundKey } from '../electron/secrets/bound-key';
import { EncryptedFile, OwnerOnlyFile, type Cipher } from '../electron/secrets/secret-store';
import { tempDir } from './helpers';

class StandInCipher implements Cipher {
  readonly protection = 'encrypted by the stand-in';
  decrypts = 0;
  encrypts = 0;
  rotate = false;
  why: string | null = null;
  async unavailable() {
    return this.why;
  }
  async encrypt(text: string) {
    this.encrypts++;
    return Uint8Array.from(Buffer.from(`v10${text}`, 'utf8').reverse());
  }
  async decrypt(data: Uint8Array) {
    this.decrypts++;
    const text = Buffer.from(data).reverse().toString('utf8');
    if (!text.startsWith('v10')) throw new Error('not ours');
    return { text: text.slice(3), reEncrypt: this.rotate };
  }
}

const KEY = 'sk-test-0123456789abcdef';
const SERVER = 'http://127.0.0.1:11434/v1';

describe('the encrypted key store', () => {
  it('says whether a key is stored and its server without decrypting; the key itself needs the cipher', async () => {
    const file = path.join(tempDir('lva-secret-'), 'key.enc');
    const cipher = new StandInCipher();
    const store = new EncryptedFile(file, cipher);
    assert.deepEqual(await store.peek(), { stored: false, for: null });
    await store.set(encodeBoundKey({ key: KEY, baseUrl: SERVER }));
    assert.deepEqual(await store.peek(), { stored: true, for: SERVER });
    assert.equal(cipher.decrypts, 0, 'peek never decrypts');
    assert.equal(await store.get(), `${SERVER}\n${KEY}`);
    assert.equal(cipher.decrypts, 1);
    assert.ok(!readFileSync(file).includes(Buffer.from(KEY)), 'the key is not in the file in the clear');
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    await store.set(null);
    assert.deepEqual(await store.peek(), { stored: false, for: null });
  });

  it('a file from before the header is read, and rewritten with it; a rotated system key is re-encrypted', async () => {
    const file = path.join(tempDir('lva-secret-'), 'key.enc');
    const cipher = new StandInCipher();
    writeFileSync(file, await cipher.encrypt(`${SERVER}\n${KEY}`));
    const store = new EncryptedFile(file, cipher);
    assert.deepEqual(await store.peek(), { stored: true, for: null }, 'stored, its server unknown until decrypted');
    assert.equal(await store.get(), `${SERVER}\n${KEY}`);
    assert.deepEqual(await store.peek(), { stored: true, for: SERVER });
    const written = cipher.encrypts;
    await store.get();
    assert.equal(cipher.encrypts, written, 'a current file is only read');
    cipher.rotate = true;
    assert.equal(await store.get(), `${SERVER}\n${KEY}`);
    assert.equal(cipher.encrypts, written + 1, 'a rotated key: encrypted again');
  });

  it('an undecryptable file is one clear error; a keyring that cannot be used refuses to store, saving nothing', async () => {
    const dir = tempDir('lva-secret-');
    const file = path.join(dir, 'key.enc');
    writeFileSync(file, 'garbage');
    const cipher = new StandInCipher();
    const store = new EncryptedFile(file, cipher);
    await assert.rejects(store.get(), /cannot be decrypted \(not ours\).*Enter the key again in Settings/);
    const other = new EncryptedFile(path.join(dir, 'other.enc'), cipher);
    cipher.why = 'no desktop keyring';
    await assert.rejects(other.set(encodeBoundKey({ key: KEY, baseUrl: SERVER })), /cannot be stored encrypted here: no desktop keyring\. The key was not saved/);
    assert.deepEqual(await other.peek(), { stored: false, for: null });
  });

  it('a huge file is not read as a key', async () => {
    const file = path.join(tempDir('lva-secret-'), 'key.enc');
    writeFileSync(file, Buffer.alloc(100 * 1024, 1));
    await assert.rejects(new EncryptedFile(file, new StandInCipher()).peek(), /not a stored key/);
    await assert.rejects(new OwnerOnlyFile(file).get(), /not a stored key/);
  });

  it('the owner-only file (dev:web) says its server too', async () => {
    const store = new OwnerOnlyFile(path.join(tempDir('lva-secret-'), 'key'));
    await store.set(encodeBoundKey({ key: KEY, baseUrl: SERVER }));
    assert.deepEqual(await store.peek(), { stored: true, for: SERVER });
  });
});
