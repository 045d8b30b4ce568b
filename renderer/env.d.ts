import type { AssistantApi } from '../electron/ipc-contract';

declare global {
  interface Window {
    /** Exposed by electron/preload.ts; absent when the page is opened outside the app. */
    readonly assistant?: AssistantApi;
  }
}

export {};

/** Stylesheets are bundled by esbuild into main.css. */
declare module '*.css';
