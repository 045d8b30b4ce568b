/**
 * Whether the llama.cpp that node-llama-cpp bundles knows a GGUF architecture (the file's
 * `general.architecture`), read from what is installed: node-llama-cpp's list of architectures
 * (GgufArchitectureType, kept with the llama.cpp release it ships) and, where this platform's
 * prebuilt library is installed, the model class llama.cpp builds for that architecture
 * (`llama_model_<arch>`, one per architecture, named in the library's symbols).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ArchitectureCheck {
  known: boolean;
  /** What was read, for the report line. */
  evidence: string;
}

/** node-llama-cpp's prebuilt folders are named <platform>-<arch>[-gpu]: linux-x64, mac-arm64-metal, win-x64. */
const PLATFORM_NAME: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'mac', win32: 'win' };

/** node-llama-cpp's folder and version (its exports hide package.json: found from its entry point up). */
function nodeLlamaCpp(): { dir: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.resolve('node-llama-cpp')));
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    const pkg = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }) : {};
    if (pkg.name === 'node-llama-cpp') return { dir, version: pkg.version ?? 'unknown' };
  }
  throw new Error('node-llama-cpp is not installed');
}

/** This platform's CPU build of libllama (the one node-llama-cpp loads when there is no GPU build). */
function bundledLibllama(nlcDir: string): { file: string; label: string } | undefined {
  const platform = PLATFORM_NAME[process.platform];
  if (!platform) return undefined;
  const scope = path.join(path.dirname(nlcDir), '@node-llama-cpp');
  const prefix = `${platform}-${process.arch}`;
  const builds = existsSync(scope) ? readdirSync(scope).filter((d) => d.startsWith(prefix)).sort() : [];
  for (const build of builds) {
    const bins = path.join(scope, build, 'bins');
    const subs = existsSync(bins) ? readdirSync(bins, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
    for (const { name: sub } of subs) {
      const lib = readdirSync(path.join(bins, sub)).find((f) => /^(lib)?llama[.\w]*\.(so|dylib|dll)$/.test(f));
      if (lib) return { file: path.join(bins, sub, lib), label: `@node-llama-cpp/${build}` };
    }
  }
  return undefined;
}

/** The class's name as the library's symbols spell it: Itanium (`17llama_model_qwen2`) or MSVC (`llama_model_qwen2@@`). */
function hasModelClass(library: Buffer, arch: string): boolean {
  const name = `llama_model_${arch}`;
  return library.includes(`${name.length}${name}`) || library.includes(`${name}@@`);
}

export async function llamaCppKnows(arch: string): Promise<ArchitectureCheck> {
  // A const enum in node-llama-cpp's types (so not readable as a value here), an object in its JavaScript.
  const architectures = ((await import('node-llama-cpp')) as Record<string, unknown>)['GgufArchitectureType'] as Record<string, string>;
  const { dir, version } = nodeLlamaCpp();
  const listed = Object.values(architectures).includes(arch);
  const said = [`node-llama-cpp ${version}'s GgufArchitectureType ${listed ? 'lists' : 'does not list'} ${arch}`];
  let known = listed;
  const lib = bundledLibllama(dir);
  if (lib) {
    const has = hasModelClass(readFileSync(lib.file), arch);
    said.push(`${path.basename(lib.file)} in ${lib.label} ${has ? 'has' : 'has no'} llama_model_${arch}`);
    known &&= has;
  }
  return { known, evidence: said.join('; ') };
}
