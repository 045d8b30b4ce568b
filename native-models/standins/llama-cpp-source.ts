/**
 * The real tokenizer and chat template for the language model stand-ins, from the llama.cpp source
 * that node-llama-cpp ships (`llama/gitRelease.bundle`, a git bundle of the release it builds):
 * `models/ggml-vocab-qwen2.gguf` holds Qwen2's vocabulary and merges, so a stand-in tokenizes a
 * prompt into exactly as many tokens as the real model, and `models/templates/` holds the models'
 * chat templates, so node-llama-cpp picks the same chat format.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** node-llama-cpp's folder (its exports hide package.json: found from its entry point up). */
function nodeLlamaCppDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.resolve('node-llama-cpp')));
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) if (existsSync(path.join(dir, 'llama', 'gitRelease.bundle'))) return dir;
  throw new Error("node-llama-cpp's llama.cpp source bundle (llama/gitRelease.bundle) was not found: run npm ci");
}

/** A bare clone of the bundle, made once per bundle under the OS's temporary folder. */
function sourceRepo(): string {
  const bundle = path.join(nodeLlamaCppDir(), 'llama', 'gitRelease.bundle');
  const head = execFileSync('git', ['bundle', 'list-heads', bundle], { encoding: 'utf8' }).trim().split(/\s+/)[0]!;
  const repo = path.join(os.tmpdir(), `lva-llama-cpp-${head.slice(0, 12)}.git`);
  if (!existsSync(repo)) {
    const partial = `${repo}.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    execFileSync('git', ['clone', '--quiet', '--bare', bundle, partial], { stdio: 'ignore' });
    mkdirSync(path.dirname(repo), { recursive: true });
    renameSync(partial, repo);
  }
  return repo;
}

/** One file of the llama.cpp release's source tree. */
export function llamaCppSourceFile(file: string): Buffer {
  return execFileSync('git', ['--git-dir', sourceRepo(), 'show', `HEAD:${file}`], { maxBuffer: 64 << 20 });
}

/** GGUF value types whose size is fixed (bytes), by type id. */
const FIXED: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/**
 * The key/value entries of a GGUF whose keys `keep` accepts, byte for byte (for writeGguf's
 * `copied`), without decoding their values.
 */
export function copyGgufEntries(gguf: Buffer, keep: (key: string) => boolean): { count: number; bytes: Uint8Array } {
  if (gguf.toString('ascii', 0, 4) !== 'GGUF') throw new Error('not a GGUF file');
  let at = 8;
  const u32 = () => ((at += 4), gguf.readUInt32LE(at - 4));
  const u64 = () => ((at += 8), Number(gguf.readBigUInt64LE(at - 8)));
  u64(); // tensors
  const entries = u64();
  // A string is its u64 length, then its bytes (read the length before moving past them).
  const skipString = () => {
    const n = u64();
    at += n;
  };
  const skipValue = (type: number): void => {
    if (type === 8) skipString();
    else if (type === 9) {
      const inner = u32();
      const n = u64();
      if (inner === 8) for (let i = 0; i < n; i++) skipString();
      else at += n * FIXED[inner]!;
    } else at += FIXED[type]!;
  };
  const parts: Buffer[] = [];
  let count = 0;
  for (let i = 0; i < entries; i++) {
    const start = at;
    const key = gguf.toString('utf8', at + 8, at + 8 + Number(gguf.readBigUInt64LE(at)));
    at += 8 + Buffer.byteLength(key);
    skipValue(u32());
    if (keep(key)) (parts.push(gguf.subarray(start, at)), count++);
  }
  return { count, bytes: Buffer.concat(parts) };
}
