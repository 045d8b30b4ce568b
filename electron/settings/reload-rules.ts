/**
 * Which settings take effect only when the models are loaded again. Every setting has its rule,
 * mapped from the schema's Settings type, so a new setting does not compile until it is given one.
 */
import type { PerSetting, Settings } from './schema';

/**
 * live: read by the pipeline as it runs, or applied by the controller (the system prompt, the desktop);
 * reload: the models are loaded again; server: loaded again when the new settings use the server.
 */
type Rule = 'live' | 'reload' | 'server';

const RULES: PerSetting<Settings, Rule> = {
  mode: 'live',
  wakePhrase: 'live',
  endpointing: {
    vadThreshold: 'live',
    minSpeechMs: 'live',
    silenceMs: 'live',
    prefixPaddingMs: 'live',
    maxTurnMs: 'live',
    turnModel: 'live',
    turnCheckMs: 'live',
    turnThreshold: 'live',
    maxPauseMs: 'live',
  },
  bargeIn: { enabled: 'live', minSpeechMs: 'live', falseInterruptionMs: 'live', backchannels: 'live', onsetHoldMs: 'live', acknowledgements: 'live' },
  turnBudgetMs: 'live',
  prepareAnswers: 'live',
  stt: { partialIntervalMs: 'live' },
  llm: {
    systemPrompt: 'live',
    temperature: 'live',
    maxTokens: 'live',
    gpuLayers: 'reload',
    contextSize: 'reload',
    threads: 'reload',
    gpu: 'reload',
    provider: 'reload',
    // The key is kept out of the app's settings (app/server-access.ts); a new one reloads on its own.
    server: { baseUrl: 'server', model: 'server', stallMs: 'server', apiKey: 'live' },
  },
  tts: { speakerId: 'live', speed: 'live', firstChunkWords: 'live' },
  models: { dir: 'reload', vad: 'reload', stt: 'reload', llm: 'reload', tts: 'reload', turn: 'reload' },
  history: { logText: 'live' },
  // The system prompt is built anew with the facts (pipeline/respond/responding.ts).
  memory: { enabled: 'live', maxTokens: 'live' },
  desktop: { shortcut: 'live', closeToTray: 'live', startAtLogin: 'live', listenChime: 'live' },
  // Servers are started, stopped and restarted as their entries change (tools/mcp/mcp-servers.ts).
  tools: { timeoutMs: 'live', builtIn: { notes: 'live', clipboard: 'live', open: 'live' }, mcpServers: 'live' },
};

type Rules = { readonly [key: string]: Rules | Rule };
type Values = Readonly<Record<string, unknown>>;

/** Whether going from `before` to `after` changes a setting that only takes effect on a reload. */
export function needsReload(before: Settings, after: Settings): boolean {
  return changed(RULES, before as unknown as Values, after as unknown as Values, after.llm.provider === 'openai-compatible');
}

function changed(rules: Rules, a: Values, b: Values, server: boolean): boolean {
  return Object.entries(rules).some(([key, rule]) =>
    typeof rule === 'string' ? (rule === 'reload' || (rule === 'server' && server)) && a[key] !== b[key] : changed(rule, a[key] as Values, b[key] as Values, server),
  );
}
