/**
 * The Tools tab in Chromium through `dev:web` (the app's controller and renderer): a real MCP server
 * written with the SDK (test/fixtures/mcp-server.mjs), named in the settings file, appears ready
 * with its tools beside the built-ins; a tool's switch writes its server's disabledTools, and the
 * environment value given in the file reaches neither settings.json nor the page. With the language
 * model on a scripted server that asks for the server's write_file (a tool that may change
 * something), a spoken request brings up the question with Run and Cancel, and Run runs the tool.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Settings } from '../../electron/settings/schema';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, TEST_SETTINGS, type Bridge } from '../browser-harness';
import { ROOT, SPEECH, tempDir } from '../helpers';
import { scriptedServer, type ScriptedServer } from '../scripted-tools-server';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;
const SECRET = 'tools-ui-secret-5521';

describe('the Tools tab in Chromium', { skip }, () => {
  let bridge: Bridge;
  let llm: ScriptedServer;
  before(async () => {
    // Asks for write_file until a call is in the conversation, then answers. Only the spoken test asks it.
    llm = await scriptedServer((body) =>
      body.messages.some((m) => m.tool_calls?.length)
        ? [JSON.stringify({ choices: [{ index: 0, delta: { content: 'All right.' }, finish_reason: 'stop' }] })]
        : [JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '{"path":"plan.txt"}' } }] }, finish_reason: 'tool_calls' }] })],
    );
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    const marks = path.join(tempDir('lva-tools-ui-'), 'marks.txt');
    await writeFile(marks, '');
    const server = { name: 'test tools', command: process.execPath, args: [path.join(ROOT, 'test', 'fixtures', 'mcp-server.mjs')], env: { MCP_TEST_MARKS: marks, TOKEN: SECRET } };
    const llmSettings = { ...TEST_SETTINGS.llm, provider: 'openai-compatible', server: { baseUrl: llm.baseUrl, model: 'm' } };
    bridge = await startBridge({ settings: { ...TEST_SETTINGS, llm: llmSettings, tools: { mcpServers: [server] } } });
  });
  after(async () => {
    await bridge?.stop();
    await llm?.close();
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

  it('a spoken request for a tool that may change something shows the question; Run runs it', async () => {
    const browser = await launchBrowser(path.join(SPEECH, 'weather.wav'));
    try {
      const page = await openApp(browser, bridge.url);
      const question = page.getByTestId('tool-confirmation');
      await question.waitFor({ timeout: 60_000 });
      assert.match((await question.textContent()) ?? '', /about to use write_file from test tools\. Say “yes” or “no”/);
      await page.getByTestId('tab-tools').click();
      const last = page.getByTestId('mcp-test tools-tool-write_file-last');
      assert.equal(await last.textContent(), 'not called yet', 'nothing ran before the yes');
      await page.getByTestId('confirmation-run').click();
      await question.waitFor({ state: 'detached', timeout: 10_000 });
      await page.locator('[data-testid="mcp-test tools-tool-write_file-last"]', { hasText: /^last call / }).waitFor({ timeout: 10_000 });
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
