// Types of scripts/fetch-vc-redist.mjs, for test/packaging.test.ts.
export const VC_REDIST_DIR: string;
export const VC_REDIST_ARCHS: string[];
export const VC_REDIST_MIN_BYTES: number;
export const VC_REDIST_MAX_BYTES: number;
export function vcRedistUrl(arch: string): string;
export function vcRedistFile(arch: string): string;
export function vcRedistProblem(file: string, bounds?: { minBytes?: number; maxBytes?: number }): Promise<string | null>;
export function download(
  url: string,
  dest: string,
  options?: { minBytes?: number; maxBytes?: number; timeoutMs?: number },
): Promise<void>;
export function signatureProblem(output: string): string | null;
export function fetchVcRedist(archs: string[], options?: { dir?: string; force?: boolean; log?: (line: string) => void }): Promise<void>;
/** electron-builder's beforePack hook; `arch` is builder-util's Arch enum value. */
export function beforePack(context: {
  electronPlatformName: string;
  arch: number;
  targets?: { name: string }[];
  packager: { projectDir: string };
}): Promise<void>;
