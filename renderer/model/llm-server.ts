/** The usual addresses of the OpenAI-compatible servers people run, offered as suggestions. */
export const SERVER_PRESETS: readonly { name: string; url: string }[] = [
  { name: 'Ollama', url: 'http://localhost:11434/v1' },
  { name: 'LM Studio', url: 'http://localhost:1234/v1' },
  { name: "llama.cpp's server", url: 'http://localhost:8080/v1' },
  { name: 'vLLM', url: 'http://localhost:8000/v1' },
];
