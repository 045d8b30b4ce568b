/** The app's own app:// protocol (and the bridge's static files): what is served, with which headers, and what is refused. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { appProtocolResponse, resolveStaticFile } from '../electron/static-files';
import { APP_PAGE_URL, CONTENT_SECURITY_POLICY, isAllowedPermission, isAppUrl, pageIdentity } from '../electron/window-policy';
import { tempDir } from './helpers';

const root = path.join(tempDir('lva-proto-'), 'renderer');
mkdirSync(root);
writeFileSync(path.join(root, 'index.html'), '<!doctype html><div id="root"></div>');
writeFileSync(path.join(root, 'capture-worklet.js'), 'registerProcessor("capture", class {});');
writeFileSync(path.join(path.dirname(root), 'secret.js'), 'nope');

test('app:// serves the page and its worklets with the CSP and the right types', async () => {
  const page = await appProtocolResponse(root, 'app://local/index.html');
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(page.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  assert.match(await page.text(), /id="root"/);
  assert.equal((await appProtocolResponse(root, 'app://local/')).status, 200);
  const worklet = await appProtocolResponse(root, 'app://local/capture-worklet.js?v=1');
  assert.equal(worklet.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(await worklet.text(), /registerProcessor/);
});

test('app:// refuses anything outside the renderer folder, unknown types and writes', async () => {
  for (const url of ['app://local/../secret.js', 'app://local/%2e%2e/secret.js', 'app://local/..%2fsecret.js', 'app://local/%2e%2e%2fsecret.js', 'app://local/missing.js', 'app://local/index.html%00.js', 'app://local/bad%zz.js', 'app://local/x.exe']) {
    assert.equal((await appProtocolResponse(root, url)).status, 404, url);
  }
  assert.equal((await appProtocolResponse(root, APP_PAGE_URL, 'POST')).status, 405);
  // A plain ".." is normalized away by URL parsing: it stays inside the folder.
  assert.equal(resolveStaticFile(root, '/../secret.js')?.file, path.join(root, 'secret.js'));
  assert.equal(resolveStaticFile(root, '/%2e%2e%2fsecret.js'), null);
});

test("app:// is one origin: the page's identity, and the microphone only for it", () => {
  assert.equal(pageIdentity(APP_PAGE_URL), 'app://local');
  assert.equal(isAppUrl('app://local/index.html#x', APP_PAGE_URL), true);
  assert.equal(isAppUrl('app://other/index.html', APP_PAGE_URL), false);
  assert.equal(isAllowedPermission('media', 'app://local/index.html', APP_PAGE_URL, { mediaTypes: ['audio'], isMainFrame: true }), true);
  assert.equal(isAllowedPermission('media', 'file:///index.html', APP_PAGE_URL, { mediaTypes: ['audio'] }), false);
  assert.equal(isAllowedPermission('media', 'app://evil/index.html', APP_PAGE_URL, { mediaTypes: ['audio'] }), false);
});
