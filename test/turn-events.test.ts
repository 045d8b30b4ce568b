/**
 * Turn taking on scripted timelines: microphone windows in, turn events out. The VAD and recognizer
 * are SCRIPTED stand-ins (any non-zero window is speech; the recognizer returns set words) that
 * control timing only; the real ones are tested in vad.test.ts, stt.test.ts and turn-taking.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SpeechRecognizer } from '../electron/engines/stt';
import type { TurnDetector } from '../electron/engines/turn-detector';
import type { VoiceActivityDetector } from '../electron/engines/vad';
import { FastForwardClock } from '../electron/pipeline/clock';
import { EventHub, type PipelineEvent } from '../electron/pipeline/events';
import { TimelineOutput } from '../electron/pipeline/speak/output';
import { TurnTaking } from '../electron/pipeline/turns/turn-taking';
import type { TurnEvent, TurnGate } from '../electron/pipeline/turns/turn-events';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from '../electron/settings/schema';
import type { AssistantPhase } from '../electron/pipeline/vocabulary';

/**
 * `heard`: the recognizer's interim words (`partial`) and what each peek() gives in turn (`peeks`,
 * then `partial` again; without `peeks` sessions cannot peek). By default the partials are
 * "partial N" and sessions cannot peek.
 */
type Heard = { partial: string; peeks?: string[] };
function scripted(words: string[], heard?: Heard) {
  const vad: VoiceActivityDetector = {
    info: { id: 'scripted-vad', loadMs: 0, threshold: 0.5 },
    accept: async (w) => ({ speech: w.some((x) => x !== 0), probability: w.some((x) => x !== 0) ? 0.9 : 0.05 }),
    setThreshold: () => {},
    reset: () => {},
    dispose: async () => {},
  };
  let n = 0;
  const aborted: number[] = [];
  const stt: SpeechRecognizer = {
    streaming: true,
    leadInMs: 0,
    info: { id: 'scripted-stt', kind: 'streaming', loadMs: 0 },
    busy: false,
    createSession: (onPartial) => {
      const id = n++;
      return {
        accept: () => onPartial?.(heard ? heard.partial : `partial ${id}`),
        abort: () => aborted.push(id),
        finish: async () => words.shift() ?? '',
        ...(heard?.peeks ? { peek: async () => heard.peeks!.shift() ?? heard.partial } : {}),
      };
    },
  };
  return { vad, stt, aborted };
}

/** Runs `speech` spans (ms) through turn taking window by window on a fast clock. */
async function run(opts: { speech: [number, number][]; totalMs: number; words?: string[]; heard?: Heard; settings?: Settings; phase?: (ms: number) => AssistantPhase; listens?: boolean; keys?: [number, number][]; turn?: TurnDetector }) {
  const settings = opts.settings ?? mergeSettings(DEFAULT_SETTINGS, { endpointing: { silenceMs: 400, minSpeechMs: 200 } });
  const engines = { ...scripted(opts.words ?? ['hello there', 'second turn'], opts.heard), turn: opts.turn ?? null };
  const clock = new FastForwardClock();
  const hub = new EventHub();
  const pub: PipelineEvent[] = [];
  hub.on((e) => pub.push(e));
  const turns: TurnEvent[] = [];
  const asked: AssistantPhase[] = [];
  const gate: TurnGate = {
    listens: () => opts.listens ?? true,
    minSpeechMs: (p, ms) => {
      asked.push(p);
      return p === 'speaking' ? 600 : ms;
    },
  };
  const tt = new TurnTaking({ clock, settings: () => settings, events: hub, output: new TimelineOutput() }, engines, { gate, onTurn: (e) => turns.push(e) });
  for (let k = 0; k * 32 < opts.totalMs; k++) {
    const t = k * 32;
    for (const [a, b] of opts.keys ?? []) {
      if (t === a) tt.pushToTalk(true);
      if (t === b) tt.pushToTalk(false);
    }
    const on = opts.speech.some(([a, b]) => t >= a && t < b);
    const w = new Float32Array(512).fill(on ? 0.2 : 0);
    clock.skipTo(t + 32);
    const heard = await tt.hear(w, false);
    tt.decide(heard, opts.phase?.(t) ?? 'idle');
    // As the live loop: a verdict in flight arrives before the next window is heard.
    while (tt.busy) await new Promise((r) => setImmediate(r));
  }
  return { tt, turns, pub, engines, asked, clock };
}

/** The turn events in order, without the recognizer's interim words (they come as the recognizer likes). */
const endOf = (turns: TurnEvent[]) => turns.filter((e): e is Extract<TurnEvent, { type: 'end-of-turn' }> => e.type === 'end-of-turn');
const kinds = (turns: TurnEvent[]) => turns.filter((e) => e.type !== 'words').map((e) => e.type);

describe('turn taking (scripted VAD and recognizer)', () => {
  it('one utterance: candidate, speech start, pause, end of turn with its words, number and reason', async () => {
    const { turns, pub } = await run({ speech: [[320, 1280]], totalMs: 2500 });
    assert.deepEqual(kinds(turns), ['candidate', 'speech-start', 'pause', 'end-of-turn']);
    const end = endOf(turns).at(-1)!;
    assert.equal(end.turn.index, 0);
    assert.equal(end.turn.reason, 'silence');
    assert.ok(Math.abs(end.turn.speechStartMs - 320) <= 32 && Math.abs(end.turn.speechEndMs - 1280) <= 32, JSON.stringify(end.turn));
    assert.ok(end.turn.endOfTurnMs - end.turn.speechEndMs >= 400 - 32, 'ended after the silence');
    const t = await end.turn.transcript;
    assert.equal(t.text, 'hello there');
    assert.ok(t.finalMs >= end.turn.endOfTurnMs && t.decodeMs >= 0);
    // Public events: the VAD every window, speech start and end, and partials numbered as the turn.
    assert.equal(pub.filter((e) => e.type === 'vad').length, Math.ceil(2500 / 32));
    assert.ok(pub.some((e) => e.type === 'speech-start') && pub.some((e) => e.type === 'speech-end'));
    assert.ok(pub.filter((e) => e.type === 'partial').every((e) => e.type === 'partial' && e.turn === 0));
  });

  it('numbers turns once: the second turn is 1 and its partials say so', async () => {
    const { turns, pub } = await run({ speech: [[320, 1000], [2000, 2600]], totalMs: 3600 });
    const ends = turns.filter((e): e is Extract<TurnEvent, { type: 'end-of-turn' }> => e.type === 'end-of-turn');
    assert.deepEqual(ends.map((e) => e.turn.index), [0, 1]);
    assert.equal((await ends[1]!.turn.transcript).text, 'second turn');
    const late = pub.filter((e) => e.type === 'partial' && e.t > ends[0]!.turn.endOfTurnMs + 100);
    assert.ok(late.length > 0 && late.every((e) => e.type === 'partial' && e.turn === 1));
  });

  it('a blip too short for a turn is a candidate, then discarded with what its recognizer finally made of it', async () => {
    const { turns, engines } = await run({ speech: [[320, 420]], totalMs: 1500, words: ['stop'] });
    assert.deepEqual(kinds(turns), ['candidate', 'discarded']);
    const discarded = turns.find((e): e is Extract<TurnEvent, { type: 'discarded' }> => e.type === 'discarded')!;
    assert.equal(await discarded.words, 'stop', 'a short word is still recognized');
    assert.deepEqual(engines.aborted, [], 'its recognizer was finished, not dropped');
  });

  it('asks the gate how much speech counts in the phase the candidate began in', async () => {
    // 450 ms of speech: a turn while idle (minSpeechMs 200), nothing while speaking (600).
    const idle = await run({ speech: [[320, 770]], totalMs: 1800 });
    assert.ok(kinds(idle.turns).includes('end-of-turn'));
    const speaking = await run({ speech: [[320, 770]], totalMs: 1800, phase: () => 'speaking' });
    assert.deepEqual(kinds(speaking.turns), ['candidate', 'discarded']);
    assert.equal((speaking.turns[0] as Extract<TurnEvent, { type: 'candidate' }>).phase, 'speaking');
  });

  it('hears nothing when the gate does not listen (barge-in off while speaking)', async () => {
    const { turns } = await run({ speech: [[320, 1280]], totalMs: 2500, listens: false });
    assert.deepEqual(turns, []);
  });

  it('push-to-talk: the key starts the turn and its release ends it, placed on the speech inside', async () => {
    const settings = mergeSettings(DEFAULT_SETTINGS, { mode: 'push-to-talk' });
    const { turns } = await run({ speech: [[640, 1280]], totalMs: 2500, settings, keys: [[320, 1600]] });
    assert.deepEqual(kinds(turns), ['key-down', 'end-of-turn']);
    const end = endOf(turns)[0]!;
    assert.equal(end.turn.reason, 'push-to-talk');
    assert.ok(Math.abs(end.turn.speechStartMs - 640) <= 32 && Math.abs(end.turn.speechEndMs - 1280) <= 32, JSON.stringify(end.turn));
  });

  it('endTurnNow ends a turn in progress, and drops a mere candidate', async () => {
    const inTurn = await run({ speech: [[320, 2000]], totalMs: 1200 });
    inTurn.tt.endTurnNow('input-ended');
    const end = endOf(inTurn.turns).at(-1)!;
    assert.equal(end.turn.reason, 'input-ended');
    assert.equal((await end.turn.transcript).text, 'hello there');
    const blip = await run({ speech: [[320, 2000]], totalMs: 420 });
    blip.tt.endTurnNow('input-ended');
    assert.deepEqual(kinds(blip.turns), ['candidate', 'discarded']);
  });
});

/** A SCRIPTED end-of-turn model: answers each check from a list, and logs the audio it was given. */
function scriptedDetector(answers: (number | Error)[]) {
  const heard: Float32Array[] = [];
  const detector: TurnDetector = {
    info: { id: 'scripted-turn', loadMs: 0 },
    async score(audio) {
      heard.push(audio);
      const a = answers.shift() ?? 0;
      if (a instanceof Error) throw a;
      return { probability: a, featuresMs: 0, inferenceMs: 0 };
    },
    dispose: async () => {},
  };
  return { detector, heard };
}


describe('turn taking with an end-of-turn model (scripted model)', () => {
  const settings = mergeSettings(DEFAULT_SETTINGS, { endpointing: { silenceMs: 600, minSpeechMs: 200, turnCheckMs: 200, maxPauseMs: 1600 } });

  it('a pause the model calls finished ends the turn at the check, with reason turn-model and the check reported', async () => {
    const m = scriptedDetector([0.9]);
    const { turns, pub } = await run({ speech: [[320, 1280]], totalMs: 2500, settings, turn: m.detector });
    const [end, ...more] = endOf(turns);
    assert.equal(more.length, 0);
    assert.equal(end!.turn.reason, 'turn-model');
    const waited = end!.turn.endOfTurnMs - end!.turn.speechEndMs;
    assert.ok(waited >= 200 - 32 && waited < 600, `ended ${waited} ms after the speech, before silenceMs`);
    assert.equal(end!.turn.turnChecks!.length, 1);
    assert.equal(end!.turn.turnChecks![0]!.probability, 0.9);
    assert.ok(pub.some((e) => e.type === 'turn-check' && e.turn === 0 && e.probability === 0.9));
    // It heard the turn from just before its onset through the pause.
    const audio = m.heard[0]!;
    assert.ok(audio.length / 16 >= 1280 - 320 + 200 && audio.length / 16 <= 1280 - 320 + 200 + 600, `${audio.length / 16} ms`);
  });

  it('a pause the model calls unfinished may run past silenceMs: one turn, ended at the next pause', async () => {
    const m = scriptedDetector([0.1, 0.8]);
    const { turns } = await run({ speech: [[320, 1000], [2000, 2600]], totalMs: 4000, settings, turn: m.detector });
    const ends = endOf(turns);
    assert.equal(ends.length, 1, 'the 1 s hold did not end the turn');
    assert.equal(ends[0]!.turn.reason, 'turn-model');
    assert.deepEqual(ends[0]!.turn.turnChecks!.map((c) => c.probability), [0.1, 0.8]);
  });

  it('no pause runs past maxPauseMs, whatever the model says', async () => {
    const m = scriptedDetector([0.1]);
    const { turns } = await run({ speech: [[320, 1000]], totalMs: 3500, settings, turn: m.detector });
    const [end] = endOf(turns);
    assert.equal(end!.turn.reason, 'silence');
    const waited = end!.turn.endOfTurnMs - end!.turn.speechEndMs;
    assert.ok(waited >= 1600 - 32 && waited <= 1600 + 64, `${waited}`);
  });

  it('with the model turned off, silenceMs decides and nothing is checked', async () => {
    const m = scriptedDetector([0.9]);
    const off = mergeSettings(settings, { endpointing: { turnModel: false } });
    const { turns } = await run({ speech: [[320, 1280]], totalMs: 2500, settings: off, turn: m.detector });
    const [end] = endOf(turns);
    assert.equal(end!.turn.reason, 'silence');
    assert.equal(end!.turn.turnChecks, null);
    assert.equal(m.heard.length, 0);
  });

  // Scheduling logic only: the model's verdict is SCRIPTED (0.99, "finished") so that only the words decide.
  describe('a dangling word holds the pause whatever the model says (scheduling logic, scripted 0.99 verdict)', () => {
    const waitedAfter = (end: Extract<TurnEvent, { type: 'end-of-turn' }>) => end.turn.endOfTurnMs - end.turn.speechEndMs;

    it('"set an alarm for the": held until maxPauseMs, the check carrying the words and what held it', async () => {
      const m = scriptedDetector([0.99]);
      const { turns, pub } = await run({ speech: [[320, 1280]], totalMs: 3500, settings, turn: m.detector, heard: { partial: 'set an alarm for', peeks: ['set an alarm for the'] } });
      const [end, ...more] = endOf(turns);
      assert.equal(more.length, 0);
      assert.equal(end!.turn.reason, 'silence');
      const waited = waitedAfter(end!);
      assert.ok(waited >= 1600 - 32 && waited <= 1600 + 64, `ended ${waited} ms after the speech, not at the check`);
      assert.deepEqual(end!.turn.turnChecks!.map(({ probability, text, heldBy }) => ({ probability, text, heldBy })), [{ probability: 0.99, text: 'set an alarm for the', heldBy: 'dangling-word' }]);
      assert.ok(pub.some((e) => e.type === 'turn-check' && e.text === 'set an alarm for the' && e.heldBy === 'dangling-word'));
    });

    it('the same verdict on a finished sentence ends the turn at the check', async () => {
      const m = scriptedDetector([0.99]);
      const { turns } = await run({ speech: [[320, 1280]], totalMs: 3500, settings, turn: m.detector, heard: { partial: 'set an alarm for', peeks: ['set an alarm for seven'] } });
      const [end] = endOf(turns);
      assert.equal(end!.turn.reason, 'turn-model');
      assert.ok(waitedAfter(end!) < 600, `${waitedAfter(end!)}`);
      assert.deepEqual(end!.turn.turnChecks!.map(({ text, heldBy }) => ({ text, heldBy })), [{ text: 'set an alarm for seven', heldBy: null }]);
    });

    it('a recognizer that cannot peek: the latest interim words decide', async () => {
      const m = scriptedDetector([0.99]);
      const { turns } = await run({ speech: [[320, 1280]], totalMs: 3500, settings, turn: m.detector, heard: { partial: 'call my' } });
      const [end] = endOf(turns);
      assert.equal(end!.turn.reason, 'silence');
      assert.deepEqual(end!.turn.turnChecks!.map(({ text, heldBy }) => ({ text, heldBy })), [{ text: 'call my', heldBy: 'dangling-word' }]);
    });

    it('a held pause the user goes on from stays one turn', async () => {
      const m = scriptedDetector([0.99, 0.99]);
      const { turns } = await run({ speech: [[320, 1000], [2000, 2600]], totalMs: 4000, settings, turn: m.detector, heard: { partial: '', peeks: ['call mom and um', 'call mom and um at home'] } });
      const ends = endOf(turns);
      assert.equal(ends.length, 1, 'the 1 s pause after "and um" did not end the turn');
      assert.equal(ends[0]!.turn.reason, 'turn-model');
      assert.deepEqual(ends[0]!.turn.turnChecks!.map((c) => c.heldBy), ['dangling-word', null]);
    });
  });

  it('a failing model says so once and leaves the pauses to silence', async () => {
    const m = scriptedDetector([new Error('session lost'), new Error('session lost')]);
    const { turns, pub } = await run({ speech: [[320, 1000], [2500, 3000]], totalMs: 4500, settings, turn: m.detector });
    const ends = endOf(turns);
    assert.deepEqual(ends.map((e) => e.turn.reason), ['silence', 'silence']);
    assert.ok(Math.abs(ends[0]!.turn.endOfTurnMs - ends[0]!.turn.speechEndMs - 600) <= 64);
    assert.equal(pub.filter((e) => e.type === 'notice' && e.message.includes('end-of-turn model failed')).length, 1);
  });
});
