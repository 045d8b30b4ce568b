/**
 * A local HTTP server publishing the shared test models, and a catalog (the test catalog with
 * download addresses on that server), so first-run downloads run for real without the internet.
 */
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { TEST_CATALOG } from '../native-models/catalog';
import type { ModelEntry } from '../native-models/types';
import { MODELS_DIR } from './engine-fixtures';

export interface ModelServer {
  /** The server's address, ending in '/'. */
  base: string;
  catalog: ModelEntry[];
  requests: string[];
  close(): Promise<void>;
}

/** `extra` publishes more files: URL path (no leading '/') -> local file. */
export async function startModelServer(extra: Record<string, string> = {}): Promise<ModelServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    requests.push(rel);
    const file = extra[rel] ?? path.resolve(MODELS_DIR, rel);
    let size: number;
    try {
      if (!extra[rel] && !file.startsWith(MODELS_DIR + path.sep)) throw new Error('outside');
      size = statSync(file).size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Length': size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const catalog = TEST_CATALOG.map(({ local: _local, ...e }) => ({
    ...e,
    files: e.files.map((f) => ({ ...f, url: base + [e.dir ?? e.id, f.name].join('/') })),
  }));
  return {
    base,
    catalog,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A model server for the enclosing suite: started before its tests, closed after them. */
export function modelServerForSuite(): () => ModelServer {
  let server: ModelServer | undefined;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the model server is not started yet (use it inside a test)');
    return server;
  };
}
