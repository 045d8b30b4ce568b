/**
 * What the user is told when the engines' native modules cannot load at start (a platform package
 * missing from the install, a system library or the Visual C++ runtime absent): which engine
 * failed, and what fixes it. Pure, so it is tested without Electron; main.ts shows it in a dialog.
 */

/** Looked for in the error's message and stack, in this order (sherpa's errors can name onnxruntime). */
const ENGINES = [
  { pattern: /sherpa-onnx/, module: 'sherpa-onnx-node', role: 'speech recognition and synthesis' },
  { pattern: /onnxruntime/, module: 'onnxruntime-node', role: 'voice activity detection' },
  { pattern: /node-llama-cpp|lifecycle-utils/, module: 'node-llama-cpp', role: 'language model' },
] as const;

/** Microsoft's permalink to the latest supported Visual C++ Redistributable for this architecture (the installer runs it; see build/installer.nsh). */
export function vcRedistUrl(arch: string): string {
  return `https://aka.ms/vs/17/release/vc_redist.${arch === 'arm64' ? 'arm64' : 'x64'}.exe`;
}
export const VC_REDIST_URL = vcRedistUrl('x64');

/** Libraries that ship inside the app: one of these missing means a damaged install, not the system's. */
const OWN_LIBRARY = /onnxruntime|sherpa|llama|ggml/i;

export function startupFailure(err: unknown, platform: NodeJS.Platform, arch: string = 'x64'): { title: string; message: string } {
  const text = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err);
  const firstLine = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim().slice(0, 300);
  const engine = ENGINES.find((e) => e.pattern.test(text));
  const what = engine ? `The ${engine.role} engine (${engine.module}) could not be loaded` : 'The assistant’s engines could not be loaded';
  const library = /([\w.+-]+\.so(?:\.\d+)*): cannot open shared object file/.exec(text)?.[1];
  let fix: string;
  if (platform === 'linux' && library && !OWN_LIBRARY.test(library)) {
    fix = `This computer lacks the system library ${library}. Install the package that provides it with your distribution’s package manager, then start the app again.`;
  } else if (platform === 'win32') {
    const which = arch === 'arm64' ? 'arm64' : 'x64';
    fix = `Install the Microsoft Visual C++ Redistributable (${which}) from ${vcRedistUrl(which)}, then start the app again. If it still fails, reinstall Local Voice Assistant.`;
  } else {
    fix = 'Part of the installation is missing or damaged: reinstall Local Voice Assistant.';
  }
  return { title: 'Local Voice Assistant cannot start', message: `${what}:\n${firstLine}\n\n${fix}` };
}
