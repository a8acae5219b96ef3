/** Called with one line per step done. */
export type Log = (line: string) => void;

/** Raw and gzipped size of a built file, in bytes. */
export interface FileSize {
  bytes: number;
  gzipBytes: number;
}

/** The time every zip entry carries, so the same sources always give the same bytes. */
export declare const ZIP_EPOCH: Date;
export declare function zipTimeFor(entries: Record<string, Uint8Array>): Date;

/** Bundles each entry point (name → path under `root`) into a self-contained minified `<name>.js` in `outdir`. */
export declare function bundleScripts(options: {
  root: string;
  entryPoints: Record<string, string>;
  outdir: string;
  log?: Log;
}): Promise<Record<string, FileSize>>;

/** Copies the PHP client into `dest` (replacing it) under `namespace`, with `guard` in its autoloader. */
export declare function copyClient(options: {
  dest: string;
  namespace: string;
  guard: string;
  log?: Log;
}): Promise<string[]>;

/** Copies `from` into the new folder `to`, leaving out the relative paths `skip` names; returns the file count. */
export declare function copySources(options: {
  from: string;
  to: string;
  skip?: (path: string) => boolean;
  log?: Log;
}): Promise<number>;

/** Every file under `dir`: relative paths with forward slashes, sorted. */
export declare function listFiles(dir: string): Promise<string[]>;

/** Zips what `stage` puts into a temporary folder (minus `exclude`) into `outFile`. */
export declare function writePackage(options: {
  outFile: string;
  stage: (dir: string) => Promise<void>;
  exclude?: RegExp[];
  log?: Log;
}): Promise<{ file: string; entries: string[]; bytes: number }>;

/** Runs `main` when the script at `moduleUrl` is the one node started, with `--out` and printed progress. */
export declare function runScript(
  moduleUrl: string,
  main: (options: { out: string | undefined; log: Log }) => Promise<unknown>,
): void;
