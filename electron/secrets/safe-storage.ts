/** Electron's safeStorage, through its asynchronous API (the synchronous one blocks main on the keychain, and goes in Electron 46), as the Cipher of the API key's store (main process only). */
import { safeStorage } from 'electron';
import type { Cipher } from './secret-store';

export const safeStorageCipher: Cipher = {
  get protection() {
    return process.platform === 'darwin' ? 'encrypted with the macOS Keychain' : process.platform === 'win32' ? 'encrypted with Windows DPAPI' : 'encrypted with the desktop keyring';
  },
  async unavailable() {
    if (!(await safeStorage.isAsyncEncryptionAvailable())) return 'the system has no keyring or keychain that Electron can use';
    // On Linux without a keyring safeStorage "encrypts" with a fixed password: that is no protection.
    if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
      return 'no desktop keyring (GNOME Keyring or KWallet) is running, so Electron could only hide it behind a fixed password';
    }
    return null;
  },
  encrypt: (text) => safeStorage.encryptStringAsync(text),
  async decrypt(data) {
    const { result, shouldReEncrypt } = await safeStorage.decryptStringAsync(Buffer.from(data));
    return { text: result, reEncrypt: shouldReEncrypt };
  },
};
