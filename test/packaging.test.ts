/**
 * electron-builder.yml, checked without building an installer (no Electron binary is needed): its file
 * patterns are applied to the real node_modules for linux-x64 the way electron-builder 26 applies them
 * (read from app-builder-lib 26.17: util/config/config.js, fileMatcher.js, util/filter.js), and the
 * result is cross-checked against electron-builder's own code.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { Minimatch } from 'minimatch';
import { DEFAULT_CATALOG } from '../native-models/catalog';
import { modelDir, resolveModel, searchOrder } from '../native-models/resolver';

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
    name: 'asarUnpack',
    destination: string,
    options: { macroExpander: (p: string) => string; customBuildOptions: Dict; globalOutDir: string; defaultSrc: string },
  ): EbFileMatcher[] | null;
}
