/**
 * The end-of-turn model and prepared answers on the real engines (Silero VAD, the streaming test
 * recognizer, the end-of-turn stand-in with Smart Turn v3's interface, stories260K, the formant voice)
 * through the whole pipeline, over ../shared/speech.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ChatMessage, LanguageModel } from '../electron/engines/llm-types';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { PipelineEvent } from '../electron/pipeline/events';
import { loadEngines, type LoadedEngines } from '../electron/pipeline/load-engines';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { runInput } from '../electron/pipeline/run/run-input';
import { VoicePipeline } from '../electron/pipeline/voice-pipeline';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { loadClip16k, MODELS_DIR, MODEL_ROOTS, words } from './engine-fixtures';
import { withoutNow } from './conversation-text';

/** Temperature 0 and short answers: the same words every run, and quick. */
const BASE = mergeSettings(DEFAULT_SETTINGS, { llm: { temperature: 0, maxTokens: 24, threads: 1 } });

/** The language model as loaded, logging the last user message of every prompt it is given, and when (the pipeline's clock). */
function logging(llm: LanguageModel, prompts: string[], askedAt: number[], now: () => number): LanguageModel {
  return {
    info: llm.info,
    countTokens: (t) => llm.countTokens(t),
    dispose: () => llm.dispose(),
    generate: (messages: readonly ChatMessage[], opts) => {
      prompts.push(withoutNow(messages[messages.length - 1]!.text));
      askedAt.push(now());
      return llm.generate(messages, opts);
    },
  };
}

async function talk(engines: LoadedEngines, settings: Settings, clipName: string) {
  const clock = new FastForwardClock();
  const output = new TimelineOutput();
  const prompts: string[] = [];
  const askedAt: number[] = [];
  const pipeline = new VoicePipeline({ ...engines, llm: logging(engines.llm, prompts, askedAt, () => clock.now()) }, output, clock, () => settings);
  const events: PipelineEvent[] = [];
  pipeline.events.on((e) => events.push(e));
  const reports = await runInput(pipeline, await loadClip16k(clipName), clock, output, { fast: true });
  const history = pipeline.conversation.messages().slice(1).map((m) => `${m.role}:${withoutNow(m.text)}`);
  return { reports, events, prompts, askedAt, history };
}

let withModel: LoadedEngines;
let silenceOnly: LoadedEngines;
before(async () => {
  withModel = await loadEngines(() => BASE, MODEL_ROOTS);
  // The same models without the end-of-turn one: a folder that links every kind but `turn`.
  const root = mkdtempSync(path.join(os.tmpdir(), 'lva-no-turn-'));
  for (const kind of ['vad', 'stt', 'llm', 'tts-synthetic']) symlinkSync(path.join(MODELS_DIR, kind), path.join(root, kind));
  silenceOnly = await loadEngines(() => BASE, [root]);
});
after(async () => {
  await withModel?.dispose();
  await silenceOnly?.dispose();
});

describe('end-of-turn model (real engines)', () => {
  it('loads with the shared models, and the app runs without it', () => {
    assert.ok(withModel.turn, 'the stand-in is loaded from ../shared/models/turn');
    assert.equal(silenceOnly.turn, null);
  });

  it('a pause inside an unfinished sentence, longer than silenceMs, stays one turn', async () => {
    const settings = mergeSettings(BASE, { endpointing: { silenceMs: 400 }, prepareAnswers: false });
    const model = await talk(withModel, settings, 'timer_pause');
    assert.equal(model.reports.length, 1, JSON.stringify(model.reports.map((r) => r.userText)));
    const r = model.reports[0]!;
    assert.deepEqual(words(r.userText), ['set', 'a', 'timer', 'for', 'ten', 'minutes']);
    assert.equal(r.endReason, 'turn-model');
    const checks = r.turnDetector!.checks;
    assert.ok(checks.length >= 2, JSON.stringify(checks));
    assert.ok(checks[0]!.probability < 0.5, `"set a timer for" sounds unfinished: ${checks[0]!.probability}`);
    assert.ok(checks.at(-1)!.probability >= 0.5);
    // Silence alone at the same setting ends the turn inside the pause: two turns, or one merged
    // when the user went on before hearing the first part's answer (how fast it came decides).
    const silence = await talk(silenceOnly, settings, 'timer_pause');
    const cut = silence.reports.length === 2 || (silence.reports.length === 1 && silence.reports[0]!.mergedContinuation);
    assert.ok(cut, JSON.stringify(silence.reports.map((x) => [x.userText, x.mergedContinuation])));
    assert.ok(silence.reports.every((x) => x.turnDetector === null && x.endReason === 'silence'));
  });

  it('each check carries the words at it and what held the pause (nothing: "set a timer for" ends in a word a sentence can end with)', async () => {
    const settings = mergeSettings(BASE, { endpointing: { silenceMs: 400 }, prepareAnswers: false });
    const { reports, events } = await talk(withModel, settings, 'timer_pause');
    const checks = reports[0]!.turnDetector!.checks;
    assert.deepEqual(words(checks[0]!.text), ['set', 'a', 'timer', 'for'], JSON.stringify(checks));
    assert.deepEqual(words(checks.at(-1)!.text), ['set', 'a', 'timer', 'for', 'ten', 'minutes']);
    assert.ok(checks.every((c) => c.heldBy === null), JSON.stringify(checks));
    const published = events.filter((e) => e.type === 'turn-check');
    assert.deepEqual(published.map((e) => e.type === 'turn-check' && e.text), checks.map((c) => c.text));
  });

  it('a finished question ends sooner than with silence alone', async () => {
    const settings = mergeSettings(BASE, { prepareAnswers: false });
    const model = (await talk(withModel, settings, 'weather')).reports[0]!;
    const silence = (await talk(silenceOnly, settings, 'weather')).reports[0]!;
    assert.equal(model.endReason, 'turn-model');
    assert.equal(silence.endReason, 'silence');
    // Ended by the model means before silenceMs ran out, however slow the machine; by how much is the bench's figure.
    assert.ok(model.timings.endOfTurnMs < silence.timings.endOfTurnMs, `model ended the turn at ${model.timings.endOfTurnMs} ms, silence at ${silence.timings.endOfTurnMs} ms`);
    assert.ok(model.latency.endpointMs < settings.endpointing.silenceMs, `model ${model.latency.endpointMs} ms after the speech, silenceMs ${settings.endpointing.silenceMs}`);
  });
});

describe('prepared answers (real engines)', () => {
  it('drops what was prepared when the user goes on: never played, not in history', async () => {
    const { reports, events, prompts, history } = await talk(withModel, BASE, 'timer_pause');
    assert.equal(reports.length, 1);
    // Prepared at the pause after "set a timer for" (not a command yet), then dropped when the user went on.
    assert.deepEqual(words(prompts[0]!), ['set', 'a', 'timer', 'for']);
    const end = events.find((e) => e.type === 'end-of-turn')!;
    assert.equal(events.filter((e) => e.type === 'audio' && e.t < end.t).length, 0, 'nothing played before the turn ended');
    assert.ok(events.filter((e) => e.type === 'answer-delta').every((e) => e.turn === reports[0]!.index && !/story|once/i.test(e.text)), 'no prepared text shown');
    // The whole turn is a local command: answered without the model, and nothing of the draft in history.
    const r = reports[0]!;
    assert.equal(r.command?.name, 'timer.start');
    assert.equal(r.llmUsed, false);
    assert.equal(prompts.length, 1, 'the model was not asked for the committed turn');
    assert.deepEqual(history, []);
    assert.equal(r.assistantText, 'Timer set for ten minutes.');
  });

  it('uses it when the turn ends with the same words: the model was asked during the pause, not after the end of turn', async () => {
    const preparedRun = await talk(withModel, BASE, 'weather');
    const plainRun = await talk(withModel, mergeSettings(BASE, { prepareAnswers: false }), 'weather');
    const prepared = preparedRun.reports[0]!;
    const plain = plainRun.reports[0]!;
    assert.equal(prepared.prepared, 'used');
    assert.ok(prepared.preparedLeadMs! > 0);
    assert.equal(plain.prepared, 'none');
    // The same question either way. Not the same words compared: the engine reuses evaluated tokens across
    // runs, and llama.cpp's batched and single-token kernels round differently, so a near tie can flip.
    assert.deepEqual(preparedRun.prompts.slice(-1), plainRun.prompts, 'the model was asked the same question');
    assert.ok(prepared.assistantText.trim().length > 0 && preparedRun.history.at(-1) === `assistant:${prepared.assistantText}`, 'the prepared answer is what was said and kept');
    // What that saves is measured by `npm run bench` ("end of turn → first audio, prepared" and "not
    // prepared"), not here: with the tiny test model it is a few ms, inside a noisy machine's spread.
    const askedFor = (run: typeof preparedRun) => run.askedAt[run.prompts.length - 1]!;
    assert.ok(askedFor(preparedRun) < prepared.timings.endOfTurnMs, `asked at ${askedFor(preparedRun)} ms, the turn ended at ${prepared.timings.endOfTurnMs} ms`);
    assert.ok(askedFor(plainRun) >= plain.timings.endOfTurnMs, `asked at ${askedFor(plainRun)} ms, the turn ended at ${plain.timings.endOfTurnMs} ms`);
    assert.equal(preparedRun.prompts.length, 1, 'asked once: the prepared request was the answer');
  });
});
