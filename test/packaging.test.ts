/**
 * electron-builder.yml, checked without building an installer (no Electron binary is needed): its file
 * patterns are applied to the real node_modules for linux-x64 the way electron-builder 26 applies them
 * (read from app-builder-lib 26.17: util/config/config.js, fileMatcher.js, util/filter.js), and the
 * result is cross-checked against electron-builder's own code. Also: the Windows installer's Visual C++
 * runtime step (build/installer.nsh, run here by a small model of the NSIS it uses; the fetch script and
 * the beforePack hook that stops a build without the redistributable) and the Linux desktop identity.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { Minimatch } from 'minimatch';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel, searchOrder } from '../native-models/resolver';
import {
  VC_REDIST_ARCHS,
  VC_REDIST_DIR,
  beforePack,
  download,
  fetchVcRedist,
  signatureProblem,
  vcRedistFile,
  vcRedistUrl,
} from '../scripts/fetch-vc-redist.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig(path.join(ROOT, 'electron-builder.yml'));

// ---------------------------------------------------------------- reading the configuration

type Dict = Record<string, unknown>;

function isDict(v: unknown): v is Dict {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function loadConfig(file: string): Dict {
  const parsed = yaml.load(readFileSync(file, 'utf8'));
  assert.ok(isDict(parsed), `${file} is not a YAML mapping`);
  return parsed;
}

function dict(parent: Dict, key: string): Dict {
  const v = parent[key] ?? {};
  assert.ok(isDict(v), `${key} is not a mapping`);
  return v;
}

/** A pattern list as electron-builder accepts it: absent, one string, or strings. */
function patterns(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  assert.ok(Array.isArray(v), `${what} is not a list`);
  // The object form ({from, to, filter}) has other rules; this model does not cover it.
  return v.map((p) => {
    assert.equal(typeof p, 'string', `${what}: only string patterns are modelled here`);
    return p as string;
  });
}

/** extraResources entries; a plain string means the same path on both sides. */
function fileSets(v: unknown): { from?: unknown; to?: unknown }[] {
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.map((x) => (isDict(x) ? x : { from: x, to: x }));
}

function targets(platform: Dict): string[] {
  const t = platform.target;
  const list = Array.isArray(t) ? t : [t];
  return list.map((x) => (isDict(x) ? String(x.target) : String(x)));
}

// ---------------------------------------------------------------- electron-builder 26's file matching

/** The target: ${os} as electron-builder spells it (mac, linux, win), ${platform} as Node does. */
interface Target {
  os: 'linux' | 'mac' | 'win';
  platform: NodeJS.Platform;
  arch: string;
}
const LINUX_X64: Target = { os: 'linux', platform: 'linux', arch: 'x64' };

function expandMacros(pattern: string, t: Target): string {
  return pattern.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'os') return t.os;
    if (name === 'arch') return t.arch;
    if (name === 'platform') return t.platform; // the host's in electron-builder; we model a native build
    if (name === '/*') return '{,/**/*}';
    throw new Error(`macro \${${name}} is not modelled by this test`);
  });
}

/** fileMatcher.js computeParsedPatterns: a plain folder name also matches everything under it. */
function parsePatterns(list: string[], t: Target): Minimatch[] {
  const out: Minimatch[] = [];
  for (const raw of list) {
    const p = path.posix.normalize(expandMacros(raw.replace(/^\.\//, '').replace(/\\/g, '/'), t));
    const m = new Minimatch(p, { dot: true });
    out.push(m);
    const magic = m.set.length > 1 || (m.set[0] ?? []).some((part) => typeof part !== 'string');
    if (!p.includes('.') && !magic) out.push(new Minimatch(`${p}/**/*`, { dot: true }));
  }
  return out;
}

/**
 * util/filter.js minimatchAll: patterns apply in order and the last one that applies wins. Once a file is
 * in, only "!" patterns are tried; once out, only positive ones. (A negated Minimatch returns false for a
 * path its pattern matches.)
 */
function lastMatchWins(rel: string, list: Minimatch[]): boolean {
  let match = false;
  for (const m of list) {
    if (match !== m.negate) continue;
    match = m.match(rel);
  }
  return match;
}

interface Plan {
  packaged: Set<string>;
  unpacked: Set<string>;
}

/**
 * What ends up in the app for these node_modules paths. electron-builder merges the top-level `files`
 * strings into one file set (config.js normalizeFiles); node_modules are filtered by "**\/*" followed by
 * that whole set, so a later positive pattern re-adds what an earlier "!" dropped
 * (fileMatcher.js getNodeModuleFileMatcher). Unpacked = packaged and matched by asarUnpack. Smart
 * unpack (whole modules holding .node/.so files) is left out on purpose: the configuration must say it.
 */
function plan(cfg: Dict, t: Target, relPaths: string[]): Plan {
  const platform = dict(cfg, t.os);
  const keep = parsePatterns(['**/*', ...patterns(cfg.files, 'files')], t);
  const unpack = parsePatterns(
    [...patterns(cfg.asarUnpack, 'asarUnpack'), ...patterns(platform.asarUnpack, `${t.os}.asarUnpack`)],
    t,
  );
  const packaged = new Set(relPaths.filter((p) => lastMatchWins(p, keep)));
  const unpacked = new Set([...packaged].filter((p) => lastMatchWins(p, unpack)));
  return { packaged, unpacked };
}

// ---------------------------------------------------------------- the files it is applied to

/** Files under node_modules/<pkg>, as "node_modules/<pkg>/..." paths. */
function walk(pkg: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const d of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = `${rel}/${d.name}`;
      if (d.isDirectory()) visit(child);
      else out.push(child);
    }
  };
  visit(`node_modules/${pkg}`);
  return out;
}

function nativePackages(): string[] {
  const top = readdirSync(path.join(ROOT, 'node_modules'));
  const scoped = readdirSync(path.join(ROOT, 'node_modules', '@node-llama-cpp')).map((n) => `@node-llama-cpp/${n}`);
  return ['node-llama-cpp', 'onnxruntime-node', ...top.filter((n) => n.startsWith('sherpa-onnx-')), ...scoped];
}

// npm installs only this host's platform packages; these stand for the ones a differently installed
// tree (or another host) would hold, so the rules for them are exercised too.
const OTHER_HOSTS = [
  'node_modules/sherpa-onnx-linux-arm64/sherpa-onnx.node',
  'node_modules/sherpa-onnx-win-x64/sherpa-onnx.node',
  'node_modules/sherpa-onnx-darwin-arm64/sherpa-onnx.node',
  'node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node',
  'node_modules/@node-llama-cpp/win-x64-vulkan/bins/win-x64-vulkan/llama-addon.node',
  'node_modules/node-llama-cpp/llama/localBuilds/linux-arm64/Release/llama-addon.node',
  'node_modules/node-llama-cpp/llama/localBuilds/linux-x64-cuda/Release/llama-addon.node',
];
// A source build for the target itself must ship.
const LOCAL_BUILD = 'node_modules/node-llama-cpp/llama/localBuilds/linux-x64/Release/llama-addon.node';

const realFiles = nativePackages().flatMap(walk);
const allFiles = [...realFiles, ...OTHER_HOSTS, LOCAL_BUILD];
const linux = plan(config, LINUX_X64, allFiles);

// The app's own files, relative to the project (they need not exist: only patterns are tested).
const APP_IN = ['package.json', 'dist-electron/main.js', 'dist-electron/controller-ABCD1234.js', 'dist-electron/stt-worker.cjs', 'dist-electron/preload.cjs', 'dist/renderer/index.html'];
const APP_OUT = ['electron/main.ts', 'test/packaging.test.ts', 'native-models/catalog.ts', 'README.md', 'tsconfig.json', 'docs/app.png'];

const NATIVE = /\.(node|dll|dylib)$|\.so(\.|$)/;

function under(prefix: string, files: Iterable<string>): string[] {
  return [...files].filter((f) => f.startsWith(prefix));
}

function assertShipped(file: string): void {
  assert.ok(linux.packaged.has(file), `${file} is not packaged`);
  assert.ok(linux.unpacked.has(file), `${file} is packaged but left inside app.asar`);
}

// ---------------------------------------------------------------- tests

describe('packaging for linux-x64', () => {
  test('node-llama-cpp: the linux-x64 binaries and their package files ship, unpacked', () => {
    const prefix = 'node_modules/@node-llama-cpp/linux-x64/';
    const addons = under(`${prefix}bins/`, realFiles).filter((f) => f.endsWith('.node'));
    assert.ok(addons.length > 0, 'no .node file in node_modules/@node-llama-cpp/linux-x64/bins (npm install?)');
    for (const f of under(`${prefix}bins/`, realFiles)) assertShipped(f);
    // The package computes bins/ relative to itself, and node-llama-cpp checks its version.
    assert.ok(linux.packaged.has(`${prefix}dist/index.js`));
    assert.ok(linux.packaged.has(`${prefix}package.json`));
    assert.ok(linux.packaged.has('node_modules/node-llama-cpp/package.json'));
    assertShipped(LOCAL_BUILD);
  });

  test('sherpa-onnx: the addon and its shared libraries ship, unpacked; the JS wrapper ships', () => {
    assertShipped('node_modules/sherpa-onnx-linux-x64/sherpa-onnx.node');
    const libs = readdirSync(path.join(ROOT, 'node_modules/sherpa-onnx-linux-x64')).filter((n) => /^lib.*\.so/.test(n));
    assert.ok(libs.length > 0, 'sherpa-onnx-linux-x64 has no lib*.so*');
    for (const lib of libs) assertShipped(`node_modules/sherpa-onnx-linux-x64/${lib}`);
    assert.ok(linux.packaged.has('node_modules/sherpa-onnx-node/package.json'), 'sherpa-onnx-node was excluded');
  });

  test('onnxruntime-node: the linux/x64 binding and libonnxruntime ship, unpacked', () => {
    const dirs = realFiles
      .map((f) => /^(node_modules\/onnxruntime-node\/bin\/napi-v[^/]+\/linux\/x64)\//.exec(f)?.[1])
      .filter((d): d is string => d !== undefined);
    const dir = dirs[0];
    assert.ok(dir, 'no onnxruntime-node/bin/napi-v*/linux/x64');
    assertShipped(`${dir}/onnxruntime_binding.node`);
    const libs = under(`${dir}/libonnxruntime.so`, realFiles);
    assert.ok(libs.length > 0, `no libonnxruntime.so* in ${dir}`);
    for (const lib of libs) assertShipped(lib);
  });

  test('every packaged native library is unpacked', () => {
    const inAsar = [...linux.packaged].filter((f) => NATIVE.test(f) && !linux.unpacked.has(f));
    assert.deepEqual(inAsar, []);
  });

  test('nothing for other platforms or architectures is packaged', () => {
    const foreign = [...linux.packaged].filter(
      (f) =>
        /^node_modules\/onnxruntime-node\/bin\/napi-v[^/]+\/(?!linux\/x64\/)/.test(f) ||
        // Other @node-llama-cpp packages keep their few-KB package.json and dist stub, never their binaries.
        /^node_modules\/@node-llama-cpp\/(?!linux-x64)[^/]+\/bins\//.test(f) ||
        (NATIVE.test(f) && /^node_modules\/@node-llama-cpp\/(?!linux-x64)/.test(f)) ||
        /^node_modules\/sherpa-onnx-(?!node\/|linux-x64\/)/.test(f) ||
        /^node_modules\/node-llama-cpp\/(bins|llama\/localBuilds)\/(?!linux-x64)[^/]+\//.test(f),
    );
    assert.deepEqual(foreign, []);
    // Not vacuous: onnxruntime-node always carries every platform's binaries.
    assert.ok(under('node_modules/onnxruntime-node/bin/', realFiles).some((f) => f.includes('/win32/')));
  });

  test('the MCP SDK, plain JS left out of the bundle (scripts/build-electron.mjs), ships in app.asar with its dependencies', () => {
    const app = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.ok(app.dependencies['@modelcontextprotocol/sdk'], 'a production dependency: electron-builder copies only those');
    const sdk = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const files = ['@modelcontextprotocol/sdk', ...Object.keys(sdk.dependencies)]
      .map((p) => [`node_modules/${p}/package.json`, `node_modules/@modelcontextprotocol/sdk/node_modules/${p}/package.json`].find((f) => existsSync(path.join(ROOT, f))))
      .filter((f): f is string => f !== undefined);
    assert.equal(files.length, 1 + Object.keys(sdk.dependencies).length, 'every dependency of the SDK is installed');
    const client = ['client/index.js', 'client/stdio.js', 'client/streamableHttp.js'].map((f) => `node_modules/@modelcontextprotocol/sdk/dist/esm/${f}`);
    const shipped = plan(config, LINUX_X64, [...files, ...client]);
    for (const f of [...files, ...client]) assert.ok(shipped.packaged.has(f), `${f} is not packaged`);
  });

  test('CUDA builds are left out (decision in electron-builder.yml); Vulkan ships', () => {
    // (node-llama-cpp/bins keeps a few "_*.moved.txt" notes of a few bytes; only binaries and packages count.)
    const cuda = [...linux.packaged].filter(
      (f) => /cuda/i.test(f) && (NATIVE.test(f) || f.startsWith('node_modules/@node-llama-cpp/')),
    );
    assert.deepEqual(cuda, []);
    const vulkan = 'node_modules/@node-llama-cpp/linux-x64-vulkan/';
    if (existsSync(path.join(ROOT, vulkan))) {
      const addons = under(vulkan, linux.packaged).filter((f) => f.endsWith('.node'));
      assert.ok(addons.length > 0, 'the Vulkan build is not packaged');
      for (const f of addons) assertShipped(f);
    }
  });
});

describe('packaging configuration', () => {
  const tmp: string[] = [];
  after(async () => {
    for (const d of tmp) await rm(d, { recursive: true, force: true });
  });

  test('bundled models go to resources/models, where the resolver finds them', async () => {
    const extra = fileSets(config.extraResources);
    const models = extra.find((e) => e.from === 'native-models/bundled');
    assert.ok(models, 'extraResources has no native-models/bundled');
    assert.equal(models.to, 'models');
    // electron/main.ts looks in the same folder when packaged.
    const main = await readFile(path.join(ROOT, 'electron/main.ts'), 'utf8');
    assert.match(main, /process\.resourcesPath,\s*'models'/);

    const entry = DEFAULT_CATALOG.find((e) => e.id === 'silero-vad');
    assert.ok(entry, 'silero-vad is not in the catalog');
    const resources = path.join(await mkdtemp(path.join(os.tmpdir(), 'lva-packaging-')), 'resources');
    tmp.push(path.dirname(resources));
    const bundled = path.join(resources, models.to);
    for (const file of entry.files) {
      const p = path.join(modelDir(bundled, entry), file.name);
      await mkdir(path.dirname(p), { recursive: true });
      await writeFile(p, '');
      await truncate(p, file.bytes ?? 1); // the resolver checks sizes, not content
    }
    const resolved = await resolveModel(entry, searchOrder({ bundled }));
    assert.equal(resolved.dir, path.join(bundled, 'silero-vad'));
    assert.equal(resolved.paths['silero_vad.onnx'], path.join(bundled, 'silero-vad', 'silero_vad.onnx'));
  });

  test('the app files: dist, dist-electron, package.json, and not the sources', () => {
    const files = patterns(config.files, 'files');
    for (const p of ['dist/**', 'dist-electron/**', 'package.json']) assert.ok(files.includes(p), `files lacks ${p}`);
    const app = parsePatterns(files, LINUX_X64);
    for (const f of APP_IN) assert.ok(lastMatchWins(f, app), `${f} is not packaged`);
    for (const f of APP_OUT) assert.ok(!lastMatchWins(f, app), `${f} is packaged`);
    // A platform's own `files` becomes the main file set; holding only "!" rules, it means "everything
    // else", and the whole checkout (sources, tests, docs) lands in app.asar. Keep all rules top level.
    for (const os of ['linux', 'win', 'mac']) assert.equal(dict(config, os).files, undefined, `${os}.files is set`);
  });

  test('targets: AppImage and deb, NSIS, dmg', () => {
    assert.deepEqual(new Set(targets(dict(config, 'linux'))), new Set(['AppImage', 'deb']));
    assert.ok(targets(dict(config, 'win')).includes('nsis'));
    assert.ok(targets(dict(config, 'mac')).includes('dmg'));
    // The deb needs a maintainer (or an author email in package.json).
    assert.match(String(dict(config, 'linux').maintainer), /\S+ <[^>]+@[^>]+>/);
  });

  test('macOS: microphone usage text, hardened runtime, entitlements with audio input', async () => {
    const mac = dict(config, 'mac');
    const usage = dict(mac, 'extendInfo').NSMicrophoneUsageDescription;
    assert.ok(typeof usage === 'string' && usage.length > 10, 'no NSMicrophoneUsageDescription');
    assert.equal(mac.hardenedRuntime, true);
    assert.equal(dict(config, 'directories').buildResources, 'build');
    for (const key of ['entitlements', 'entitlementsInherit']) {
      const file = mac[key];
      assert.equal(typeof file, 'string', `mac.${key} is not set`);
      const plist = await readFile(path.join(ROOT, file as string), 'utf8');
      for (const ent of ['device.audio-input', 'cs.allow-jit', 'cs.disable-library-validation']) {
        assert.match(plist, new RegExp(`<key>com\\.apple\\.security\\.${ent.replaceAll('.', '\\.')}</key>\\s*<true/>`));
      }
    }
  });

  test('the icon is a 512x512 PNG', async () => {
    for (const platform of ['linux', 'win', 'mac']) assert.equal(dict(config, platform).icon, 'build/icon.png');
    const png = await readFile(path.join(ROOT, 'build/icon.png'));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.toString('ascii', 12, 16), 'IHDR');
    assert.equal(png.readUInt32BE(16), 512);
    assert.equal(png.readUInt32BE(20), 512);
  });

  // Internal modules of app-builder-lib 26: if an upgrade moves them, re-check the model above by hand.
  const ebRequire = createRequire(import.meta.url);

  test("electron-builder's schema accepts the configuration", async () => {
    const { validateConfiguration } = ebRequire('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration: (c: Dict, logger: { isEnabled: boolean }) => Promise<void>;
    };
    await validateConfiguration(structuredClone(config), { isEnabled: false });
  });

  test("electron-builder's own matcher agrees with the model (app files, node_modules, asarUnpack)", () => {
    const eb = ebRequire('app-builder-lib/out/fileMatcher.js') as EbFileMatcherModule;
    const { expandMacro } = ebRequire('app-builder-lib/out/util/macroExpander.js') as {
      expandMacro: (p: string, arch: string, appInfo: object, extra: Dict) => string;
    };
    const { doMergeConfigs } = ebRequire('app-builder-lib/out/util/config/config.js') as {
      doMergeConfigs: (configs: Dict[]) => Dict;
    };
    // The configuration as electron-builder holds it after loading (file sets normalised).
    const merged = doMergeConfigs([structuredClone(config)]);
    const t = LINUX_X64;
    const expander = (p: string) =>
      expandMacro(p.replaceAll('${platform}', t.platform), t.arch, {}, { os: t.os, '/*': '{,/**/*}' });
    const linuxOptions = dict(merged, 'linux');
    const info = {
      projectDir: ROOT,
      buildResourcesDir: 'build',
      isPrepackedAppAsar: false,
      config: merged,
      debugLogger: { isEnabled: false },
    };

    // The app's own files: the walk copies a file when some file set takes it and every folder above it.
    const main = eb.getMainFileMatchers(ROOT, ROOT, expander, linuxOptions, { info }, path.join(ROOT, 'release'), false);
    const mainFilters = main.map((m) => m.createFilter());
    const appStat = (dir: boolean) => ({ moduleFullFilePath: undefined, isDirectory: () => dir });
    const appFile = (rel: string) =>
      mainFilters.some((f) => {
        const parts = rel.split('/');
        const dirs = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
        return dirs.every((d) => f(path.join(ROOT, d), appStat(true))) && f(path.join(ROOT, rel), appStat(false));
      });
    for (const f of APP_IN) assert.ok(appFile(f), `electron-builder leaves out ${f}`);
    for (const f of APP_OUT) assert.ok(!appFile(f), `electron-builder packages ${f}`);

    const nm = eb.getNodeModuleFileMatcher(ROOT, ROOT, expander, linuxOptions, info);
    const keep = new eb.FileMatcher(ROOT, ROOT, expander, nm.patterns).createFilter();
    const unpack = eb
      .getFileMatchers(merged, 'asarUnpack', ROOT, {
        macroExpander: expander,
        customBuildOptions: linuxOptions,
        globalOutDir: path.join(ROOT, 'release'),
        defaultSrc: ROOT,
      })?.[0]
      ?.createFilter();
    assert.ok(unpack, 'no asarUnpack matcher');
    // node_modules files are matched by their path in the app, which electron-builder puts on the stat.
    const stat = (rel: string) => ({ moduleFullFilePath: rel, isDirectory: () => false });
    const packaged = allFiles.filter((f) => keep(path.join(ROOT, f), stat(f)));
    const unpacked = packaged.filter((f) => unpack(path.join(ROOT, f), stat(f)));
    assert.deepEqual(packaged, [...linux.packaged]);
    assert.deepEqual(unpacked, [...linux.unpacked]);
  });
});

// ---------------------------------------------------------------- the Windows installer's Visual C++ runtime

/**
 * A model of the NSIS that build/installer.nsh uses, enough to run its customInstall here (makensis and
 * Windows are not available): !define, !macro/!insertmacro, LogicLib's ${If}/${ElseIf}/${Else}/${AndIf}/
 * ${OrIf} with ==, !=, =, <>, <, <=, >, >=, ${FileExists} and ${Errors}, and the instructions listed in
 * `step`. Anything else in the script fails the test, so the script cannot drift past what is checked.
 * Semantics as in the NSIS manual: == is a case-insensitive string comparison, the others compare
 * integers ("" counts as 0); ReadRegDWORD of a missing value gives "" and sets the error flag; ExecWait
 * that cannot start its program sets the error flag and leaves the variable alone; ${Errors} clears it.
 */
interface NsisWorld {
  instDir: string;
  files: Set<string>;
  /** The 64-bit registry view: key -> value name -> DWORD. The 32-bit view holds none of it. */
  registry64: Record<string, Record<string, number>>;
  /** What a program returns, or 'fails' when it cannot be started. */
  exec: (commandLine: string) => number | 'fails';
}

interface NsisRun {
  executed: string[];
  messageBoxes: { text: string; silentDefault: boolean }[];
  registryReads: { view: number; key: string; value: string }[];
  deleted: string[];
  rebootFlag: boolean;
  stopped: boolean;
  vars: string[];
}

const LOGICLIB = new Set(['If', 'ElseIf', 'Else', 'EndIf', 'AndIf', 'OrIf', 'FileExists', 'Errors']);

function nsisTokens(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|`([^`]*)`|(\S+)/g;
  for (const m of line.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  return out;
}

function loadNsis(file: string, defines: Record<string, string>) {
  const macros = new Map<string, { params: string[]; body: string[] }>();
  const defs = { ...defines };
  let current: { params: string[]; body: string[] } | undefined;
  for (const raw of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const [head, ...rest] = nsisTokens(line);
    if (head === '!macro') {
      assert.equal(current, undefined, 'nested !macro');
      current = { params: rest.slice(1), body: [] };
      macros.set(rest[0]!, current);
    } else if (head === '!macroend') {
      current = undefined;
    } else if (current) {
      current.body.push(line);
    } else if (head === '!define') {
      defs[rest[0]!] = rest[1] ?? '';
    } else if (head === '!include') {
      assert.equal(rest[0], 'LogicLib.nsh', `${file} includes ${rest[0]}, which this model does not know`);
    } else {
      assert.fail(`${file}: "${line}" outside a macro is not modelled`);
    }
  }
  /** A macro's lines with its parameters and the defines substituted, inner macros inserted. */
  const expand = (name: string, args: string[]): string[] => {
    const macro = macros.get(name);
    assert.ok(macro, `no macro ${name}`);
    const params = Object.fromEntries(macro.params.map((p, i) => [p, args[i] ?? '']));
    return macro.body.flatMap((line) => {
      const text = line.replace(/\$\{([^}]+)\}/g, (all, n: string) => {
        if (n in params) return params[n]!;
        if (n in defs) return defs[n]!;
        assert.ok(LOGICLIB.has(n), `\${${n}} is not defined`);
        return all;
      });
      const [head, inner, ...innerArgs] = nsisTokens(text);
      return head === '!insertmacro' ? expand(inner!, innerArgs) : [text];
    });
  };
  return { has: (name: string) => macros.has(name), defines: defs, expand };
}

function runNsis(lines: string[], world: NsisWorld): NsisRun {
  const run: NsisRun = { executed: [], messageBoxes: [], registryReads: [], deleted: [], rebootFlag: false, stopped: false, vars: ['a', 'b', 'c', 'd', 'e', 'f'] };
  const stack: string[] = [];
  let errors = false;
  let view = 32; // what a 32-bit installer starts with
  const str = (s: string) =>
    s.replace(/\$(\\r|\\n|\\t|INSTDIR|[0-9])/g, (_, v: string) =>
      v === '\\r' ? '\r' : v === '\\n' ? '\n' : v === '\\t' ? '\t' : v === 'INSTDIR' ? world.instDir : run.vars[Number(v)]!,
    );
  const reg = (t: string) => {
    const m = /^\$([0-9])$/.exec(t);
    assert.ok(m, `${t} is not a register`);
    return Number(m[1]);
  };
  const int = (s: string) => Number.parseInt(s, 10) || 0;
  const cond = (t: string[]): boolean => {
    if (t[0] === '${FileExists}') return world.files.has(str(t[1]!));
    if (t[0] === '${Errors}') {
      const was = errors;
      errors = false;
      return was;
    }
    const [a, op, b] = [str(t[0]!), t[1], str(t[2]!)];
    switch (op) {
      case '==': return a.toLowerCase() === b.toLowerCase();
      case '!=': return a.toLowerCase() !== b.toLowerCase();
      case '=': return int(a) === int(b);
      case '<>': return int(a) !== int(b);
      case '<': return int(a) < int(b);
      case '<=': return int(a) <= int(b);
      case '>': return int(a) > int(b);
      case '>=': return int(a) >= int(b);
      default: return assert.fail(`condition ${t.join(' ')} is not modelled`);
    }
  };
  const step = (t: string[]) => {
    const [op, ...a] = t;
    switch (op) {
      case 'Push': stack.push(str(a[0]!)); break;
      case 'Pop': run.vars[reg(a[0]!)] = stack.pop() ?? assert.fail('Pop from an empty stack'); break;
      case 'SetRegView': view = Number(a[0]); break;
      case 'ClearErrors': errors = false; break;
      case 'StrCpy': run.vars[reg(a[0]!)] = str(a[1]!); break;
      case 'DetailPrint': break;
      case 'SetRebootFlag': run.rebootFlag = a[0] === 'true'; break;
      case 'Delete': run.deleted.push(str(a[0]!)); world.files.delete(str(a[0]!)); break;
      case 'ReadRegDWORD': {
        assert.equal(a[1], 'HKLM');
        const [key, value] = [str(a[2]!), str(a[3]!)];
        run.registryReads.push({ view, key, value });
        const v = view === 64 ? world.registry64[key]?.[value] : undefined;
        if (v === undefined) errors = true;
        run.vars[reg(a[0]!)] = v === undefined ? '' : String(v);
        break;
      }
      case 'ExecWait': {
        const commandLine = str(a[0]!);
        run.executed.push(commandLine);
        const result = world.exec(commandLine);
        if (result === 'fails') errors = true;
        else if (a[1]) run.vars[reg(a[1])] = String(result);
        break;
      }
      case 'MessageBox': {
        const sd = a.indexOf('/SD');
        run.messageBoxes.push({ text: str(a[1]!), silentDefault: sd > 0 && a[sd + 1] === 'IDOK' });
        break;
      }
      case 'Abort':
      case 'Quit':
        run.stopped = true;
        break;
      default:
        assert.fail(`instruction ${op} is not modelled`);
    }
  };
  // Runs lines[i..] until an ${ElseIf}/${Else}/${EndIf} at this level; returns where it stopped.
  const block = (i: number, live: boolean): number => {
    while (i < lines.length) {
      const t = nsisTokens(lines[i]!);
      if (t[0] === '${ElseIf}' || t[0] === '${Else}' || t[0] === '${EndIf}') return i;
      if (t[0] === '${If}') {
        let taken = false;
        let branch = t;
        i++;
        for (;;) {
          // The branch's condition, with the ${AndIf}/${OrIf} lines that follow it.
          let ok: boolean = branch[0] === '${Else}' ? true : live && !taken && cond(branch.slice(1));
          while (/^\$\{(AndIf|OrIf)\}/.test(lines[i]!.trim())) {
            const more = nsisTokens(lines[i]!);
            if (live && !taken) ok = more[0] === '${AndIf}' ? ok && cond(more.slice(1)) : ok || cond(more.slice(1));
            i++;
          }
          const go: boolean = live && !taken && ok;
          i = block(i, go);
          taken ||= go;
          branch = nsisTokens(lines[i]!);
          i++;
          if (branch[0] === '${EndIf}') break;
        }
        continue;
      }
      if (live) step(t);
      i++;
    }
    return i;
  };
  assert.equal(block(0, true), lines.length, 'unbalanced ${If}');
  return run;
}

const NSH = path.join(ROOT, 'build', 'installer.nsh');
const RUNTIMES_KEY = 'SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes';
const INST = 'C:\\Program Files\\Local Voice Assistant';

describe('Windows: the Visual C++ runtime', () => {
  const win = dict(config, 'win');
  const nsh = loadNsis(NSH, { PRODUCT_NAME: 'Local Voice Assistant' });
  const minMinor = Number(nsh.defines.LVA_VC_RUNTIME_MIN_MINOR);
  /** Where electron-builder puts each arch's redistributable (from win.extraResources), relative to resources/. */
  const shipped = new Map<string, { from: string; to: string }>();
  {
    const eb = createRequire(import.meta.url)('app-builder-lib/out/fileMatcher.js') as Pick<EbFileMatcherModule, 'getFileMatchers'>;
    const { expandMacro } = createRequire(import.meta.url)('app-builder-lib/out/util/macroExpander.js') as {
      expandMacro: (p: string, arch: string, appInfo: object, extra: Dict) => string;
    };
    const resources = path.join(ROOT, 'release', 'win-unpacked', 'resources');
    for (const arch of VC_REDIST_ARCHS) {
      const matchers = eb.getFileMatchers(config, 'extraResources', resources, {
        macroExpander: (p) => expandMacro(p, arch, {}, { os: 'win' }),
        customBuildOptions: win,
        globalOutDir: path.join(ROOT, 'release'),
        defaultSrc: ROOT,
      }) as unknown as { from: string; to: string }[] | null;
      const m = matchers?.find((x) => path.basename(x.from) === vcRedistFile(arch));
      if (m) shipped.set(arch, { from: path.relative(ROOT, m.from), to: path.relative(resources, m.to) });
    }
  }
  const world = (over: Partial<NsisWorld> & { codes?: (number | 'fails')[] } = {}): NsisWorld => {
    const codes = [...(over.codes ?? [])];
    return {
      instDir: INST,
      files: new Set([`${INST}\\resources\\${shipped.get('x64')?.to.replaceAll('/', '\\')}`]),
      registry64: {},
      exec: () => codes.shift() ?? assert.fail('an unexpected program run'),
      ...over,
    };
  };
  const install = (w: NsisWorld) => runNsis(nsh.expand('customInstall', []), w);
  const x64Command = `"${INST}\\resources\\vc_redist.x64.exe" /install /quiet /norestart`;

  test('the NSIS include is configured, and the win build ships the redistributable where it looks', () => {
    assert.equal(dict(config, 'nsis').include, 'build/installer.nsh');
    assert.ok(existsSync(NSH));
    assert.ok(nsh.has('customInstall'), 'installer.nsh defines no customInstall macro');
    for (const arch of VC_REDIST_ARCHS) {
      // electron-builder copies build/win/vc_redist.<arch>.exe to resources/vc_redist.<arch>.exe ...
      assert.deepEqual(shipped.get(arch), { from: path.join(VC_REDIST_DIR, vcRedistFile(arch)), to: vcRedistFile(arch) });
      // ... which the installer runs from $INSTDIR\resources.
      const w = world({ files: new Set([`${INST}\\resources\\${vcRedistFile(arch)}`]), codes: [0] });
      assert.deepEqual(install(w).executed, [`"${INST}\\resources\\${vcRedistFile(arch)}" /install /quiet /norestart`]);
    }
    // Fetched, not committed.
    assert.doesNotThrow(
      () => execFileSync('git', ['check-ignore', '-q', `${VC_REDIST_DIR}/${vcRedistFile('x64')}`], { cwd: ROOT }),
      `${VC_REDIST_DIR} is not git-ignored`,
    );
    assert.equal(vcRedistUrl('x64'), 'https://aka.ms/vs/17/release/vc_redist.x64.exe');
  });

  test('a recent enough runtime in the 64-bit registry view: nothing runs, and the file is removed', () => {
    const key = `${RUNTIMES_KEY}\\x64`;
    const w = world({ registry64: { [key]: { Installed: 1, Major: 14, Minor: 44 } } });
    const run = install(w);
    assert.deepEqual(run.executed, []);
    assert.deepEqual(run.messageBoxes, []);
    assert.deepEqual(run.registryReads.map((r) => [r.view, r.key, r.value]), [
      [64, key, 'Installed'],
      [64, key, 'Major'],
      [64, key, 'Minor'],
    ]);
    assert.equal(w.files.size, 0, 'vc_redist.x64.exe is left in the app folder');
    assert.deepEqual(run.vars, ['a', 'b', 'c', 'd', 'e', 'f'], 'customInstall changed the registers');
  });

  test(`no runtime, or one older than 14.${minMinor}: the redistributable runs silently; 0, 3010 and 1638 are success`, () => {
    const old = { [`${RUNTIMES_KEY}\\x64`]: { Installed: 1, Major: 14, Minor: minMinor - 1 } };
    const notInstalled = { [`${RUNTIMES_KEY}\\x64`]: { Installed: 0, Major: 14, Minor: 44 } };
    for (const registry64 of [{}, old, notInstalled]) {
      for (const code of [0, 3010, 1638]) {
        const run = install(world({ registry64, codes: [code] }));
        assert.deepEqual(run.executed, [x64Command]);
        assert.deepEqual(run.messageBoxes, [], `exit code ${code} is reported as a failure`);
        assert.equal(run.rebootFlag, code === 3010, `exit code ${code}: reboot flag`);
        assert.equal(run.stopped, false);
        assert.deepEqual(run.vars, ['a', 'b', 'c', 'd', 'e', 'f']);
      }
    }
  });

  test('any other result: a message box with the download link (and a silent default); the install goes on', () => {
    for (const code of [1602, 1603, 5100, -2147023293, 'fails'] as const) {
      const w = world({ codes: [code] });
      const run = install(w);
      assert.equal(run.messageBoxes.length, 1, `exit code ${code}`);
      const box = run.messageBoxes[0]!;
      assert.match(box.text, /https:\/\/aka\.ms\/vs\/17\/release\/vc_redist\.x64\.exe/);
      assert.match(box.text, code === 'fails' ? /could not be started/ : new RegExp(`exit code ${code}`));
      assert.ok(box.silentDefault, 'the message box would block a silent install (/SD IDOK)');
      assert.equal(run.stopped, false, 'the installation is aborted');
      assert.equal(run.rebootFlag, false);
      assert.equal(w.files.size, 0);
    }
  });

  test('nothing happens when the build shipped no redistributable', () => {
    const run = install(world({ files: new Set() }));
    assert.deepEqual([run.executed, run.messageBoxes, run.registryReads], [[], [], []]);
  });

  test('the minimum runtime covers the toolset of every MSVC-linked win32 binary in onnxruntime-node', () => {
    assert.ok(minMinor >= 40, `LVA_VC_RUNTIME_MIN_MINOR is ${nsh.defines.LVA_VC_RUNTIME_MIN_MINOR}`);
    const dlls = realFiles.filter((f) => /^node_modules\/onnxruntime-node\/bin\/napi-v[^/]+\/win32\/(x64|arm64)\/[^/]+\.(dll|node)$/.test(f));
    const needing = dlls.map((f) => ({ f, ...peInfo(path.join(ROOT, f)) })).filter((p) => p.imports.some((d) => /^(vcruntime140|msvcp140)/i.test(d)));
    // Not vacuous: the binding and onnxruntime.dll need the runtime, for both architectures.
    assert.ok(needing.length >= 4, `only ${needing.map((p) => p.f).join(', ')} import the Visual C++ runtime`);
    for (const p of needing) {
      assert.equal(p.linker[0], 14, `${p.f}: linker ${p.linker.join('.')}`);
      assert.ok(p.linker[1] <= minMinor, `${p.f} was linked by MSVC 14.${p.linker[1]}, newer than the installer's minimum 14.${minMinor}`);
    }
  });
});

/** A PE file's linker version and imported DLL names (the optional header and the import directory). */
function peInfo(file: string): { linker: [number, number]; imports: string[] } {
  const b = readFileSync(file);
  const pe = b.readUInt32LE(0x3c);
  assert.equal(b.toString('latin1', pe, pe + 4), 'PE\0\0', `${file} is not a PE file`);
  const opt = pe + 24;
  const dataDirs = opt + (b.readUInt16LE(opt) === 0x20b ? 112 : 96);
  const sections = Array.from({ length: b.readUInt16LE(pe + 6) }, (_, i) => {
    const s = opt + b.readUInt16LE(pe + 20) + i * 40;
    return { va: b.readUInt32LE(s + 12), size: b.readUInt32LE(s + 8), raw: b.readUInt32LE(s + 20) };
  });
  const at = (rva: number) => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + x.size);
    assert.ok(s, `${file}: RVA ${rva} is in no section`);
    return rva - s.va + s.raw;
  };
  const imports: string[] = [];
  const importRva = b.readUInt32LE(dataDirs + 8);
  for (let d = importRva ? at(importRva) : -1; d >= 0 && b.readUInt32LE(d + 12) !== 0; d += 20) {
    const name = at(b.readUInt32LE(d + 12));
    imports.push(b.toString('latin1', name, b.indexOf(0, name)));
  }
  return { linker: [b[opt + 2]!, b[opt + 3]!], imports };
}

describe('Windows: fetching the redistributable, and the build that needs it', () => {
  const tmp: string[] = [];
  after(async () => {
    for (const d of tmp) await rm(d, { recursive: true, force: true });
  });
  const scratch = async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'lva-vcredist-'));
    tmp.push(d);
    return d;
  };
  /** A file the checks take for the redistributable: the PE magic, then zeros up to `bytes`. */
  const fakeRedist = async (file: string, bytes = 20 * 1024 * 1024) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'MZ');
    await truncate(file, bytes);
  };
  const WIN_X64 = 1; // builder-util's Arch.x64
  const ctx = (projectDir: string, over: Partial<Parameters<typeof beforePack>[0]> = {}) => ({
    electronPlatformName: 'win32',
    arch: WIN_X64,
    targets: [{ name: 'nsis' }],
    packager: { projectDir },
    ...over,
  });

  test('electron-builder loads the beforePack hook from electron-builder.yml, and its arch numbers are builder-util\'s', async () => {
    const ebRequire = createRequire(import.meta.url);
    const { resolveFunction } = ebRequire('app-builder-lib/out/util/resolve.js') as {
      resolveFunction: (type: string, executor: unknown, name: string, root: string) => Promise<unknown>;
    };
    assert.equal(config.beforePack, './scripts/fetch-vc-redist.mjs');
    // electron-builder resolves a "./" hook against the working folder (npm runs it in the project).
    const spec = process.cwd() === ROOT ? config.beforePack : path.join(ROOT, 'scripts', 'fetch-vc-redist.mjs');
    const hook = await resolveFunction('module', spec, 'beforePack', ROOT);
    assert.equal(typeof hook, 'function');
    assert.equal((hook as { name: string }).name, 'beforePack');
    const { Arch } = ebRequire('builder-util') as { Arch: Record<string, number> };
    assert.equal(Arch.x64, WIN_X64);
    const dir = await scratch();
    await assert.rejects(beforePack(ctx(dir, { arch: Arch.arm64! })), /vc_redist\.arm64\.exe/);
    await assert.rejects(beforePack(ctx(dir, { arch: Arch.ia32! })), /x64 and arm64 only, not ia32\./);
  });

  test('a Windows installer build without the redistributable stops with one sentence', async () => {
    const dir = await scratch();
    const file = path.join(dir, VC_REDIST_DIR, vcRedistFile('x64'));
    const oneSentence = (problem: RegExp) => (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /^The Windows installer needs the Visual C\+\+ Redistributable at build\/win\/vc_redist\.x64\.exe, but [^\n]+: run "node scripts\/fetch-vc-redist\.mjs --arch x64" first\.$/);
      assert.match(err.message, problem);
      return true;
    };
    await assert.rejects(beforePack(ctx(dir)), oneSentence(/but it is missing/));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'MZ stub');
    await assert.rejects(beforePack(ctx(dir)), oneSentence(/it has 7 bytes/));
    await writeFile(file, '<html>');
    await truncate(file, 2 * 1024 * 1024);
    await assert.rejects(beforePack(ctx(dir)), oneSentence(/not a Windows program/));
    await fakeRedist(file);
    await beforePack(ctx(dir));
    // Other platforms, and a Windows build that makes no installer, do not need it.
    const empty = await scratch();
    await beforePack(ctx(empty, { electronPlatformName: 'linux' }));
    await beforePack(ctx(empty, { electronPlatformName: 'darwin' }));
    await beforePack(ctx(empty, { targets: [{ name: 'dir' }] }));
  });

  test('the download follows redirects, keeps to its size bound and timeout, and leaves no partial file', async () => {
    const bounds = { minBytes: 1000, maxBytes: 10_000, timeoutMs: 500 };
    const server = http.createServer((req, res) => {
      const body = (head: string, n: number) => Buffer.concat([Buffer.from(head), Buffer.alloc(n - head.length)]);
      if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
      else if (req.url === '/ok') res.end(body('MZ', 5000));
      else if (req.url === '/announced-big') res.writeHead(200, { 'content-length': '20000' }).end(body('MZ', 20_000));
      else if (req.url === '/streamed-big') {
        res.writeHead(200); // chunked: no length announced
        for (let i = 0; i < 20; i++) res.write(body(i === 0 ? 'MZ' : '', 1000));
        res.end();
      } else if (req.url === '/small') res.end(body('MZ', 500));
      else if (req.url === '/html') res.end(body('<html>', 5000));
      else if (req.url === '/hang') res.writeHead(200, { 'content-length': '5000' }).write('MZ'); // then nothing
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const dir = await scratch();
      const dest = path.join(dir, 'sub', 'vc_redist.x64.exe');
      const leftovers = () => readdirSync(path.dirname(dest)).filter((n) => n !== 'vc_redist.x64.exe');
      await download(`${base}/redirect`, dest, bounds);
      assert.equal(readFileSync(dest).length, 5000);
      assert.deepEqual(leftovers(), []);
      await rm(dest);
      const fails = [
        ['/announced-big', /20000 bytes, over the 10000-byte bound/],
        ['/streamed-big', /sent more than 10000 bytes/],
        ['/small', /has 500 bytes/],
        ['/html', /not a Windows program/],
        ['/hang', /timed out after 1 s/],
        ['/missing', /HTTP 404/],
      ] as const;
      for (const [route, message] of fails) {
        await assert.rejects(download(`${base}${route}`, dest, bounds), message, route);
        assert.ok(!existsSync(dest), `${route} left ${dest}`);
        assert.deepEqual(leftovers(), [], `${route} left a partial file`);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('fetching skips a redistributable that is already there; only x64 and arm64 exist', async () => {
    const dir = await scratch();
    await fakeRedist(path.join(dir, vcRedistFile('x64')));
    const lines: string[] = [];
    await fetchVcRedist(['x64'], { dir, log: (l) => lines.push(l) });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /vc_redist\.x64\.exe is there/);
    await assert.rejects(fetchVcRedist(['ia32'], { dir }), /no Redistributable for "ia32"/);
  });

  test('the Authenticode check wants a valid signature by Microsoft', () => {
    const microsoft = 'CN=Microsoft Corporation, O=Microsoft Corporation, L=Redmond, S=Washington, C=US';
    assert.equal(signatureProblem(`Valid\r\n${microsoft}\r\n`), null);
    assert.match(signatureProblem(`HashMismatch\r\n${microsoft}`)!, /signature is HashMismatch/);
    assert.match(signatureProblem('NotSigned\r\n')!, /signature is NotSigned/);
    assert.match(signatureProblem('Valid\r\nCN=Someone, O=Microsoft Corporation Fake, C=US')!, /not Microsoft/);
    assert.match(signatureProblem('')!, /unreadable/);
  });
});

// ---------------------------------------------------------------- the Linux desktop identity

describe('Linux: the desktop identity (Wayland app id, portal global shortcuts)', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Dict;
  const scheme = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('app-builder-lib/scheme.json'), 'utf8')) as {
    properties: Dict;
    definitions: Record<string, { properties: Dict }>;
  };

  test("package.json's desktopName is a reverse-DNS .desktop name: the appId", () => {
    const name = pkg.desktopName;
    assert.equal(typeof name, 'string');
    // The desktop entry spec's D-Bus-style id: two or more dot-separated elements of [A-Za-z0-9_-],
    // none starting with a digit, at most 255 characters with the suffix.
    assert.match(name as string, /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)+\.desktop$/);
    assert.ok((name as string).length <= 255);
    assert.equal(name, `${config.appId}.desktop`);
  });

  test("the keys added for Windows and Linux are in electron-builder's schema, which rejects unknown ones", async () => {
    assert.ok('beforePack' in scheme.properties);
    assert.ok('include' in scheme.definitions.NsisOptions!.properties);
    assert.ok('extraResources' in scheme.definitions.WindowsConfiguration!.properties);
    assert.equal((scheme.definitions.LinuxConfiguration!.properties.syncDesktopName as Dict).type, 'boolean');
    assert.equal(dict(config, 'linux').syncDesktopName, true);
    // Not vacuous: a misplaced key (desktopName under linux, as electron-builder's warning might suggest) is refused.
    const { validateConfiguration } = createRequire(import.meta.url)('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration: (c: Dict, logger: { isEnabled: boolean }) => Promise<void>;
    };
    const wrong = structuredClone(config);
    dict(wrong, 'linux').desktopName = pkg.desktopName;
    await assert.rejects(validateConfiguration(wrong, { isEnabled: false }), /configuration\.linux should be/);
  });

  test("the deb's and the AppImage's .desktop file is named after desktopName, with a matching StartupWMClass", async () => {
    const ebRequire = createRequire(import.meta.url);
    const { LinuxTargetHelper } = ebRequire('app-builder-lib/out/targets/LinuxTargetHelper.js') as {
      LinuxTargetHelper: new (packager: object) => {
        getDesktopFileName(fallback?: string): string;
        computeDesktopEntry(options: Dict): Promise<string>;
      };
    };
    const linuxOptions = dict(config, 'linux');
    // The parts of electron-builder's LinuxPackager that naming the desktop entry reads.
    const packager = {
      platformSpecificBuildOptions: linuxOptions,
      info: { metadata: pkg },
      executableName: 'local-voice-assistant',
      appInfo: { productName: config.productName, sanitizedProductName: config.productName, description: pkg.description },
      fileAssociations: [],
      config,
    };
    const helper = new LinuxTargetHelper(packager);
    const id = (pkg.desktopName as string).replace(/\.desktop$/, '');
    assert.equal(helper.getDesktopFileName(), id);
    const entry = await helper.computeDesktopEntry(linuxOptions);
    assert.match(entry, new RegExp(`^StartupWMClass=${id.replaceAll('.', '\\.')}$`, 'm'));
    // The deb installs it as /usr/share/applications/<that name>.desktop; the AppImage embeds it so.
    const fpm = readFileSync(ebRequire.resolve('app-builder-lib/out/targets/FpmTarget.js'), 'utf8');
    assert.match(fpm, /\/usr\/share\/applications\/\$\{this\.helper\.getDesktopFileName\(\)\}\.desktop/);
    const appImage = readFileSync(ebRequire.resolve('app-builder-lib/out/targets/appimage/AppImageTarget.js'), 'utf8');
    assert.match(appImage, /desktopFileName: `\$\{desktopBaseName\}\.desktop`/);
    // Without syncDesktopName it would be the executable's name, which the portal cannot match to the app id.
    const unsynced = new LinuxTargetHelper({ ...packager, platformSpecificBuildOptions: { ...linuxOptions, syncDesktopName: false } });
    assert.equal(unsynced.getDesktopFileName(), 'local-voice-assistant');
  });
});

interface EbStat {
  moduleFullFilePath: string | undefined;
  isDirectory(): boolean;
}
interface EbPackagerInfo {
  projectDir: string;
  buildResourcesDir: string;
  isPrepackedAppAsar: boolean;
  config: Dict;
  debugLogger: { isEnabled: boolean };
}
interface EbFileMatcher {
  patterns: string[];
  createFilter(): (file: string, stat: EbStat) => boolean;
}
interface EbFileMatcherModule {
  FileMatcher: new (from: string, to: string, expander: (p: string) => string, patterns?: string[]) => EbFileMatcher;
  getMainFileMatchers(
    appDir: string,
    destination: string,
    expander: (p: string) => string,
    platformOptions: Dict,
    platformPackager: { info: EbPackagerInfo },
    outDir: string,
    isElectronCompile: boolean,
  ): EbFileMatcher[];
  getNodeModuleFileMatcher(
    appDir: string,
    destination: string,
    expander: (p: string) => string,
    platformOptions: Dict,
    packager: EbPackagerInfo,
  ): EbFileMatcher;
  getFileMatchers(
    config: Dict,
    name: 'asarUnpack' | 'extraResources',
    destination: string,
    options: { macroExpander: (p: string) => string; customBuildOptions: Dict; globalOutDir: string; defaultSrc: string },
  ): EbFileMatcher[] | null;
}
