/**
 * Which file a request for the renderer's page maps to: the same rules for the app's own `app://`
 * protocol and for the dev/test WebSocket bridge. Only files under the renderer folder, of the types
 * the page uses; no way out through `..`, encoded or not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTENT_SECURITY_POLICY } from './window-policy';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The file for `url` (its path only) under `root`, with its content type; null when there is none to serve. */
export function resolveStaticFile(root: string, url: string): { file: string; type: string } | null {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url, 'http://local').pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0')) return null;
  const base = path.resolve(root);
  const file = path.resolve(base, `.${pathname === '/' ? '/index.html' : pathname}`);
  const type = CONTENT_TYPES[path.extname(file)];
  if (!file.startsWith(base + path.sep) || !type) return null;
  return { file, type };
}

/**
 * The answer to one request for the page: Electron's protocol.handle takes this fetch-style Response
 * as is, and the dev/test bridge writes it to its HTTP response.
 */
export async function appProtocolResponse(root: string, url: string, method = 'GET'): Promise<Response> {
  const headers = { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405, headers });
  const target = resolveStaticFile(root, url);
  if (!target) return new Response(null, { status: 404, headers });
  try {
    const body = await readFile(target.file);
    return new Response(method === 'HEAD' ? null : body, { status: 200, headers: { ...headers, 'Content-Type': target.type } });
  } catch {
    return new Response(null, { status: 404, headers });
  }
}
