/**
 * `npm run dev:web -- [--port PORT] [--models DIR] [--settings FILE] [--catalog FILE]`: the assistant in a browser.
 * Runs the same controller as the app behind the WebSocket bridge and serves the built renderer
 * (`npm run dev:web` builds it first) on 127.0.0.1, then prints the URL to open.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors';
import { BUNDLED_MODELS_DIR, defaultUserDataDir, defaultUserModelsDir, searchOrder } from '../../native-models/resolver';
import { loadCatalogFile } from '../../native-models/catalog-file';
import { packageVersion } from './app-version';
import { parseCli, runCli } from './args';

const USAGE = 'npm run dev:web -- [--port PORT] [--models DIR] [--settings FILE] [--catalog FILE]';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

runCli(async () => {
  const { values } = parseCli(
    process.argv.slice(2),
    { port: { type: 'string', default: '5177' }, models: { type: 'string' }, settings: { type: 'string' }, catalog: { type: 'string' } },
    USAGE,
    `Serves the app in a browser, for development and tests: builds the renderer, starts the same
controller the Electron main process runs, and prints the URL.

Usage: ${USAGE}

  --port PORT        port on 127.0.0.1 (default 5177; 0 = any free port)
  --models DIR       where to find models (default: the user's models folder, then native-models/bundled)
  --settings FILE    the settings file to use and save (default: the app's own settings.json)
  --catalog FILE     a model catalog JSON in the same schema (a mirror or a test server)
  -h, --help         this help`,
  );
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port must be a port number (0-65535, 0 = any free port), got "${values.port}"`, 'usage');
  const staticDir = path.join(root, 'dist', 'renderer');
  if (!existsSync(path.join(staticDir, 'index.html'))) throw new UserError('The renderer is not built: run `npm run build` (or use `npm run dev:web`, which builds it).', 'not-built');

  // Loaded only now: the controller brings the engines' native libraries, which take a second or
  // more to load, and --help or a usage error must not wait for them.
  const [{ AssistantController }, { BridgeAudioSink, startWebBridge }] = await Promise.all([import('../app/controller'), import('../app/web-bridge')]);
  const sink = new BridgeAudioSink();
  const controller = new AssistantController({
    settingsFile: path.resolve(values.settings ?? path.join(defaultUserDataDir(), 'settings.json')),
    modelRoots: (s) => searchOrder({ explicit: values.models ?? s.models.dir ?? undefined, user: defaultUserModelsDir(), bundled: BUNDLED_MODELS_DIR }),
    audioSink: () => sink,
    // First-run downloads go to the folder given with --models, else the user's models folder.
    downloadRoot: path.resolve(values.models ?? defaultUserModelsDir()),
    ...(values.catalog ? { catalog: await loadCatalogFile(values.catalog) } : {}),
    appVersion: await packageVersion(),
  });
  let bridge;
  try {
    bridge = await startWebBridge(controller, sink, { staticDir, port });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new UserError(`Port ${port} is in use: pick another with --port, or --port 0 for any free one.`, 'port-in-use');
    throw e;
  }
  console.log(`Local Voice Assistant: open ${bridge.url} (Ctrl+C to stop)`);
  controller.on((e) => {
    if (e.type === 'notice') console.log(`${e.level === 'error' ? '! ' : ''}${e.message}`);
    else if (e.type === 'status' && e.status.phase === 'error' && e.status.error) console.log(`! ${e.status.error}`);
    else if (e.type === 'pipeline' && e.event.type === 'turn') console.log(`turn ${e.event.report.index}: "${e.event.report.userText}" -> "${e.event.report.heardText}"`);
  });
  const started = controller.start();
  started.then(() => {
    const s = controller.snapshot().status;
    if (s.phase === 'ready') console.log(`models loaded: ${s.models.map((m) => `${m.kind} ${m.id ?? (m.state === 'missing' ? 'none' : '?')}`).join(', ')}; LLM on ${s.llm?.backend ?? '?'}`);
    if (s.phase === 'setup') console.log(`First run: the assistant needs its models (${s.setup?.models.map((m) => m.id).join(', ')}); open the page to download them.`);
  }, (e: unknown) => console.error(e));

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await bridge.close();
  await controller.dispose();
});
