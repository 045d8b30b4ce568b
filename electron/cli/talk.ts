/**
 * Headless run of the voice pipeline: a WAV file plays the microphone, the assistant's voice goes to
 * a WAV file on the same timeline, and every turn is printed and reported. Same code as the app.
 */
import { loggingOpener } from '../tools/open';
import { writeFile } from 'node:fs/promises';
import { Mono16kFrames, WavReader, WavWriter } from '../audio/wav-stream';
import { loadSettingsFile } from '../settings/file';
import { DEFAULT_SETTINGS, withoutSecrets, type Settings } from '../settings/schema';
import { FastForwardClock, RealtimeClock } from '../pipeline/clock';
import { EchoSimulator, irMs, parseEchoSpec, readImpulseResponse, RoomSimulator, type EchoPath } from '../pipeline/run/echo';
import { VAD_SAMPLE_RATE, VAD_WINDOW } from '../engines/vad-window';
import { TimelineOutput } from '../pipeline/speak/output';
import { feedFrames } from '../pipeline/run/feed';
import type { ModelReport } from '../pipeline/load-engines';
import { TimerBook } from '../timers/timer-book';
import { VoicePipeline } from '../pipeline/voice-pipeline';
import { UserError } from '../errors';
import { isEntryPoint, parseCli, parsePttSchedule, runCli } from './args';
import { packageVersion } from './app-version';
import { ALL_MODELS } from '../../native-models/catalog';
import { HistoryRecorder } from '../history/recorder';
import { talkMemory } from './talk-memory';
import { checkDistinct, checkOutputFile, prepareLogFolder, writeOutput } from './talk-paths';
import { TalkConsole, type ConsoleOut } from './talk-console';
import { RunStop, StopRequested } from './talk-stop';

const USAGE =
  'npm run talk -- --input IN.wav [--output OUT.wav] [--report REPORT.json] [--models DIR] [--settings SETTINGS.json] [--ptt START-END,...] [--activate S,...] [--echo GAIN:DELAY_MS] [--room IR.wav] [--cleaned CLEAN.wav] [--now HH:MM] [--tail SECONDS] [--log DIR] [--notes DIR] [--memory DIR] [--clipboard TEXT] [--open-log FILE] [--fast] [--quiet]';

const HELP = `Runs the voice pipeline headless: a WAV file plays the microphone, every turn is printed.

Usage: ${USAGE}

  --input IN.wav         the microphone: any PCM WAV (8-48 kHz, mono or stereo), streamed in real time
  --output OUT.wav       the assistant's voice on the input's timeline
  --report REPORT.json   every turn's text, timings, latencies, models and settings
  --models DIR           where to find models (default: the user's models folder, then the bundled ones)
  --settings FILE        settings JSON merged over the defaults, e.g. {"endpointing": {"silenceMs": 300}}
  --ptt START-END,...    hold the push-to-talk key over these spans (seconds); implies push-to-talk mode
  --activate S,...       one-shot activations at these times (seconds), as the shortcut would; implies one-shot mode
  --echo GAIN:DELAY_MS   mix the assistant's voice back into the input, as laptop speakers would
  --room IR.wav          play the assistant's voice through a room: convolve it with this impulse response
                         (any WAV up to 2 s) before mixing it in; --echo then adds gain and delay (default 1:0)
  --cleaned CLEAN.wav    the microphone after echo cancellation (16 kHz, as long as the input)
  --now HH:MM            the local time of day when the input starts (default: the system clock)
  --tail SECONDS         after the input, keep listening this long for timers and alarms to ring (default 30)
  --fast                 skip idle waiting (engine work still runs at wall speed)
  --log DIR              append every turn to a conversation history in DIR, as the app does (npm run log -- summary --dir DIR)
  --notes DIR            the notes tool's folder (notes.md), for a language model that calls tools (default: no notes tool)
  --memory DIR           the folder of memory.json, what the user asked to be remembered (default: the --settings
                         file's folder, as the app keeps it beside its settings; without --settings, none is kept)
  --clipboard TEXT       what the read_clipboard tool reads (talk has no clipboard; default: no clipboard tool)
  --open-log FILE        the open tool (asks first) appends what it would open to FILE instead of opening it (default: no open tool)
  --quiet                print nothing but errors
  -h, --help             this help

No models yet? \`npm run models -- fetch\` downloads the set this machine needs.`;

/** Long enough for the tests' timers (five and ten seconds) to ring after their clips end. */
const DEFAULT_TAIL_MS = 30_000;

/** `--now HH:MM`: today at that local time, in epoch ms. */
function parseNow(text: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  const hour = m ? Number(m[1]) : NaN;
  const minute = m ? Number(m[2]) : NaN;
  if (!(hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59)) throw new UserError(`--now: "${text}" is not a time of day HH:MM (00:00-23:59; example: --now 07:30)`, 'usage');
  const d = new Date();
  d.setHours(hour, minute, 0, 0);
  return d.getTime();
}

/** `--activate 0.2,4.9`: activation times in seconds, returned in ms, in order. */
function parseActivations(spec: string): number[] {
  return spec
    .split(',')
    .map((part) => {
      const s = /^\s*\d+(?:\.\d+)?\s*$/.test(part) ? Number(part) : NaN;
      if (!Number.isFinite(s)) throw new UserError(`--activate: "${part}" is not a time in seconds (example: --activate 0.2,4.9)`, 'usage');
      return s * 1000;
    })
    .sort((a, b) => a - b);
}

function parseTail(text: string): number {
  const s = Number(text);
  if (!Number.isFinite(s) || s < 0 || s > 3600) throw new UserError(`--tail must be a number of seconds from 0 to 3600, got "${text}"`, 'usage');
  return s * 1000;
}

/** Every timer and alarm of the run, in ms on the input's timeline (null where it did not happen). */
export function timerReport(book: TimerBook, epochBase: number) {
  const at = (ms: number | null) => (ms === null ? null : Math.round(ms - epochBase));
  return book.all().map((t) => ({ name: t.name, kind: t.kind, durationMs: t.durationMs, setAtMs: at(t.setAtMs), dueAtMs: at(t.dueAtMs), firedAtMs: at(t.firedAtMs), cancelledAtMs: at(t.cancelledAtMs) }));
}

/** `--log DIR`: the app's conversation history, in DIR; the folder is made (or refused) before any model loads. */
async function talkHistory(dir: string, warn: (message: string) => void): Promise<HistoryRecorder> {
  await prepareLogFolder(dir);
  // A failed write costs that turn's line, not the run.
  return new HistoryRecorder(dir, { app: await packageVersion(), catalog: ALL_MODELS, onError: (message) => warn(`warning: ${message}`) });
}

/** Where the language model runs, as the models line says it. */
function llmWhere(llm: ModelReport): string {
  const local = (m: ModelReport) => `${String(m['backend'])}, ${String(m['gpuLayers'])}/${String(m['totalLayers'])} layers on GPU`;
  if (llm['provider'] !== 'openai-compatible') return local(llm);
  const fallback = llm['fallback'] as ModelReport | null | undefined;
  return `on the server at ${withoutUserInfo(llm.dir)}${fallback ? `; local fallback ${fallback.id}, ${local(fallback)}` : ', no local fallback'}`;
}

/** A server address without a user name or password in it, which a console line should not show. */
function withoutUserInfo(address: string): string {
  try {
    const url = new URL(address);
    if (!url.username && !url.password) return address;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return address;
  }
}

/** Samples of OUT.wav rendered at a time: 4 MB, whatever the length of the run. */
const RENDER_PIECE = 1 << 20;

/** Where `talk` prints: its log lines, and its warnings (stderr). */
export interface TalkIo {
  out: ConsoleOut;
  err: (line: string) => void;
}

/**
 * The `talk` command on `argv` (without node and the script); its exit status. Exported so the
 * tests run it in their own process (on their own output), without starting one per run.
 */
export async function talkMain(argv: string[], io: TalkIo = { out: process.stdout, err: (line) => console.error(line) }): Promise<number> {
  const { values } = parseCli(
    argv,
    {
      input: { type: 'string' },
      output: { type: 'string' },
      report: { type: 'string' },
      models: { type: 'string' },
      settings: { type: 'string' },
      fast: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      ptt: { type: 'string' },
      activate: { type: 'string' },
      echo: { type: 'string' },
      room: { type: 'string' },
      cleaned: { type: 'string' },
      now: { type: 'string' },
      tail: { type: 'string' },
      log: { type: 'string' },
      notes: { type: 'string' },
      memory: { type: 'string' },
      clipboard: { type: 'string' },
      'open-log': { type: 'string' },
    },
    USAGE,
    HELP,
  );
  if (!values.input) throw new UserError(`--input is required. Usage: ${USAGE}`, 'usage');
  const say = new TalkConsole(io.out, values.quiet, io.err);

  // Bad input is reported before any model loads.
  const ptt = values.ptt === undefined ? null : parsePttSchedule(values.ptt);
  const activations = values.activate === undefined ? null : parseActivations(values.activate);
  if (ptt && activations) throw new UserError('--ptt and --activate cannot be combined: push-to-talk and one-shot are different modes', 'usage');
  const echo = values.echo === undefined ? null : parseEchoSpec(values.echo);
  if (values.echo !== undefined && !echo) {
    throw new UserError(`--echo: "${values.echo}" is not GAIN:DELAY_MS (gain 0-4, delay 0-2000 ms; example: --echo 0.5:30)`, 'usage');
  }
  if (values.room === '') throw new UserError(`--room needs an impulse response WAV file. Usage: ${USAGE}`, 'usage');
  const room = values.room === undefined ? null : await readImpulseResponse(values.room, '--room');
  // Where the results go is checked now, not found wrong after the whole run.
  checkDistinct([['--input', values.input, 'the input'], ['--output', values.output, 'the output (--output)'], ['--cleaned', values.cleaned, '--cleaned'], ['--report', values.report, '--report']]);
  if (values.output !== undefined) await checkOutputFile('--output', values.output, 'out.wav');
  if (values.report !== undefined) await checkOutputFile('--report', values.report, 'report.json');
  if (values.cleaned !== undefined) {
    if (!/\.wav$/i.test(values.cleaned)) throw new UserError(`--cleaned: "${values.cleaned}" is not a .wav file name (example: --cleaned clean.wav)`, 'usage');
    await checkOutputFile('--cleaned', values.cleaned, 'clean.wav');
  }
  const epochBase = values.now === undefined ? Date.now() : parseNow(values.now);
  const tailMs = values.tail === undefined ? DEFAULT_TAIL_MS : parseTail(values.tail);
  if (values.log === '') throw new UserError(`--log needs a folder. Usage: ${USAGE}`, 'usage');
  if (values.notes === '') throw new UserError(`--notes needs a folder. Usage: ${USAGE}`, 'usage');
  if (values.notes !== undefined) await prepareLogFolder(values.notes, '--notes');
  if (values.memory === '') throw new UserError(`--memory needs a folder. Usage: ${USAGE}`, 'usage');
  const memory = await talkMemory(values, (line) => say.warn(line));
  const openLog = values['open-log'];
  if (openLog !== undefined) await checkOutputFile('--open-log', openLog, 'opened.txt');
  const history = values.log === undefined ? null : await talkHistory(values.log, (line) => say.warn(line));
  const loaded: Settings = values.settings ? await loadSettingsFile(values.settings) : DEFAULT_SETTINGS;
  // Simulating the key implies push-to-talk mode; simulating activations, one-shot mode.
  const settings: Settings = ptt ? { ...loaded, mode: 'push-to-talk' } : activations ? { ...loaded, mode: 'one-shot' } : loaded;
  // Read as it plays, a second at a time: a recording of hours costs no more memory than one of seconds.
  const audio = WavReader.open(values.input);
  const frames = new Mono16kFrames(audio, VAD_WINDOW);
  const late = activations?.find((a) => a >= audio.durationSec * 1000);
  if (late !== undefined) throw new UserError(`--activate: ${late / 1000} s is not within the input (${audio.durationSec.toFixed(2)} s long)`, 'usage');
  if (values.cleaned !== undefined) WavWriter.check(values.cleaned, audio.durationSec * VAD_SAMPLE_RATE);

  // Loaded only now: the engines' native libraries and the MCP SDK take a second or more to load,
  // which --help, a usage error or a bad path must not wait for.
  const [{ AppTools }, { loadEnginesFor }] = await Promise.all([import('../tools/app-tools'), import('./engines-for')]);
  const clipboardText = values.clipboard;
  // The memory tools act on the pipeline's memory, made once the models are loaded.
  let running: VoicePipeline | null = null;
  const appTools = new AppTools(
    {
      dataDir: values.notes ?? null,
      clipboard: clipboardText === undefined ? null : { readText: () => clipboardText },
      opener: openLog === undefined ? null : loggingOpener(openLog),
      memory: () => running?.memoryTools ?? null,
    },
    () => settings,
    // A settings file for talk holds the MCP servers' environment values themselves ("" = none).
    { env: async (s) => ('env' in s ? Object.fromEntries(Object.entries(s.env).filter(([, v]) => v !== '')) : {}), notice: (_level, message) => say.warn(message), changed: () => undefined },
  );
  appTools.apply();
  // The servers start while the models load; the tools offered now (the built-ins) are described at load.
  const engines = await loadEnginesFor(settings, values.models, appTools.toolbox().specs).catch(async (e: unknown) => {
    // A server already started must not keep the process alive after the error.
    await appTools.close();
    throw e;
  });
  // Only now: before the input plays a signal ends the process anyway (see RunStop), and a run that
  // failed its checks leaves no handler behind.
  const stop = new RunStop((signal) => {
    say.stoppedBy = signal;
    say.line(`■ ${signal}: stopping; what was heard and said until now is kept`);
  });
  const log = (line: string) => say.line(line);
  log(
    `models: vad ${engines.models.vad.id}, stt ${engines.models.stt.id}, llm ${engines.models.llm.id} (${llmWhere(engines.models.llm)}), tts ${engines.models.tts.id}` +
      (engines.models.turn ? `, turn ${engines.models.turn.id}` : ''),
  );
  if (values.output) WavWriter.check(values.output, (audio.durationSec + tailMs / 1000) * engines.tts.sampleRate);
  // The end-of-turn model is optional: a broken one is worth a warning, not a failed run.
  if (engines.turnError) say.warn(`warning: ${engines.turnError.message} Running without it: silence alone ends each turn.`);

  const clock = values.fast ? new FastForwardClock() : new RealtimeClock();
  const output = new TimelineOutput();
  const timers = new TimerBook();
  // As long as the input at 16 kHz (cut or padded at the end), written window by window as the run
  // goes; encoded at once, so the canceller may reuse its buffer.
  const cleaned = values.cleaned === undefined ? null : new WavWriter(values.cleaned, VAD_SAMPLE_RATE);
  const onCleaned = cleaned ? (w: Float32Array) => cleaned.write(w) : undefined;
  // The servers' first start ends (ready or not) before the input plays: a turn in --fast comes at once.
  await appTools.mcp.settled();
  for (const s of appTools.mcp.status()) if (s.state === 'ready') log(`mcp: ${s.name} ready, ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`);
  const tools = appTools.toolbox(() => clock.now());
  const pipeline = new VoicePipeline({ ...engines, tools }, output, clock, () => settings, { timers, epochBase, memory: memory.options, ...(onCleaned ? { onCleaned } : {}) });
  running = pipeline;
  // The remembered facts in the system prompt are evaluated before the input plays, as the models were loaded.
  await pipeline.ready();
  if (memory.where) log(`memory: ${pipeline.memory.facts().length} fact${pipeline.memory.facts().length === 1 ? '' : 's'} (${memory.where})`);
  pipeline.events.on((e) => {
    if (e.type === 'turn') void history?.record(e.report, settings, engines.models);
    say.event(e);
  });

  /** Input time when a signal stopped the run (null: it ran to its end). */
  let stoppedAtMs: number | null = null;
  try {
    let held = false;
    const pending = [...(activations ?? [])];
    // --room alone is --echo 1:0 through the room.
    const speakers: EchoPath | null = room ? new RoomSimulator(output, room, echo?.gain ?? 1, echo?.delayMs ?? 0) : echo ? new EchoSimulator(output, echo.gain, echo.delayMs) : null;
    if (room) log(`room: ${values.room} (${irMs(room)} ms), gain ${echo?.gain ?? 1}, delay ${echo?.delayMs ?? 0} ms`);
    stop.start();
    // As runInput does, but from the file as it is read rather than a whole recording in memory.
    const fed = feedFrames(pipeline, () => frames.next(), clock, output, {
      fast: values.fast,
      // As talk always has: a turn still open when the silence tail runs out (maxTailMs) stays unreported.
      wakeWithinMs: tailMs,
      recordInto: (frame, startMs) => speakers?.mixInto(frame, startMs),
      beforeFrame: (_frame, startMs) => {
        stop.check();
        // Each activation fires once the input has reached its time, between two frames.
        while (pending.length > 0 && pending[0]! <= startMs) {
          pending.shift();
          pipeline.activate();
        }
        if (!ptt) return;
        const down = ptt.some(([a, b]) => startMs >= a && startMs < b);
        if (down !== held) pipeline.pushToTalk((held = down));
      },
    });
    await fed.catch((e: unknown) => {
      if (!(e instanceof StopRequested)) throw e;
      stoppedAtMs = clock.now();
      // As the stop button does: the answer being spoken ends here and keeps what was heard; unheard ones go.
      pipeline.stopSpeaking();
    });
    await pipeline.drain();
    // drain only waits for the replies to be produced: this reports the turns that are now complete.
    pipeline.settle();
  } catch (e) {
    cleaned?.abort();
    say.endInterim();
    throw e;
  } finally {
    audio.close();
    await appTools.close();
    await engines.dispose();
    await history?.flush();
    await pipeline.memory.settled();
  }

  if (values.output) {
    const rate = engines.tts.sampleRate;
    // Stopped: up to that moment. Otherwise the input's length, or longer when an answer or a timer's notice played on after it.
    const length =
      stoppedAtMs !== null
        ? Math.ceil((stoppedAtMs / 1000) * rate)
        : output.renderLength(rate, Math.max(audio.durationSec * 1000, Number.isFinite(output.endMs) ? output.endMs : 0));
    await writeOutput('--output', values.output, () => {
      // Rendered and written a piece at a time: mostly silence, it need not all be in memory at once.
      const out = new WavWriter(values.output!, rate, length);
      try {
        for (let at = 0; at < length; at += RENDER_PIECE) out.write(output.renderRange(rate, at, Math.min(RENDER_PIECE, length - at)));
        out.close();
      } catch (e) {
        out.abort();
        throw e;
      }
    });
  }
  if (cleaned) await writeOutput('--cleaned', cleaned.file, () => cleaned.close(frames.samples));
  if (values.report) {
    const report = {
      turns: pipeline.reports,
      timers: timerReport(timers, epochBase),
      models: engines.models,
      // The API key (a settings file may hold one for talk) never goes into a report.
      settings: withoutSecrets(settings),
      input: { file: values.input, durationMs: audio.durationSec * 1000 },
      // Ctrl+C or SIGTERM: which, and the input time the run stopped at (null: it ran to the end).
      stoppedBy: stop.signal ? { signal: stop.signal, atMs: stoppedAtMs === null ? null : Math.round(stoppedAtMs) } : null,
    };
    const file = values.report;
    await writeOutput('--report', file, () => writeFile(file, JSON.stringify(report, null, 2) + '\n'));
  }
  if (pipeline.reports.length === 0) log(stoppedAtMs === null ? 'no turns (no speech was detected)' : 'no turns');
  say.endInterim();
  return stop.exitCode;
}

if (isEntryPoint(import.meta.url)) runCli(() => talkMain(process.argv.slice(2)));
