/**
 * The Microsoft Visual C++ Redistributable that the Windows installer carries (docs/packaging.md, "The
 * Visual C++ runtime on Windows"). The native engines link against MSVCP140.dll and VCRUNTIME140*.dll,
 * which neither Electron nor their npm packages ship; build/installer.nsh runs this file, silently, when
 * the runtime is missing. It is not in git (about 25 MB): this fetches it into build/win/, which
 * electron-builder.yml's win.extraResources copies into the app's resources folder.
 *
 *   node scripts/fetch-vc-redist.mjs                 on Windows: this machine's architecture; elsewhere nothing
 *   node scripts/fetch-vc-redist.mjs --arch arm64    a given architecture (x64, arm64; repeat or comma-separate)
 *   node scripts/fetch-vc-redist.mjs --force         fetch again even when the file is there
 *
 * `npm run dist` runs it (predist). The same module is electron-builder's beforePack hook: a Windows
 * installer build stops, with one sentence, when the file for its architecture is missing.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the files go, relative to the project (git-ignored; electron-builder.yml reads it from here). */
export const VC_REDIST_DIR = 'build/win';
/** The architectures the Windows build ships (onnxruntime-node has win32 binaries for these two only). */
export const VC_REDIST_ARCHS = ['x64', 'arm64'];
/** vc_redist.x64.exe 14.4x is about 25 MB, the arm64 one about 12 MB; anything outside this is not it. */
export const VC_REDIST_MIN_BYTES = 1024 * 1024;
export const VC_REDIST_MAX_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 5 * 60 * 1000;

/** Microsoft's permalink to the latest supported Redistributable (Visual Studio 2015-2022, 14.x). */
export function vcRedistUrl(arch) {
  return `https://aka.ms/vs/17/release/vc_redist.${arch}.exe`;
}

export function vcRedistFile(arch) {
  return `vc_redist.${arch}.exe`;
}

/** Why `file` is not a plausible Redistributable (size, PE header), or null when it is. */
export async function vcRedistProblem(file, { minBytes = VC_REDIST_MIN_BYTES, maxBytes = VC_REDIST_MAX_BYTES } = {}) {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return 'it is missing';
  if (info.size < minBytes || info.size > maxBytes) {
    return `it has ${info.size} bytes, not between ${minBytes} and ${maxBytes}`;
  }
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    if (head.toString('latin1') !== 'MZ') return 'it is not a Windows program (no MZ header)';
  } finally {
    await handle.close();
  }
  return null;
}

/**
 * Downloads `url` to `dest` (redirects followed, as aka.ms redirects): refused when the server announces
 * more than maxBytes, cut off when the body grows past it, abandoned after timeoutMs in all. Written to
 * `dest.part` and renamed, so an interrupted download never looks finished.
 */
export async function download(url, dest, { minBytes = VC_REDIST_MIN_BYTES, maxBytes = VC_REDIST_MAX_BYTES, timeoutMs = TIMEOUT_MS } = {}) {
  const part = `${dest}.part`;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { redirect: 'follow', signal });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`${url} answered HTTP ${res.status}`);
    }
    const announced = Number(res.headers.get('content-length'));
    if (announced > maxBytes) {
      await res.body.cancel();
      throw new Error(`${url} is ${announced} bytes, over the ${maxBytes}-byte bound`);
    }
    await mkdir(path.dirname(dest), { recursive: true });
    let received = 0;
    await pipeline(
      Readable.fromWeb(res.body),
      async function* bounded(source) {
        for await (const chunk of source) {
          received += chunk.length;
          if (received > maxBytes) throw new Error(`${url} sent more than ${maxBytes} bytes`);
          yield chunk;
        }
      },
      createWriteStream(part),
    );
    const problem = await vcRedistProblem(part, { minBytes, maxBytes });
    if (problem) throw new Error(`the file from ${url} is not the Redistributable: ${problem}`);
    await rename(part, dest);
  } catch (err) {
    await rm(part, { force: true });
    if (signal.aborted) throw new Error(`downloading ${url} timed out after ${Math.round(timeoutMs / 1000)} s`);
    // fetch's own failures say only "fetch failed"; the reason (DNS, TLS, refused) is the cause.
    const cause = err instanceof TypeError && err.cause instanceof Error ? err.cause.message : null;
    throw cause ? new Error(`downloading ${url} failed: ${cause}`) : err;
  }
}

/**
 * Reads PowerShell's Get-AuthenticodeSignature output (two lines: Status, signer subject): null when
 * the signature is valid and Microsoft's, else what is wrong.
 */
export function signatureProblem(output) {
  const [status = '', subject = ''] = output.trim().split(/\r?\n/).map((l) => l.trim());
  if (status !== 'Valid') return `its Authenticode signature is ${status || 'unreadable'}`;
  if (!/(^|,\s*)O=Microsoft Corporation(,|$)/.test(subject)) return `it is signed by ${subject || 'nobody'}, not Microsoft`;
  return null;
}

/** On Windows, the file must carry Microsoft's valid signature (the installer runs it with admin rights). */
async function checkSignature(file) {
  const script =
    '$s = Get-AuthenticodeSignature -LiteralPath $env:VC_REDIST_FILE; Write-Output $s.Status; Write-Output $s.SignerCertificate.Subject';
  const { stdout } = await promisify(execFile)('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script], {
    env: { ...process.env, VC_REDIST_FILE: file },
    windowsHide: true,
  });
  return signatureProblem(stdout);
}

/** Fetches the Redistributable for each arch into `dir` unless a plausible file is already there. */
export async function fetchVcRedist(archs, { dir = path.join(ROOT, VC_REDIST_DIR), force = false, log = console.log } = {}) {
  for (const arch of archs) {
    if (!VC_REDIST_ARCHS.includes(arch)) throw new Error(`no Redistributable for "${arch}": the Windows build is ${VC_REDIST_ARCHS.join(' or ')}`);
    const dest = path.join(dir, vcRedistFile(arch));
    if (!force && (await vcRedistProblem(dest)) === null) {
      log(`${path.relative(ROOT, dest)} is there (--force fetches it again)`);
      continue;
    }
    log(`fetching ${vcRedistUrl(arch)} -> ${path.relative(ROOT, dest)}`);
    await download(vcRedistUrl(arch), dest);
    if (process.platform === 'win32') {
      const problem = await checkSignature(dest);
      if (problem) {
        await rm(dest, { force: true });
        throw new Error(`${vcRedistUrl(arch)} was not kept: ${problem}`);
      }
    }
    log(`${path.relative(ROOT, dest)}: ${(await stat(dest)).size} bytes`);
  }
}

// electron-builder's Arch enum (builder-util/out/arch.js): the number a hook's context carries.
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

/**
 * electron-builder's beforePack hook (electron-builder.yml): a Windows build that makes an NSIS
 * installer needs build/win/vc_redist.<arch>.exe. Without it electron-builder would only warn that an
 * extraResources source is missing, and the installer would leave a clean Windows unable to start the app.
 */
export async function beforePack(context) {
  if (context.electronPlatformName !== 'win32') return;
  const installer = (context.targets ?? []).some((t) => /^nsis/.test(t.name));
  if (!installer) return;
  const arch = ARCH_NAMES[context.arch] ?? String(context.arch);
  if (!VC_REDIST_ARCHS.includes(arch)) {
    throw new Error(`The Windows installer is built for ${VC_REDIST_ARCHS.join(' and ')} only, not ${arch}.`);
  }
  const rel = `${VC_REDIST_DIR}/${vcRedistFile(arch)}`;
  const problem = await vcRedistProblem(path.join(context.packager.projectDir, rel));
  if (problem) {
    throw new Error(
      `The Windows installer needs the Visual C++ Redistributable at ${rel}, but ${problem}: run "node scripts/fetch-vc-redist.mjs --arch ${arch}" first.`,
    );
  }
}

function parseArgs(argv) {
  const archs = [];
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--force') force = true;
    else if (a === '--arch' && argv[i + 1]) archs.push(...argv[++i].split(','));
    else if (a.startsWith('--arch=')) archs.push(...a.slice('--arch='.length).split(','));
    else throw new Error(`unknown argument ${a} (usage: node scripts/fetch-vc-redist.mjs [--arch x64|arm64] [--force])`);
  }
  return { archs: archs.filter(Boolean), force };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Promise.resolve()
    .then(async () => {
      const { archs, force } = parseArgs(process.argv.slice(2));
      if (archs.length === 0) {
        if (process.platform !== 'win32') {
          console.log('vc_redist: not a Windows build host, nothing to fetch (--arch x64 fetches it anyway)');
          return;
        }
        archs.push(process.arch);
      }
      await fetchVcRedist(archs, { force });
    })
    .catch((err) => {
      console.error(`fetch-vc-redist: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    });
}
