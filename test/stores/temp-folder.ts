import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh folder under the OS temp dir; `remove()` deletes it with everything inside. */
export function makeTempFolder(prefix = 'gatehouse-store-'): { path: string; remove(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  return { path: folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
