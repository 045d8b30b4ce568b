/**
 * Responding on scripted timelines: turn events are handed in directly (no audio, no VAD), and the
 * answers, barge-in decisions, history and reports that follow are checked. The language model and
 * voice are SCRIPTED stand-ins that control timing only; the real engines are tested elsewhere.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, LanguageModel } from '../electron/engines/llm-types';
import type { SpeechSynthesizer } from '../electron/engines/tts';
import type { Clock } from '../electron/pipeline/clock';
import { EventHub, type PipelineEvent } from '../electron/pipeline/events';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { Responding } from '../electron/pipeline/respond/responding';
import { TimerBook } from '../electron/timers/timer-book';
import type { EndedTurn } from '../electron/pipeline/turns/turn-events';
import { BargeInPolicy } from '../electron/pipeline/respond/barge-in';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import { withoutNow } from './conversation-text';
import type { ToolCall } from '../electron/engines/tool-calls';
import { Toolbox } from '../electron/tools/toolbox';
import { WINDOW_RUN_WORDS } from '../electron/pipeline/respond/responding';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Speech over the answer pauses it (backchannels off): how barge-in works without acknowledgements. */
const PAUSING = mergeSettings(DEFAULT_SETTINGS, { bargeIn: { backchannels: false } });
/** With acknowledgements and no onset hold: speech over the answer only lowers it while it is judged. */
const LOWERING = mergeSettings(DEFAULT_SETTINGS, { bargeIn: { onsetHoldMs: 0 } });

class ManualClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
}

function setup(opts: { answer?: string; firstTokenDelayMs?: number; settings?: Settings; contextSize?: number; toolCall?: ToolCall; tools?: Toolbox } = {}) {
  const prompts: string[][] = [];
  const prefills: string[] = [];
  const llm: LanguageModel = {
    info: { id: 'scripted-llm', backend: 'cpu', gpuDevices: [], gpuLayers: 0, totalLayers: 0, contextSize: opts.contextSize ?? 4096, loadMs: 0, warmUpMs: 0 },
    async generate(messages: readonly ChatMessage[], o) {
      prompts.push(messages.slice(1).map((m) => `${m.role}:${withoutNow(m.text)}`));
      await sleep(opts.firstTokenDelayMs ?? 0);
      if (o.signal?.aborted) return { text: '', stopReason: 'abort' };
      // Scripted to ask for a tool first, when tools are offered.
      if (opts.toolCall && o.callTool) await o.callTool(opts.toolCall);
      if (o.signal?.aborted) return { text: '', stopReason: 'abort' };
      const text = opts.answer ?? 'It is sunny. Enjoy the day.';
      o.onText(text);
      return { text, stopReason: 'eogToken' };
    },
    countTokens: (t) => t.split(' ').length,
    async prefill(messages: readonly ChatMessage[]) {
      prefills.push(withoutNow(messages.at(-1)!.text));
    },
    dispose: async () => {},
  };
  // 10 ms of audio per character.
  const tts: SpeechSynthesizer = {
    sampleRate: 16000,
    info: { id: 'scripted-voice', sampleRate: 16000, numSpeakers: 1, loadMs: 0 },
    synthesize: async (text) => new Float32Array(text.length * 160).fill(0.1),
  };
  const clock = new ManualClock();
  const output = new TimelineOutput();
  const events = new EventHub();
  const log: PipelineEvent[] = [];
  events.on((e) => log.push(e));
  const user = { hasCandidate: false, active: false };
  const settings = opts.settings ?? PAUSING;
  const r = new Responding({ clock, settings: () => settings, events, output }, { llm, tts, tools: opts.tools ?? null }, {
    user,
    bargeIn: new BargeInPolicy(() => settings.bargeIn),
    keepReports: Infinity,
    memory: null,
    timers: { book: new TimerBook(), epochBase: Date.UTC(2026, 11, 1, 9, 0) },
  });
  let index = 0;
  /** The user's turn ends now with these words. */
  const endTurn = (text: string, speechStartMs = clock.t - 1500) => {
    const turn: EndedTurn = {
      index: index++,
      speechStartMs,
      speechEndMs: clock.t - 500,
      endOfTurnMs: clock.t,
      startedBy: 'speech',
      reason: 'silence',
      inputGainDb: 0,
      turnChecks: null,
      transcript: Promise.resolve({ text, finalMs: clock.t, decodeMs: 0 }),
    };
    r.onTurnEvent({ type: 'end-of-turn', turn });
  };
  const history = () => r.conversation.messages().slice(1).map((m) => `${m.role}:${withoutNow(m.text)}`);
  return { r, clock, output, log, user, endTurn, prompts, prefills, history };
}

describe('responding (scripted turn events)', () => {
  it('answers an ended turn, keeps the exchange in history, and reports it once it has played', async () => {
    const { r, clock, output, endTurn, history, log } = setup();
    clock.t = 2000;
    endTurn('what is the weather');
    assert.equal(r.phase(clock.t), 'pending');
    await r.drain();
    assert.deepEqual(history(), ['user:what is the weather', 'assistant:It is sunny. Enjoy the day.']);
    r.settle(clock.t);
    assert.equal(r.reports.length, 0, 'still playing');
    clock.t = 2000 + output.queuedTo + 1;
    r.settle(clock.t);
    assert.equal(r.reports.length, 1);
    const rep = r.reports[0]!;
    assert.equal(rep.index, 0);
    assert.equal(rep.userText, 'what is the weather');
    assert.equal(rep.heardText, 'It is sunny. Enjoy the day.');
    assert.equal(rep.timings.firstAudioMs, 2000);
    assert.deepEqual(log.filter((e) => e.type === 'end-of-turn' || e.type === 'final' || e.type === 'turn').map((e) => e.type), ['end-of-turn', 'final', 'turn']);
  });

  it('speech over a playing answer pauses it; a false alarm resumes it on tick after falseInterruptionMs', async () => {
    const { r, clock, output, endTurn, log } = setup();
    endTurn('tell me');
    await r.drain();
    clock.t = 100;
    assert.equal(r.phase(clock.t), 'speaking');
    r.onTurnEvent({ type: 'candidate', atMs: clock.t, phase: 'speaking', startMs: clock.t, turn: 99 });
    assert.equal(output.paused, true);
    const due = r.nextWakeMs()!;
    assert.equal(due, 100 + DEFAULT_SETTINGS.bargeIn.falseInterruptionMs);
    clock.t = due - 1;
    r.tick(clock.t);
    assert.equal(output.paused, true);
    clock.t = due;
    r.tick(clock.t);
    assert.equal(output.paused, false);
    assert.equal(r.nextWakeMs(), null);
    assert.deepEqual(log.filter((e) => e.type === 'playback').map((e) => e.type === 'playback' && e.action), ['paused', 'resumed']);
  });

  it('confirmed speech interrupts: playback stops where it paused, history keeps the heard part', async () => {
    const { r, clock, output, endTurn, history } = setup();
    endTurn('tell me');
    await r.drain();
    clock.t = 150; // "It is sunny." is 120 ms: it was heard, the rest not
    r.onTurnEvent({ type: 'candidate', atMs: clock.t, phase: 'speaking', startMs: clock.t, turn: 99 });
    clock.t = 400;
    r.onTurnEvent({ type: 'speech-start', atMs: clock.t, startMs: 140 });
    assert.equal(output.endMs <= 400, true, 'nothing plays after the interruption');
    clock.t = 500;
    r.settle(clock.t);
    const rep = r.reports[0]!;
    assert.equal(rep.interrupted, true);
    assert.equal(rep.heardText, 'It is sunny.');
    assert.deepEqual(rep.bargeIn, { detectedMs: 400, playbackStoppedMs: 150, speechStartMs: 140 });
    assert.deepEqual(history(), ['user:tell me', 'assistant:It is sunny.…'], 'cut where it was cut');
  });

  it('speech before any answer was heard continues the turn: the answer is dropped and the words merged', async () => {
    const { r, clock, endTurn, history, log, prompts } = setup({ firstTokenDelayMs: 30 });
    clock.t = 1000;
    endTurn('tell me about the', 0);
    r.onTurnEvent({ type: 'speech-start', atMs: 1200, startMs: 1150 });
    clock.t = 2500;
    endTurn('old castle');
    await r.drain();
    clock.t = 10_000;
    r.settle(clock.t);
    assert.equal(r.reports.length, 1);
    const rep = r.reports[0]!;
    assert.equal(rep.index, 1);
    assert.equal(rep.userText, 'tell me about the old castle');
    assert.equal(rep.mergedContinuation, true);
    assert.equal(rep.timings.speechStartMs, 0, 'the merged turn starts with the first part');
    assert.deepEqual(log.filter((e) => e.type === 'merged').map((e) => e.type === 'merged' && e.turn), [0]);
    assert.deepEqual(history(), ['user:tell me about the old castle', 'assistant:It is sunny. Enjoy the day.']);
    assert.equal(prompts.at(-1)!.length, 1, 'the dropped exchange was not in the last prompt');
  });

  it('a late answer gets a holding phrase on tick at the turn budget, not while the user may be talking', async () => {
    const settings = mergeSettings(DEFAULT_SETTINGS, { turnBudgetMs: 500 });
    const { r, clock, endTurn, user, log, output } = setup({ firstTokenDelayMs: 150, settings });
    await sleep(20); // the phrases are synthesized in the background
    endTurn('a hard question');
    await sleep(1); // the transcript is in
    assert.equal(r.nextWakeMs(), 500);
    clock.t = 500;
    user.hasCandidate = true;
    r.tick(clock.t);
    assert.equal(log.filter((e) => e.type === 'holding-phrase').length, 0);
    user.hasCandidate = false;
    r.tick(clock.t);
    assert.equal(log.filter((e) => e.type === 'holding-phrase').length, 1);
    assert.ok(output.queuedTo > 0, 'the phrase is playing');
    assert.equal(r.phase(clock.t), 'pending', 'a holding phrase is not the answer');
    await r.drain();
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports[0]!.holdingPhrase, true);
  });

  it('a one-shot activation over the answer stops it at once; over an unheard one it goes on with the turn unless nothing is said', async () => {
    const { r, clock, output, endTurn, history } = setup({ firstTokenDelayMs: 30 });
    endTurn('tell me');
    await r.drain();
    clock.t = 150;
    r.onTurnEvent({ type: 'activation', atMs: clock.t });
    assert.ok(output.endMs <= 150, 'nothing plays after it');
    clock.t = 300;
    r.settle(clock.t);
    assert.deepEqual(r.reports[0]!.bargeIn, { detectedMs: 150, playbackStoppedMs: 150, speechStartMs: 150 });
    assert.equal(r.reports[0]!.heardText, 'It is sunny.');
    // Unheard: the answer is dropped and its words wait for the turn the activation opened...
    clock.t = 2000;
    endTurn('what about', 1000);
    r.onTurnEvent({ type: 'activation', atMs: 2010 });
    // ...but that listening closed with no turn (see VoicePipeline): they go with it.
    r.dropCarried();
    clock.t = 5000;
    endTurn('a new question', 4000);
    await r.drain();
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports.at(-1)!.userText, 'a new question');
    assert.equal(r.reports.at(-1)!.mergedContinuation, false);
    assert.ok(!history().some((m) => m.includes('what about')), 'the dropped question is not in history');
  });

  it('stopSpeaking cancels what is playing and nothing held resumes', async () => {
    const { r, clock, endTurn, output } = setup();
    endTurn('tell me');
    await r.drain();
    clock.t = 50;
    r.onTurnEvent({ type: 'candidate', atMs: clock.t, phase: 'speaking', startMs: clock.t, turn: 99 });
    r.stopSpeaking(60);
    assert.equal(r.nextWakeMs(), null);
    assert.equal(r.active, true, 'the report is still to be made');
    clock.t = 100;
    r.settle(clock.t);
    assert.equal(r.active, false);
    assert.equal(r.reports[0]!.interrupted, true);
    assert.ok(output.endMs <= 60, `playback ended at ${output.endMs}`);
  });
});

describe('prepared answers (scripted turn events)', () => {
  /** The user pauses in turn 0 with these words so far (as the recognizer would finish them now). */
  const pause = (r: Responding, words: string, atMs: number) =>
    r.onTurnEvent({ type: 'pause', atMs, speechEndMs: atMs - 100, turn: 0, tentative: () => Promise.resolve(words) });

  it('feeds the words to the model as they are heard, and not once a prepared answer has asked it', async () => {
    const { r, clock, prefills, prompts } = setup();
    const words = async (text: string) => {
      r.onTurnEvent({ type: 'words', atMs: clock.t, text });
      await new Promise((res) => setTimeout(res, 5));
    };
    clock.t = 500;
    r.onTurnEvent({ type: 'speech-start', atMs: clock.t, startMs: 400 });
    await words('what is');
    await words('what is the weather');
    assert.deepEqual(prefills, ['what is', 'what is the weather']);
    clock.t = 1200;
    pause(r, 'What is the weather', clock.t);
    await r.drain();
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(prompts.length, 1, 'the prepared answer asked the model');
    // Late interim words in the pause: a prefill now would be evaluated over the prepared answer.
    await words('what is the weather today');
    assert.deepEqual(prefills, ['what is', 'what is the weather']);
  });

  it('prepares the answer during the pause without touching history, and plays it the moment the turn ends with the same words', async () => {
    const { r, clock, output, endTurn, history, prompts, log } = setup();
    clock.t = 1200;
    pause(r, 'What is the weather', clock.t);
    await r.drain();
    await new Promise((res) => setTimeout(res, 20));
    assert.deepEqual(prompts, [['user:What is the weather']], 'the model was asked during the pause');
    assert.deepEqual(history(), [], 'history untouched while the turn may go on');
    assert.equal(output.queuedTo, 0, 'nothing played');
    assert.equal(log.filter((e) => e.type === 'answer-delta').length, 0, 'nothing shown');
    clock.t = 1800;
    endTurn('what is the weather?', 300);
    await r.drain();
    assert.equal(prompts.length, 1, 'the prepared answer was used, not asked again');
    clock.t = 100_000;
    r.settle(clock.t);
    const rep = r.reports[0]!;
    assert.equal(rep.prepared, 'used');
    assert.equal(rep.preparedLeadMs, 600);
    assert.equal(rep.timings.firstAudioMs, 1800, 'it played at once');
    assert.equal(rep.assistantText, 'It is sunny. Enjoy the day.');
    assert.deepEqual(history(), ['user:what is the weather?', 'assistant:It is sunny. Enjoy the day.']);
    assert.ok(log.some((e) => e.type === 'answer-delta' && e.turn === 0), 'its text shown once taken');
  });

  it('drops it, unheard and out of history, when the user goes on; the longer turn is answered afresh', async () => {
    const { r, clock, output, endTurn, history, prompts } = setup({ firstTokenDelayMs: 40 });
    clock.t = 1200;
    pause(r, 'tell me about the', clock.t);
    await new Promise((res) => setTimeout(res, 5));
    r.onTurnEvent({ type: 'resume', atMs: 1500 });
    await r.drain();
    assert.equal(output.queuedTo, 0);
    assert.deepEqual(history(), []);
    clock.t = 3000;
    endTurn('tell me about the old castle', 300);
    await r.drain();
    clock.t = 100_000;
    r.settle(clock.t);
    const rep = r.reports[0]!;
    assert.equal(rep.prepared, 'dropped');
    assert.equal(rep.preparedLeadMs, 1800);
    assert.deepEqual(prompts.map((p) => p.at(-1)), ['user:tell me about the', 'user:tell me about the old castle']);
    assert.deepEqual(history(), ['user:tell me about the old castle', 'assistant:It is sunny. Enjoy the day.']);
    assert.equal(rep.timings.firstAudioMs! >= 3000, true);
  });

  it('drops it when the committed words differ, and never plays both', async () => {
    const { r, clock, output, endTurn, prompts } = setup();
    clock.t = 1200;
    pause(r, 'turn on the lights', clock.t);
    await new Promise((res) => setTimeout(res, 20));
    clock.t = 1800;
    endTurn('turn on the kitchen lights', 300);
    await r.drain();
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports[0]!.prepared, 'dropped');
    assert.equal(prompts.length, 2);
    assert.equal(output.queuedTo, 260, 'one answer of audio: "It is sunny." and "Enjoy the day.", 26 characters at 10 ms');
  });

  it('a long conversation of prepared answers stays within the context', async () => {
    const { r, clock, endTurn, history } = setup({ contextSize: 120 });
    let index = 0;
    for (let i = 0; i < 12; i++) {
      clock.t = i * 10_000 + 1200;
      r.onTurnEvent({ type: 'pause', atMs: clock.t, speechEndMs: clock.t - 100, turn: index, tentative: () => Promise.resolve(`question number ${i}`) });
      await new Promise((res) => setTimeout(res, 5));
      clock.t += 400;
      endTurn(`question number ${i}`);
      index++;
      await r.drain();
      clock.t += 5000;
      r.settle(clock.t);
    }
    assert.ok(r.reports.every((x) => x.prepared === 'used'));
    assert.ok(history().length < 12, `trimmed: ${history().length} messages kept`);
    assert.equal(history().at(-2), 'user:question number 11');
  });

  it('prepares nothing when turned off in settings', async () => {
    const { r, clock, endTurn, prompts } = setup({ settings: mergeSettings(DEFAULT_SETTINGS, { prepareAnswers: false }) });
    pause(r, 'what is the meaning of life', 1000);
    await new Promise((res) => setTimeout(res, 20));
    assert.equal(prompts.length, 0);
    clock.t = 1500;
    endTurn('what is the meaning of life');
    await r.drain();
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports[0]!.prepared, 'none');
    assert.equal(r.reports[0]!.preparedLeadMs, null);
  });
});

describe('local commands and timers (scripted turn events)', () => {
  const ended = (log: PipelineEvent[]) => log.filter((e) => e.type === 'timer');

  it('answers a command without the language model, and its timer rings on tick when due', async () => {
    const { r, clock, endTurn, prompts, log, output } = setup();
    clock.t = 2000;
    endTurn('set a timer for five seconds');
    await r.drain();
    clock.t = 3000;
    r.settle(clock.t);
    const rep = r.reports[0]!;
    assert.deepEqual(rep.command, { name: 'timer.start', slots: { name: null, durationMs: 5000 } });
    assert.equal(rep.llmUsed, false);
    assert.equal(rep.assistantText, 'Timer set for five seconds.');
    assert.deepEqual(prompts, []);
    assert.equal(r.nextWakeMs(), 7000, 'the timer runs from the end of the turn');
    clock.t = 6999;
    r.tick(clock.t);
    assert.equal(ended(log).length, 0);
    const queued = output.queuedTo;
    clock.t = 7000;
    r.tick(clock.t);
    assert.deepEqual(ended(log).map((e) => e.type === 'timer' && e.text), ['Your timer is done.']);
    assert.ok(output.queuedTo > queued, 'the chime is queued at once');
    assert.equal(r.phase(clock.t + 1), 'speaking', 'a notice is speech: "stop" over it stops it');
  });

  it('a timer due while the user talks or an answer plays waits for the next gap', async () => {
    const { r, clock, endTurn, user, log } = setup();
    clock.t = 1000;
    endTurn('set a timer for five seconds');
    await r.drain();
    clock.t = 6000;
    user.active = true;
    r.tick(clock.t);
    assert.equal(ended(log).length, 0, 'not over the user');
    user.active = false;
    endTurn('tell me about the old castle'); // an answer is on its way
    await r.drain();
    r.tick(clock.t);
    assert.equal(ended(log).length, 0, 'not over an answer');
    clock.t = 60_000;
    r.settle(clock.t);
    r.tick(clock.t);
    assert.equal(ended(log).length, 1, 'in the gap after it');
  });

  it('"stop" recognized over the answer interrupts it at once; nothing resumes', async () => {
    const { r, clock, endTurn, output, log } = setup();
    endTurn('tell me about the old castle');
    await r.drain();
    clock.t = 100;
    r.onTurnEvent({ type: 'candidate', atMs: 100, phase: 'speaking', startMs: 100, turn: 99 });
    r.onTurnEvent({ type: 'words', atMs: 180, text: 'Stop.' });
    assert.equal(output.endMs <= 180, true, 'playback stopped');
    r.onTurnEvent({ type: 'discarded', atMs: 400, words: Promise.resolve('stop') });
    await new Promise((res) => setTimeout(res, 5));
    clock.t = 5000;
    r.tick(clock.t);
    assert.equal(log.filter((e) => e.type === 'playback' && e.action === 'resumed').length, 0);
    r.settle(clock.t);
    assert.equal(r.reports[0]!.interrupted, true);
  });

  it('a cough recognized as nothing resumes the held answer', async () => {
    const { r, clock, endTurn, output } = setup();
    endTurn('tell me about the old castle');
    await r.drain();
    clock.t = 100;
    r.onTurnEvent({ type: 'candidate', atMs: 100, phase: 'speaking', startMs: 100, turn: 99 });
    assert.equal(output.paused, true);
    r.onTurnEvent({ type: 'discarded', atMs: 300, words: Promise.resolve('') });
    await new Promise((res) => setTimeout(res, 5));
    assert.equal(output.paused, false);
  });

  it('"pause" holds the answer until the next turn: "resume" plays on from there', async () => {
    const { r, clock, endTurn, output } = setup();
    endTurn('tell me about the old castle');
    await r.drain();
    clock.t = 100;
    r.onTurnEvent({ type: 'candidate', atMs: 100, phase: 'speaking', startMs: 100, turn: 99 });
    r.onTurnEvent({ type: 'words', atMs: 200, text: 'pause' });
    r.onTurnEvent({ type: 'discarded', atMs: 500, words: Promise.resolve('pause') });
    await new Promise((res) => setTimeout(res, 5));
    clock.t = 10_000;
    r.tick(clock.t);
    assert.equal(output.paused, true, 'still held long after falseInterruptionMs');
    endTurn('resume');
    await r.drain();
    assert.equal(output.paused, false);
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports[0]!.interrupted, false, 'the first answer played on to its end');
    assert.equal(r.reports[1]!.command?.name, 'resume');
  });
});

describe('responding with backchannels (scripted turn events)', () => {
  // Three seconds of audio (10 ms per character).
  const LONG = 'Once upon a time there was a dragon. It lived in a cave by the sea. Every day it flew over the town. '.repeat(3).trim();

  /** An answer playing, and speech over it: its first sound heard at 200 ms (it began at 180). */
  async function speechOverAnswer(settings: Settings) {
    const s = setup({ answer: LONG, settings });
    s.endTurn('tell me a story');
    await s.r.drain();
    s.clock.t = 200;
    s.r.onTurnEvent({ type: 'candidate', atMs: 200, phase: 'speaking', startMs: 180, turn: 1 });
    return s;
  }

  it('"mm hmm" long enough to be a turn: lowered, back up at its pause, no turn, no history; the answer lists it', async () => {
    const { r, clock, output, history, log } = await speechOverAnswer(LOWERING);
    assert.equal(output.paused, false, 'no gap');
    assert.ok(Math.abs(output.audible(300, 16)![0]! - 0.025) < 1e-6, 'lowered to a quarter');
    r.onTurnEvent({ type: 'words', atMs: 450, text: 'em meam' });
    r.onTurnEvent({ type: 'speech-start', atMs: 600, startMs: 180 });
    r.onTurnEvent({ type: 'pause', atMs: 900, speechEndMs: 850, turn: 1, tentative: () => Promise.resolve('em meam hrme') });
    await sleep(5);
    clock.t = 1000;
    assert.ok(Math.abs(output.audible(1000, 16)![0]! - 0.1) < 1e-6, 'full volume while the end of turn is awaited');
    const turn: EndedTurn = { index: 1, speechStartMs: 180, speechEndMs: 850, endOfTurnMs: 1500, startedBy: 'speech', reason: 'turn-model', inputGainDb: 0, turnChecks: null, transcript: Promise.resolve({ text: 'em meam hrme', finalMs: 1500, decodeMs: 1 }) };
    r.onTurnEvent({ type: 'end-of-turn', turn });
    await sleep(5);
    await r.drain();
    assert.deepEqual(history(), ['user:tell me a story', `assistant:${LONG}`], 'no turn of its own');
    assert.equal(log.filter((e) => e.type === 'end-of-turn').length, 1, 'only the request was a turn');
    const bc = log.find((e) => e.type === 'backchannel');
    assert.deepEqual(bc && { turn: bc.turn, atMs: bc.atMs, text: bc.text, speechTurn: bc.speechTurn }, { turn: 0, atMs: 180, text: 'em meam hrme', speechTurn: 1 });
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports.length, 1);
    assert.equal(r.reports[0]!.interrupted, false);
    assert.deepEqual(r.reports[0]!.backchannels, [{ atMs: 180, text: 'em meam hrme' }]);
    assert.deepEqual(log.filter((e) => e.type === 'playback').map((e) => e.type === 'playback' && e.action), ['ducked', 'restored']);
  });

  // Lowered only, a word people take the floor with pauses the answer where it was heard; as shipped,
  // the first sound silenced it (the onset hold) and the word keeps it silent past the hold.
  const INTERRUPTIONS = [
    { name: 'lowered only: a word that is no acknowledgement pauses the answer where it was heard', settings: LOWERING, wordAtMs: 450, stoppedMs: 450 },
    { name: 'as shipped: the first sound silences the answer, and a word that is no acknowledgement keeps it silent', settings: DEFAULT_SETTINGS, wordAtMs: 350, stoppedMs: 200 },
  ];
  for (const c of INTERRUPTIONS) {
    it(`${c.name}; confirmed, it stops there and the speech is the next turn`, async () => {
      const { r, clock, output, endTurn, history } = await speechOverAnswer(c.settings);
      assert.equal(output.paused, c.settings.bargeIn.onsetHoldMs > 0, 'silent at the first sound only with the hold');
      clock.t = c.wordAtMs;
      r.onTurnEvent({ type: 'words', atMs: clock.t, text: 'wait' });
      r.tick(450);
      assert.equal(output.paused, true, 'paused once the word was heard, and still after the hold');
      clock.t = 600;
      r.onTurnEvent({ type: 'speech-start', atMs: 600, startMs: 180 });
      clock.t = 2000;
      endTurn('wait tell me about the knight', 180);
      await r.drain();
      clock.t = 100_000;
      r.settle(clock.t);
      assert.deepEqual(r.reports.map((x) => x.userText), ['tell me a story', 'wait tell me about the knight']);
      assert.deepEqual(r.reports[0]!.bargeIn, { detectedMs: 600, playbackStoppedMs: c.stoppedMs, speechStartMs: 180 });
      assert.deepEqual(r.reports[0]!.backchannels, []);
      assert.equal(history()[2], 'user:wait tell me about the knight');
    });
  }

  it('as shipped, an acknowledgement ends the hold at once: the answer plays on lowered, then at full volume, and is listed', async () => {
    const { r, clock, output, log } = await speechOverAnswer(DEFAULT_SETTINGS);
    clock.t = 330;
    r.onTurnEvent({ type: 'words', atMs: 330, text: 'yeah' });
    assert.equal(output.paused, false, 'back after 130 ms');
    assert.ok(Math.abs(output.audible(400, 16)![0]! - 0.025) < 1e-6, 'lowered while judged');
    clock.t = 420;
    r.onTurnEvent({ type: 'discarded', atMs: 420, words: Promise.resolve('yeah') });
    await sleep(5);
    assert.ok(Math.abs(output.audible(500, 16)![0]! - 0.1) < 1e-6, 'full volume again');
    clock.t = 100_000;
    r.settle(clock.t);
    assert.equal(r.reports[0]!.interrupted, false);
    assert.deepEqual(r.reports[0]!.backchannels, [{ atMs: 180, text: 'yeah' }]);
    assert.deepEqual(log.filter((e) => e.type === 'playback').map((e) => e.type === 'playback' && e.action), ['paused', 'ducked', 'resumed', 'restored']);
  });
});

describe('asking before a tool runs, and the window deciding (scripted turn events)', () => {
  function withOpen() {
    const opened: string[] = [];
    const tools = new Toolbox(
      [
        {
          spec: { name: 'open', description: 'Opens a link.', parameters: { type: 'object', properties: { target: { type: 'string' } } } },
          server: 'built-in',
          changes: true,
          describe: (a) => `open ${String(a.target)}`,
          run: async (a) => (opened.push(String(a.target)), `Opened ${String(a.target)}`),
        },
      ],
      () => ({ timeoutMs: 1000 }),
    );
    const s = setup({ tools, toolCall: { id: 'call_1', name: 'open', arguments: '{"target":"example.com"}' }, answer: 'Sure.' });
    return { ...s, opened };
  }

  it("the answer asks and runs nothing; the window's Run runs it once, says so, and the history knows", async () => {
    const { r, clock, endTurn, history, log, opened } = withOpen();
    clock.t = 2000;
    endTurn('open the page');
    await r.drain();
    const asked = log.filter((e) => e.type === 'confirmation');
    assert.equal(asked.length, 1);
    const pending = (asked[0] as { pending: { id: string; action: string } | null }).pending!;
    assert.equal(pending.action, 'open example.com');
    assert.deepEqual(opened, [], 'nothing ran before the yes');
    assert.deepEqual(history(), ['user:open the page', "assistant: I'm about to open example.com. Shall I go ahead?"]);
    r.decideConfirmation('confirm-99', true);
    assert.deepEqual(opened, [], 'an old id runs nothing');
    r.decideConfirmation(pending.id, true);
    await new Promise((done) => setTimeout(done, 20));
    assert.deepEqual(opened, ['example.com']);
    assert.deepEqual(history().slice(2), [`user:${WINDOW_RUN_WORDS}`, 'assistant:Done.']);
    assert.equal((log.filter((e) => e.type === 'confirmation').at(-1) as { pending: unknown }).pending, null, 'the window is told it is closed');
    r.decideConfirmation(pending.id, true);
    await new Promise((done) => setTimeout(done, 20));
    assert.deepEqual(opened, ['example.com'], 'once');
  });

  it("the window's Cancel runs nothing and closes the question", async () => {
    const { r, clock, endTurn, log, opened } = withOpen();
    clock.t = 2000;
    endTurn('open the page');
    await r.drain();
    const pending = (log.find((e) => e.type === 'confirmation') as { pending: { id: string } }).pending;
    r.decideConfirmation(pending.id, false);
    await new Promise((done) => setTimeout(done, 20));
    assert.deepEqual(opened, []);
    assert.equal((log.filter((e) => e.type === 'confirmation').at(-1) as { pending: unknown }).pending, null);
  });
});
