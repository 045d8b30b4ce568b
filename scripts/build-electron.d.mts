// Types of scripts/build-electron.mjs, for the tests that build with it.
export function buildRenderer(): Promise<void>;
export function buildMain(outdir: string): Promise<void>;
export function buildAll(): Promise<void>;
