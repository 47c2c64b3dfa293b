import { watch, type FSWatcher } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import type { GatewayConfig } from '../config/types.js';

/**
 * `serve --watch`: watches the folders that hold gateway.toml and the schema files, not the files'
 * inodes, so new files and saves by rename (write a temporary file, rename it over the old one)
 * are seen. A glob's folder is its part before the first wildcard, watched recursively when the
 * glob goes deeper than one folder (`**`, `a/*\/b`). Events are debounced (`quietMs` without a
 * further event) and then `onChange` runs; it decides whether anything really changed
 * (reload's `ifChanged`). `retarget(config)` follows the folders of a reloaded config.
 */
export interface ConfigWatcher {
  retarget(config: GatewayConfig): void;
  close(): void;
}

export function watchGatewayFiles(config: GatewayConfig, onChange: () => void, quietMs = 100): ConfigWatcher {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, quietMs);
  };
  const retarget = (next: GatewayConfig) => {
    const wanted = foldersOf(next);
    for (const [key, w] of watchers) {
      if (!wanted.has(key)) {
        w.close();
        watchers.delete(key);
      }
    }
    for (const [key, { dir, recursive }] of wanted) {
      if (watchers.has(key)) continue;
      try {
        const w = watch(dir, { recursive, persistent: false }, changed);
        w.on('error', () => {
          w.close();
          watchers.delete(key);
        });
        watchers.set(key, w);
      } catch {
        // A folder that does not exist (yet): its parent's watcher or a later retarget covers it.
      }
    }
  };
  retarget(config);
  return {
    retarget,
    close() {
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

function foldersOf(config: GatewayConfig): Map<string, { dir: string; recursive: boolean }> {
  const base = dirname(config.file);
  const folders = new Map<string, { dir: string; recursive: boolean }>();
  const add = (dir: string, recursive: boolean) => {
    const key = `${recursive ? 'r' : 'f'}:${dir}`;
    folders.set(key, { dir, recursive });
  };
  add(base, false);
  for (const entry of config.schema) {
    const abs = isAbsolute(entry) ? entry : resolve(base, entry);
    const segments = abs.split(sep);
    const firstGlob = segments.findIndex((s) => /[*?]/.test(s));
    if (firstGlob < 0) {
      add(dirname(abs), false);
      continue;
    }
    add(segments.slice(0, firstGlob).join(sep) || sep, firstGlob < segments.length - 1 || abs.includes('**'));
  }
  return folders;
}
