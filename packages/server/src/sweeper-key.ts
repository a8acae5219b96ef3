import { readFileSync } from 'node:fs';

/**
 * The sweeper's private key from `--sweeper-key-file`, `--sweeper-key` or CRYPTOCHECKOUT_SWEEPER_KEY
 * (first found), trimmed; undefined when none is given. The key is a secret: no message here
 * repeats it.
 * @throws Error naming the source and the fix when it cannot be read or is not a key.
 */
export function readSweeperKey(sources: { file?: string; flag?: string; env?: string }): string | undefined {
  let key: string | undefined;
  let source = '';
  if (sources.file) {
    source = `--sweeper-key-file ${sources.file}`;
    try {
      key = readFileSync(sources.file, 'utf8').trim();
    } catch (error) {
      throw new Error(
        `${source}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      );
    }
  } else if (sources.flag) {
    source = '--sweeper-key';
    key = sources.flag.trim();
  } else if (sources.env) {
    source = 'CRYPTOCHECKOUT_SWEEPER_KEY';
    key = sources.env.trim();
  }
  if (key === undefined) return undefined;
  const normalised = /^[0-9a-fA-F]{64}$/.test(key) ? `0x${key}` : key;
  if (!/^0x[0-9a-fA-F]{64}$/.test(normalised)) {
    throw new Error(`${source}: not a private key (64 hex digits, with or without 0x).`);
  }
  return normalised;
}
