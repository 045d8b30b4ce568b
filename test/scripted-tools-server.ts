/**
 * A local OpenAI-compatible server scripted per request (the tool-call tests): each request body is
 * kept, and `answer` gives the SSE data lines to stream back. Also the stand-in models without a
 * language model, so the server answers alone.
 */
import { symlink } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MODELS_DIR } from './engine-fixtures';
import { tempDir } from './helpers';

export type ScriptedMessage = { role: string; content?: string | null; tool_calls?: { function: { name: string; arguments: string } }[]; tool_call_id?: string };
export type ScriptedBody = { messages: ScriptedMessage[]; tools?: { function: { name: string } }[]; tool_choice?: string };

export interface ScriptedServer {
  baseUrl: string;
  /** Every request body, in order. */
  requests: ScriptedBody[];
  close(): Promise<void>;
}

export async function scriptedServer(answer: (body: ScriptedBody) => string[]): Promise<ScriptedServer> {
  const requests: ScriptedBody[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as ScriptedBody;
      requests.push(body);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const data of answer(body)) res.write(`data: ${data}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The stand-in speech models (VAD, recognizer, voice, end-of-turn) without a language model. */
export async function speechOnlyModels(): Promise<string> {
  const models = tempDir('lva-speech-models-');
  for (const kind of ['vad', 'stt', 'tts-synthetic', 'turn']) await symlink(path.join(MODELS_DIR, kind), path.join(models, kind));
  return models;
}
