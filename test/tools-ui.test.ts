/**
 * The Tools tab in Chromium through `dev:web` (the app's controller and renderer): a real MCP server
 * written with the SDK (test/fixtures/mcp-server.mjs), named in the settings file, appears ready
 * with its tools beside the built-ins; a tool's switch writes its server's disabledTools, and the
 * environment value given in the file reaches neither settings.json nor the page.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Settings } from '../electron/settings/schema';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, TEST_SETTINGS, type Bridge } from './browser-harness';
import { ROOT, SPEECH, tempDir } from './helpers';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;
const SECRET = 'tools-ui-secret-5521';

describe('the Tools tab in Chromium', { skip }, () => {
  let bridge: Bridge;
  before(async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const marks = path.join(tempDir('lva-tools-ui-'), 'marks.txt');
    await writeFile(marks, '');
    const server = { name: 'test tools', command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'mcp-server.mjs')], env: { MCP_TEST_MARKS: marks, TOKEN: SECRET } };
    bridge = await startBridge({ settings: { ...TEST_SETTINGS, tools: { mcpServers: [server] } } });
  });
  after(async () => {
    await bridge?.stop();
  });

  it('lists the MCP server as ready with its tools, and a tool switched off is written to its server', async () => {
    const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
    try {
      const page = await openApp(browser, bridge.url);
      await page.getByTestId('tab-tools').click();
      const server = page.getByTestId('mcp-test tools');
      await server.getByTestId('mcp-test tools-state').getByText(/^ready$/).waitFor({ timeout: 30_000 });
      for (const tool of ['echo', 'slow', 'env', 'crash', 'write_file', 'fail']) await server.getByTestId(`mcp-test tools-tool-${tool}`).waitFor();
      await server.getByTestId('mcp-test tools-tool-write_file').getByText('asks first').waitFor();
      assert.equal(await server.getByTestId('mcp-test tools-tool-echo-last').textContent(), 'not called yet');
      assert.match((await server.getByTestId('mcp-test tools-where').textContent()) ?? '', /mcp-server\.mjs · environment: MCP_TEST_MARKS, TOKEN \(values kept by the app, not shown\)/);
      await page.getByTestId('tool-add_note').waitFor();

      const echo = server.getByTestId('mcp-test tools-tool-echo-switch');
      assert.equal(await echo.getAttribute('aria-checked'), 'true');
      await echo.click();
      await page.locator('[data-testid="mcp-test tools-tool-echo-switch"][aria-checked=false]').waitFor();
      const saved = JSON.parse(await readFile(bridge.settingsFile, 'utf8')) as Settings;
      const entry = saved.tools.mcpServers[0]!;
      assert.deepEqual(entry.disabledTools, ['echo']);
      assert.ok('env' in entry && entry.env.TOKEN === '', 'the file keeps the name only');
      assert.equal(await server.getByTestId('mcp-test tools-state').textContent(), 'ready', 'switching a tool restarts nothing');

      assert.ok(!(await page.content()).includes(SECRET), 'the value is nowhere in the page');
      assert.ok(!JSON.stringify(saved).includes(SECRET), 'nor in settings.json');
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
