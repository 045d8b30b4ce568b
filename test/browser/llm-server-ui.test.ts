/**
 * Choosing an LLM server in the window, in Chromium through `dev:web` (the same controller and
 * renderer as the app): the address, the model list from the server's /v1/models, the API key
 * (stored by main, never shown again), "test connection" with the time to the first token, and the
 * switch itself, after which the status bar says where the model runs.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { browserMissing, launchBrowser, openApp, pageErrors, startBridge, type Bridge } from '../browser-harness';
import { SPEECH } from '../helpers';
import { startOpenAiServer, type OpenAiTestServer } from '../openai-server';

const skip = process.env.SKIP_BROWSER_TESTS ? 'SKIP_BROWSER_TESTS is set' : false;
const KEY = 'sk-ui-test-93b1e0';

describe('the LLM server settings in Chromium', { skip }, () => {
  let server: OpenAiTestServer;
  let bridge: Bridge;
  before(async () => {
    const missing = browserMissing();
    if (missing) throw new Error(missing);
    server = await startOpenAiServer({ apiKey: KEY });
    bridge = await startBridge();
  });
  after(async () => {
    await bridge?.stop();
    await server?.close();
  });

  it('lists the models, stores the key, tests the connection and switches to the server', async () => {
    const browser = await launchBrowser(path.join(SPEECH, 'silence.wav'));
    try {
      const page = await openApp(browser, bridge.url);
      await page.getByTestId('tab-models').click();
      await page.getByTestId('llm-provider-server').check();
      await page.getByTestId('llm-url').fill(`${server.baseUrl}/`);
      const outcome = page.getByTestId('llm-outcome');

      await page.getByTestId('llm-list').click();
      await outcome.getByText(/wants an API key, and none is set \(401\)/).waitFor({ timeout: 30_000 });

      await page.getByTestId('llm-key').fill(KEY);
      await page.getByTestId('llm-key-save').click();
      await page.getByTestId('llm-key-state').getByText(/A key is stored for this address, kept in a file only your user account can read/).waitFor();
      assert.equal(await page.getByTestId('llm-key').inputValue(), '', 'the field is emptied once stored');
      // Another address typed: the key stays with its own server, and the window says so.
      await page.getByTestId('llm-url').fill('http://127.0.0.1:9/v1');
      await page.getByTestId('llm-key-state').getByText(`The stored key is for ${server.baseUrl} and is sent only there`).waitFor();
      await page.getByTestId('llm-url').fill(`${server.baseUrl}/`);
      await page.getByTestId('llm-key-state').getByText(/A key is stored for this address/).waitFor();

      await page.getByTestId('llm-list').click();
      await outcome.getByText('The server offers 1 model.').waitFor({ timeout: 30_000 });
      assert.equal(await page.getByTestId('llm-model').inputValue(), server.model, 'the listed model is chosen');

      await page.getByTestId('llm-test').click();
      await outcome.getByText(/^Connected: first token in \d+ ms\.$/).waitFor({ timeout: 60_000 });

      await page.getByTestId('llm-use-server').click();
      const host = new URL(server.baseUrl).host;
      await page.getByTestId('llm-line').getByText(`LLM ${server.model} on ${host}`).waitFor({ timeout: 60_000 });
      await page.getByTestId('llm-fallback').getByText(`the local model ${server.model} answers that turn`).waitFor();

      const settings = JSON.parse(await readFile(bridge.settingsFile, 'utf8')) as { llm: { provider: string; server: Record<string, unknown> } };
      assert.equal(settings.llm.provider, 'openai-compatible');
      assert.deepEqual(settings.llm.server, { baseUrl: server.baseUrl, model: server.model, stallMs: 10_000 }, 'the address is stored without its trailing slash, and no key');
      assert.ok(!(await page.content()).includes(KEY), 'the key is nowhere in the page');
      assert.deepEqual(pageErrors(page), []);
    } finally {
      await browser.close();
    }
  });
});
