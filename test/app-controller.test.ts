/**
 * The controller behind the window on the real engines, through its typed contract only: models
 * load and report their status, microphone frames in real time become a turn whose audio reaches
 * the sink with its stream positions, the microphone switch and interrupt work, and settings that
 * need it reload the model. Timers live in the data folder and ring at their absolute time across a
 * models reload and a restart; a corrupt timers file is kept aside and reported.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AssistantController } from '../electron/app/controller';
import type { AppEvent, AppStatus, AssistantAudio, AssistantAudioControl, Snapshot } from '../electron/ipc-contract';
import { FastForwardClock } from '../electron/pipeline/clock';
import type { TurnReport } from '../electron/pipeline/report';
import { TimerBook, type Timer } from '../electron/timers/timer-book';
import { TIMERS_FILE, TimerStore } from '../electron/timers/timer-store';
import type { PipelineEvent } from '../electron/pipeline/events';
import { loadClip16k, MODEL_ROOTS, words } from './engine-fixtures';
import { checkHeard } from './heard-check';
import { tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the app controller on the real engines', () => {
  let controller: AssistantController;
  const events: AppEvent[] = [];
  const audio: AssistantAudio[] = [];
  const controls: AssistantAudioControl[] = [];
  const dataDir = tempDir('lva-ctl-');

  before(async () => {
    const settingsFile = path.join(dataDir, 'settings.json');
    // The end-of-turn model loads (shared/models has one) but is not asked: these tests time silence endpointing.
    await writeFile(settingsFile, JSON.stringify({ llm: { threads: 2, maxTokens: 24 }, endpointing: { turnModel: false } }));
    controller = new AssistantController({
      settingsFile,
      modelRoots: () => MODEL_ROOTS,
      downloadRoot: tempDir('lva-ctl-dl-'),
      audioSink: () => ({ audio: (a) => audio.push(a), control: (c) => controls.push(c) }),
    });
    controller.on((e) => events.push(e));
    await controller.start();
  });
  after(async () => {
    await controller?.dispose();
  });

  /** The pipeline's events so far (clauses and audio spans: what an interrupted answer's heard part must be). */
  function pipelineEvents(): PipelineEvent[] {
    return events.flatMap((e) => (e.type === 'pipeline' ? [e.event] : []));
  }

  function status(): AppStatus {
    return (controller.snapshot() satisfies Snapshot).status;
  }

  /** Feeds a clip as a microphone would: 20 ms frames in real time, then `tailMs` of silence. */
  async function speak(samples: Float32Array, tailMs: number): Promise<void> {
    const frame = 320;
    const t0 = performance.now();
    const total = samples.length + (tailMs / 1000) * 16000;
    for (let i = 0; i < total; i += frame) {
      const chunk = new Float32Array(frame);
      if (i < samples.length) chunk.set(samples.subarray(i, Math.min(i + frame, samples.length)));
      controller.pushAudio(chunk);
      const due = t0 + ((i + frame) / 16000) * 1000;
      await sleep(Math.max(0, due - performance.now()));
    }
  }

  async function until<T>(what: string, get: () => T | undefined, timeoutMs = 30_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  }

  it('loads every model and reports where the LLM runs', () => {
    const s = status();
    assert.equal(s.phase, 'ready', s.error ?? '');
    assert.deepEqual(s.models.map((m) => [m.kind, m.state]), [['vad', 'ready'], ['stt', 'ready'], ['tts', 'ready'], ['llm', 'ready'], ['turn', 'ready']]);
    assert.equal(s.models.find((m) => m.kind === 'turn')?.id, 'test-turn-eot-espeak', 'the optional end-of-turn model, when installed');
    assert.ok(s.models.every((m) => m.id && m.name && typeof m.loadMs === 'number'));
    assert.equal(s.models.find((m) => m.kind === 'vad')?.layout, 'silero-v5', 'the VAD says which Silero export it loaded');
    const voices = s.models.find((m) => m.kind === 'tts')?.voices;
    assert.ok(Number.isInteger(voices) && voices! >= 1, `the voice model says how many voices it has (Settings: "Voice 1 of N"), got ${voices}`);
    assert.equal(s.llm?.backend, 'cpu');
    assert.ok((s.llm?.contextSize ?? 0) >= 512, 'the context (the default, or the model\'s own if smaller)');
    const phases = events.filter((e): e is Extract<AppEvent, { type: 'status' }> => e.type === 'status').map((e) => e.status.phase);
    assert.deepEqual([phases[0], phases.at(-1)], ['loading', 'ready']);
  });

  it('keeps what the browser applied to the microphone in the status; a malformed report changes nothing', () => {
    assert.equal(status().microphone, null, 'none before a window reports one');
    const applied = { echoCancellation: true, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1, label: "Anna's AirPods" };
    controller.command({ type: 'microphone-settings', settings: applied });
    assert.deepEqual(status().microphone, applied);
    const told = events.filter((e): e is Extract<AppEvent, { type: 'status' }> => e.type === 'status').at(-1);
    assert.deepEqual(told?.status.microphone, applied, 'the window is told');
    controller.command({ type: 'microphone-settings', settings: { ...applied, echoCancellation: 'sometimes' } });
    assert.deepEqual(status().microphone, applied);
    assert.ok(events.some((e) => e.type === 'notice' && /microphone-settings.*"echoCancellation" must be/.test(e.message)));
  });

  it('microphone frames in real time become a turn; its audio reaches the sink with stream positions', async () => {
    const weather = await loadClip16k('weather');
    await speak(weather, 300);
    const turn = await until('the turn report', () => {
      const e = events.find((x) => x.type === 'pipeline' && x.event.type === 'turn');
      return e && e.type === 'pipeline' && e.event.type === 'turn' ? e.event.report : undefined;
    });
    assert.deepEqual(words(turn.userText), words('what is the weather like today'));
    // The end of the turn is announced when decided, before the report (which waits for the answer to play).
    const endIndex = events.findIndex((e) => e.type === 'pipeline' && e.event.type === 'end-of-turn');
    const turnIndex = events.findIndex((e) => e.type === 'pipeline' && e.event.type === 'turn');
    assert.ok(endIndex >= 0 && endIndex < turnIndex);
    const end = events[endIndex] as { event: { t: number; speechEndMs: number; reason: string } };
    assert.equal(Math.round(end.event.t * 10) / 10, turn.timings.endOfTurnMs);
    assert.equal(end.event.reason, 'silence');
    assert.ok(turn.latency.voiceToVoiceMs !== null && turn.latency.sttMs >= 0 && turn.latency.endpointMs >= 500, JSON.stringify(turn.latency));
    assert.ok(audio.length > 0, 'audio was sent');
    for (let i = 1; i < audio.length; i++) assert.ok(audio[i]!.from >= audio[i - 1]!.from, 'stream positions never go back');
    assert.equal(audio[0]!.from, 0);
    // The turn is in the data folder's conversation history, and the window is told so.
    const logged = await until('the history event', () => events.find((e) => e.type === 'history'));
    const history = await controller.request({ type: 'history-sessions' });
    assert.ok(history.ok && 'sessions' in history, JSON.stringify(history));
    assert.deepEqual(history.sessions.map((s) => [s.id, s.turns, s.current]), [[logged.type === 'history' ? logged.session : '', 1, true]]);
    // Logged with the microphone's settings as the window reported them, the device's name left out.
    const [file] = await readdir(path.join(dataDir, 'history'));
    const line = JSON.parse(await readFile(path.join(dataDir, 'history', file!), 'utf8')) as { microphone?: unknown };
    assert.deepEqual(line.microphone, { echoCancellation: true, autoGainControl: false, noiseSuppression: false, sampleRate: 48000, channelCount: 1 });
  });

  it('with the microphone off, frames are ignored; interrupt stops an answer and tells the player', async () => {
    controller.command({ type: 'set-listening', listening: false });
    assert.equal(status().listening, false);
    const before = events.length;
    await speak(await loadClip16k('weather'), 0);
    assert.equal(events.slice(before).filter((e) => e.type === 'pipeline' && e.event.type === 'vad').length, 0, 'no audio processed');
    controller.command({ type: 'set-listening', listening: true });

    const turns = () => events.filter((e) => e.type === 'pipeline' && e.event.type === 'turn').length;
    const n = turns();
    const from = events.length;
    const speaking = speak(await loadClip16k('story'), 1500);
    await until('the answer to start', () =>
      events.slice(from).some((e) => e.type === 'pipeline' && e.event.type === 'state' && e.event.state === 'speaking') ? true : undefined,
    );
    controller.command({ type: 'interrupt' });
    await until('the stop to reach the player', () => (controls.some((c) => c.action === 'stop') ? true : undefined), 2000);
    await speaking;
    const report = await until('the interrupted turn', () => {
      const all = events.filter((e) => e.type === 'pipeline' && e.event.type === 'turn');
      const e = all[n];
      return e && e.type === 'pipeline' && e.event.type === 'turn' ? (e.event.report as TurnReport) : undefined;
    });
    assert.equal(report.interrupted, true);
    // The microphone was off for 4 s before this turn: times are tied to the clock again on resume (the 4 s are not
    // counted; how soon after the speech the turn ended depends on the end-of-turn model and the load).
    assert.ok(report.latency.endpointMs > 0 && report.latency.endpointMs <= 1200, `endpoint ${report.latency.endpointMs} ms after a pause in the input`);
    assert.ok(report.heardText.length < report.assistantText.length, 'only what was heard is kept');
    checkHeard(report, pipelineEvents(), 'the answer stopped by interrupt');
    assert.equal(turns(), n + 1);
    controller.command({ type: 'reset-conversation' });
    await until('the new conversation', () => (events.some((e) => e.type === 'notice' && e.message === 'Started a new conversation.') ? true : undefined), 10_000);
  });

  it('one-shot: an activation listens for one turn, speech is then ignored, and an activation over an answer stops it at once', async () => {
    const turnReports = () => events.flatMap((e) => (e.type === 'pipeline' && e.event.type === 'turn' ? [e.event.report as TurnReport] : []));
    const stateNow = () => controller.snapshot().state;
    assert.equal((await controller.request({ type: 'update-settings', patch: { mode: 'one-shot' } })).ok, true);
    try {
      await until('idle', () => (stateNow() === 'idle' ? true : undefined), 5000);
      const weather = await loadClip16k('weather');
      const n = turnReports().length;
      controller.command({ type: 'activate' });
      await speak(weather, 1500);
      const report = await until('the one turn', () => turnReports()[n]);
      assert.equal(report.startedBy, 'activation');
      assert.deepEqual(words(report.userText), words('what is the weather like today'));
      await until('idle again', () => (stateNow() === 'idle' ? true : undefined), 10_000);

      const from = events.length;
      await speak(weather, 1500);
      assert.equal(turnReports().length, n + 1, 'no activation, no turn');
      assert.ok(!events.slice(from).some((e) => e.type === 'pipeline' && e.event.type === 'speech-start'), 'the speech was not taken for a turn');

      controller.command({ type: 'activate' });
      const speaking = speak(await loadClip16k('story'), 1500);
      await until('the answer to play', () => (stateNow() === 'speaking' ? true : undefined), 30_000);
      const stops = controls.filter((c) => c.action === 'stop').length;
      controller.command({ type: 'activate' });
      // At once: the player was told before command() returned, not on a later tick.
      assert.equal(controls.filter((c) => c.action === 'stop').length, stops + 1, 'the player was told to stop');
      await speaking;
      const interrupted = await until('the interrupted turn', () => turnReports()[n + 1]);
      assert.equal(interrupted.interrupted, true);
      assert.ok(interrupted.heardText.length < interrupted.assistantText.length);
      checkHeard(interrupted, pipelineEvents(), 'the answer stopped by an activation');
    } finally {
      await controller.request({ type: 'update-settings', patch: { mode: 'hands-free' } });
      controller.command({ type: 'reset-conversation' });
    }
  });

  it('a context size change reloads the model; an invalid change is refused and reloads nothing', async () => {
    const bad = await controller.request({ type: 'update-settings', patch: { llm: { contextSize: 7 } } });
    assert.equal(bad.ok, false);
    assert.equal(status().phase, 'ready');
    const r = await controller.request({ type: 'update-settings', patch: { llm: { contextSize: 1024 } } });
    assert.equal(r.ok, true);
    await until('the reload to start', () => (status().phase === 'loading' ? true : undefined), 5000).catch(() => undefined);
    await until('the reload', () => (status().phase === 'ready' && status().llm?.contextSize === 1024 ? true : undefined), 60_000);
    assert.ok(events.some((e) => e.type === 'notice' && /Reloading the models/.test(e.message)));
  });
});

async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The 'timer' ringing events seen so far, by the name of the timer that rang. */
function rang(events: AppEvent[]): (string | null)[] {
  return events.flatMap((e) => (e.type === 'pipeline' && e.event.type === 'timer' ? [e.event.name] : []));
}

/** A controller over `dir` with no models installed: it starts quickly, into first-run setup. */
function modellessController(dir: string): AssistantController {
  return new AssistantController({
    settingsFile: path.join(dir, 'settings.json'),
    modelRoots: () => [path.join(dir, 'no-models')],
    downloadRoot: path.join(dir, 'downloads'),
    audioSink: () => null,
    detectHardware: async () => ({ backend: 'cpu', gpuNames: [], vramMiB: null, unifiedMemory: false, ramMiB: 8192 }),
  });
}

async function storedTimers(dir: string): Promise<Timer[]> {
  return TimerBook.fromJSON(JSON.parse(await readFile(path.join(dir, TIMERS_FILE), 'utf8'))).all();
}

describe('timers in the app data folder, across a models reload and a restart (real engines)', () => {
  const dir = tempDir('lva-ctl-timers-');
  const settingsFile = path.join(dir, 'settings.json');
  const MIN = 60_000;
  let controller: AssistantController | null = null;
  let tea: Timer;
  let eggs: Timer;

  /** A controller on `dir` whose pipeline clock can jump ahead, so epoch time can be moved without waiting. */
  async function startController(clock: FastForwardClock, events: AppEvent[]): Promise<AssistantController> {
    const c = new AssistantController({ settingsFile, modelRoots: () => MODEL_ROOTS, downloadRoot: tempDir('lva-ctl-dl-'), audioSink: () => null, clock });
    c.on((e) => events.push(e));
    controller = c;
    await c.start();
    assert.equal(c.snapshot().status.phase, 'ready', c.snapshot().status.error ?? '');
    return c;
  }

  before(async () => {
    await writeFile(settingsFile, JSON.stringify({ llm: { threads: 2, maxTokens: 16 }, endpointing: { turnModel: false } }));
    // As an earlier run left them: one due in an hour, one to be cancelled, one that fell due while the app was closed.
    const now = Date.now();
    const book = new TimerBook();
    tea = book.startTimer(60 * MIN, 'tea', now);
    eggs = book.startTimer(30 * MIN, 'eggs', now);
    book.startTimer(5 * MIN, 'bread', now - 10 * MIN);
    // Cancelled three days ago: kept by nobody, pruned from the file.
    const old = now - 3 * 24 * 60 * MIN;
    book.startTimer(MIN, 'old', old);
    book.cancel(old + 1000, { name: 'old' });
    await new TimerStore(dir).save(book);
  });
  after(async () => {
    await controller?.dispose();
  });

  it('loads the stored timers: one missed while closed rings at once, the others are listed with their absolute times', async () => {
    const events: AppEvent[] = [];
    const c = await startController(new FastForwardClock(), events);
    await until('the missed timer to ring', () => (rang(events).includes('bread') ? true : undefined), 5000);
    const listed = c.snapshot().timers;
    assert.deepEqual(
      listed.filter((t) => !t.ringing).map((t) => [t.id, t.name, t.dueAtMs]),
      [
        [eggs.id, 'eggs', eggs.dueAtMs],
        [tea.id, 'tea', tea.dueAtMs],
      ],
    );
    assert.deepEqual(rang(events), ['bread'], 'only what was due rang');
    // That it rang is stored (just after the event), so a restart does not ring it again.
    await until('the ring to be stored', async () => ((await storedTimers(dir)).find((t) => t.name === 'bread')?.firedAtMs ? true : undefined), 5000);
    assert.deepEqual((await storedTimers(dir)).map((t) => t.name), ['tea', 'eggs', 'bread'], 'the long-finished one is pruned');
  });

  it('the same timers survive a models reload; cancel-timer acts on them and is stored', async () => {
    const c = controller!;
    const r = await c.request({ type: 'update-settings', patch: { llm: { contextSize: 1024 } } });
    assert.equal(r.ok, true);
    await until('the reload', () => (c.snapshot().status.phase === 'ready' && c.snapshot().status.llm?.contextSize === 1024 ? true : undefined), 60_000);
    assert.deepEqual(c.snapshot().timers.filter((t) => !t.ringing).map((t) => t.name), ['eggs', 'tea']);
    const events: AppEvent[] = [];
    c.on((e) => events.push(e));
    c.command({ type: 'cancel-timer', id: eggs.id });
    const changed = await until('the timers event', () => {
      const e = events.find((x) => x.type === 'pipeline' && x.event.type === 'timers');
      return e?.type === 'pipeline' && e.event.type === 'timers' ? e.event.timers : undefined;
    });
    assert.deepEqual(changed.filter((t) => !t.ringing).map((t) => t.name), ['tea']);
    // A malformed one is reported and changes nothing.
    c.command({ type: 'cancel-timer', id: '' });
    assert.ok(events.some((e) => e.type === 'notice' && e.level === 'error' && /"id" must be a timer id/.test(e.message)));
    await c.dispose();
    controller = null;
    const stored = await storedTimers(dir);
    assert.ok(stored.find((t) => t.id === eggs.id)?.cancelledAtMs, 'the cancel was saved before the controller went away');
    assert.equal(stored.find((t) => t.id === tea.id)?.firedAtMs, null);
  });

  it('after a restart the timer still rings at its absolute time, not before', async () => {
    const events: AppEvent[] = [];
    const clock = new FastForwardClock();
    const c = await startController(clock, events);
    assert.deepEqual(c.snapshot().timers.filter((t) => !t.ringing).map((t) => [t.id, t.dueAtMs]), [[tea.id, tea.dueAtMs]]);
    // Two seconds before it is due (the pipeline's clock jumps; its timers run on epoch time = start + clock).
    clock.skipTo(clock.now() + (tea.dueAtMs - Date.now()) - 2000);
    await sleep(400);
    assert.deepEqual(rang(events), [], 'nothing rings early, and the missed one does not ring twice');
    clock.skipTo(clock.now() + 2100);
    await until('the tea timer to ring', () => (rang(events).includes('tea') ? true : undefined), 5000);
    await c.dispose();
    controller = null;
    const fired = (await storedTimers(dir)).find((t) => t.id === tea.id)!;
    assert.ok(fired.firedAtMs !== null && fired.firedAtMs >= tea.dueAtMs && fired.firedAtMs - tea.dueAtMs < 1000, `rang ${fired.firedAtMs! - tea.dueAtMs} ms after its due time`);
  });
});

describe('a corrupt timers file', () => {
  it('is kept aside and reported as an error notice; the app starts with no timers', async () => {
    const dir = tempDir('lva-ctl-badtimers-');
    const broken = '{"version": 1, "timers": [';
    await writeFile(path.join(dir, TIMERS_FILE), broken);
    const events: AppEvent[] = [];
    // No models here: this start is quick, and it shows a bad timers file does not stop anything else.
    const c = modellessController(dir);
    c.on((e) => events.push(e));
    try {
      await c.start();
      const snap = c.snapshot();
      assert.equal(snap.status.phase, 'setup', 'the app went on to its next step');
      assert.deepEqual(snap.timers, []);
      const notice = events.find((e) => e.type === 'notice' && /timers file/.test(e.message));
      assert.ok(notice?.type === 'notice' && notice.level === 'error', JSON.stringify(events.filter((e) => e.type === 'notice')));
      assert.match(notice.message, /is not valid JSON.*kept as .*timers\.json\.corrupt-/);
      assert.ok(snap.notices.includes(notice.message), 'a window that connects later sees it too');
      const backups = (await readdir(dir)).filter((f) => f.startsWith(`${TIMERS_FILE}.corrupt-`));
      assert.equal(backups.length, 1);
      assert.equal(await readFile(path.join(dir, backups[0]!), 'utf8'), broken);
      assert.deepEqual(await storedTimers(dir), [], 'replaced by an empty, valid file');
      // The controls still answer (no pipeline yet: they act on the book itself).
      c.command({ type: 'stop-ringing' });
      c.command({ type: 'cancel-timer', id: 't1' });
      assert.equal(events.filter((e) => e.type === 'notice' && e.level === 'error').length, 1);
    } finally {
      await c.dispose();
    }
  });
});

describe('the timers list the window is sent', () => {
  it('follows the clock: a ring that runs out by itself leaves the list without any pipeline event', async () => {
    const dir = tempDir('lva-ctl-ringout-');
    const now = Date.now();
    const book = new TimerBook();
    // An alarm that fired 57 s ago: its minute of ringing ends in 3 s.
    book.setAlarm(now - 57_000, now - 120_000);
    book.due(now - 57_000);
    await new TimerStore(dir).save(book);
    const events: AppEvent[] = [];
    const c = modellessController(dir);
    c.on((e) => events.push(e));
    try {
      await c.start();
      assert.deepEqual(c.snapshot().timers.map((t) => [t.kind, t.ringing]), [['alarm', true]]);
      const lists = () => events.flatMap((e) => (e.type === 'pipeline' && e.event.type === 'timers' ? [e.event.timers] : []));
      // Sent once loaded (the book had not been read when the window's empty list was assumed), then emptied.
      await until('the ringing alarm, then an empty list', () => {
        const l = lists();
        const ringing = l.findIndex((x) => x.length === 1 && x[0]!.ringing);
        return ringing >= 0 && l.slice(ringing + 1).some((x) => x.length === 0) ? true : undefined;
      }, 8000);
      assert.deepEqual(c.snapshot().timers, []);
      const sent = lists().length;
      await sleep(1200);
      assert.equal(lists().length, sent, 'an unchanged list is not sent again');
    } finally {
      await c.dispose();
    }
  });
});
