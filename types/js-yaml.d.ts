// js-yaml ships no types (it comes in with electron-builder); the packaging test only parses YAML.
declare module 'js-yaml' {
  export function load(text: string): unknown;
  const yaml: { load: typeof load };
  export default yaml;
}
