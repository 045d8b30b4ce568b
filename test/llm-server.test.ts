/**
 * The language model on an OpenAI-compatible server, in the app's pipeline on the real engines: a
 * real HTTP server on 127.0.0.1 (test/openai-server.ts) streams stories260K's real tokens. A turn is
 * answered through it; a barge-in closes its stream; a server that is down or too slow hands the
 * turn to the local model; a server that fails mid-answer keeps what was spoken and says why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServerWithFallback } from '../electron/engines/llm-fallback';
import type { LanguageModel } from '../electron/engines/llm-types';
import { OpenAiCompatibleLlm } from '../electron/engines/openai-llm';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { ALONE_BUDGETS, loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import type { TurnReport } from '../electron/pipeline/report';
import { runInput } from '../electron/pipeline/run/run-input';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';
import { checkHeard } from './heard-check';
import { closedPortUrl, startOpenAiServer, type OpenAiTestServer } from './openai-server';
import { withoutNow } from './conversation-text';

let server: OpenAiTestServer;
let engines: LoadedEngines;
let settings: Settings;

function settingsFor(baseUrl: string, model: string, extra: object = {}): Settings {
  // No prepared answers: each turn makes exactly one request, so a fault meets the turn it is meant for.
  return mergeSettings(DEFAULT_SETTINGS, {
    prepareAnswers: false,
    llm: { temperature: 0, maxTokens: 48, threads: 1, provider: 'openai-compatible', server: { baseUrl, model } },
    ...extra,
  });
}

before(async () => {
  server = await startOpenAiServer();
  settings = settingsFor(server.baseUrl, server.model);
  engines = await loadEngines(() => settings, MODEL_ROOTS);
});
after(async () => {
  await engines?.dispose();
  await server?.close();
});

/** The server's model with the installed local one behind it, or none (`local: null`). */
function serverLlm(baseUrl: string, local: LanguageModel | null): ServerWithFallback {
  return new ServerWithFallback(new OpenAiCompatibleLlm({ baseUrl, model: server.model, contextSize: 1024 }), local, {
    firstTokenMs: () => settings.turnBudgetMs,
    aloneFirstTokenMs: () => settings.turnBudgetMs * ALONE_BUDGETS,
  });
}

function localModel(): LanguageModel {
  const local = (engines.llm as ServerWithFallback).local;
  assert.ok(local, 'the installed stories260K loads as the fallback');
  return local;
}

async function converse(clip: string, llm: LanguageModel = engines.llm): Promise<{ reports: TurnReport[]; events: PipelineEvent[] }> {
  const samples = await loadClip16k(clip);
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const pipeline = new VoicePipeline({ ...engines, llm }, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  const reports = await runInput(pipeline, samples, clock, output, { fast: true });
  return { reports, events };
}

describe('the language model on an OpenAI-compatible server', () => {
  it('loads as the LLM, with the local model as its fallback', () => {
    assert.ok(engines.llm instanceof ServerWithFallback);
    assert.equal(engines.llm.info.backend, 'server');
    assert.equal(engines.models.llm.id, `openai-compatible:${server.model}`);
    assert.equal((engines.models.llm.fallback as { id: string }).id, server.model, 'the installed local model is the fallback');
    assert.equal(engines.llmError, null);
  });

  it('answers a turn through the server, streamed, and reports the route', async () => {
    const before = server.requests.length;
    const { reports } = await converse('weather');
    assert.equal(reports.length, 1);
    const r = reports[0]!;
    assert.deepEqual(words(r.userText), ['what', 'is', 'the', 'weather', 'like', 'today']);
    assert.deepEqual(r.llm, { provider: 'openai-compatible', fallback: false, error: null });
    assert.ok(r.assistantText.length > 0 && r.timings.firstAudioMs !== null, 'the answer was spoken');
    const asked = server.requests.slice(before).filter((q) => q.path === '/chat/completions');
    assert.equal(asked.length, 1);
    const body = asked[0]!.body as { messages: { role: string; content: string }[]; stream: boolean };
    assert.equal(body.stream, true);
    assert.equal(withoutNow(String(body.messages.at(-1)!.content)), r.userText, 'the server was asked the user\'s words');
    assert.equal(await asked[0]!.ending, 'finished');
    // The server's own engine wrote exactly what was spoken.
    assert.equal(r.assistantText, (await asked[0]!.generated!).text.trim());
  });

  it('a barge-in closes the stream at once, and history keeps the heard part', async () => {
    server.paceTokensMs(250);
    const before = server.requests.length;
    try {
      const { reports, events } = await converse('interrupt');
      const first = reports[0]!;
      assert.equal(first.interrupted, true, 'the user spoke over the answer');
      assert.equal(first.llm?.provider, 'openai-compatible');
      // The clauses played before the stop and the words reached in the one cut, out of what was written.
      checkHeard(first, events, 'the answer cut by the user');
      const request = server.requests.slice(before).find((q) => q.path === '/chat/completions')!;
      assert.equal(await request.ending, 'client-closed', 'the connection was closed, so the server stops generating');
      assert.ok(first.bargeIn, 'the barge-in was timed');
    } finally {
      server.paceTokensMs(0);
    }
  });

  it('server down: the local model answers that turn, and the report says why', async () => {
    const { reports, events } = await converse('weather', serverLlm(await closedPortUrl(), localModel()));
    const r = reports[0]!;
    assert.equal(r.llm?.provider, 'local');
    assert.equal(r.llm?.fallback, true);
    assert.match(r.llm?.error ?? '', /Cannot reach the LLM server at http:\/\/127\.0\.0\.1:\d+\/v1: connection refused/);
    assert.ok(r.assistantText.length > 0 && r.timings.firstAudioMs !== null, 'the local model\'s answer was spoken');
    assert.equal(r.error, undefined, 'the turn itself did not fail');
    assert.ok(events.some((e) => e.type === 'notice' && /The local model answered instead/.test(e.message)), 'the window is told');
  });

  it('a 500 after a few tokens keeps what was spoken, reports the error, and says so', async () => {
    server.errorAfter(12);
    const { reports, events } = await converse('weather');
    const r = reports[0]!;
    assert.equal(r.llm?.provider, 'openai-compatible');
    assert.equal(r.llm?.fallback, false, 'part of the answer was already spoken: no second answer');
    assert.match(r.llm?.error ?? '', /stream broke after 12 characters: the server reported an error: the model crashed/);
    assert.equal(r.assistantText.length > 0 && r.assistantText.length <= 12, true, `kept what arrived: "${r.assistantText}"`);
    assert.equal(r.heardText, r.assistantText, 'and it was all heard');
    assert.match(r.error ?? '', /The language model failed/);
    assert.ok(events.some((e) => e.type === 'notice' && e.message === 'Said: "Sorry, the server\'s answer broke off."'));
  });

  it('a slow first token plays the holding phrase; with no local model the turn gives up and says so', async () => {
    server.delayFirstTokenMs(5000);
    const was = settings;
    settings = settingsFor(server.baseUrl, server.model, { turnBudgetMs: 500 });
    try {
      const { reports, events } = await converse('weather', serverLlm(server.baseUrl, null));
      const r = reports[0]!;
      assert.equal(r.holdingPhrase, true, 'the holding phrase covered the wait');
      assert.ok(events.some((e) => e.type === 'holding-phrase'));
      assert.deepEqual(r.llm, { provider: 'openai-compatible', fallback: false, error: r.llm?.error });
      assert.match(r.llm?.error ?? '', /sent no answer within 2 s; it may still be loading the model/);
      assert.equal(r.assistantText, '');
      assert.ok(events.some((e) => e.type === 'notice' && e.message === 'Said: "The language model server is taking too long to answer."'));
    } finally {
      settings = was;
      server.delayFirstTokenMs(0);
    }
  });

  it('a slow first token with a local model installed: the local model answers after the turn budget', async () => {
    server.delayFirstTokenMs(5000);
    const was = settings;
    settings = settingsFor(server.baseUrl, server.model, { turnBudgetMs: 500 });
    try {
      const { reports } = await converse('weather', serverLlm(server.baseUrl, localModel()));
      const r = reports[0]!;
      assert.equal(r.llm?.provider, 'local');
      assert.equal(r.llm?.fallback, true);
      assert.match(r.llm?.error ?? '', /sent no answer within 0\.5 s\.$/);
      assert.ok(r.assistantText.length > 0);
      const waited = r.latency.llmTtftMs!;
      assert.ok(waited >= 450, `the server had its budget first (first token after ${waited} ms)`);
    } finally {
      settings = was;
      server.delayFirstTokenMs(0);
    }
  });
});
