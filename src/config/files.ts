// Config files: filled in by the profiles work (issue 4). Until then no file layers.
import type { Layer } from "./settings.js";

export interface ConfigLoadOptions {
  cwd: string;
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
  profile: string | null;
  warn: (message: string) => void;
}

export async function loadConfigLayers(options: ConfigLoadOptions): Promise<{ layers: Layer[]; profile: string | null }> {
  return { layers: [], profile: options.profile };
}
