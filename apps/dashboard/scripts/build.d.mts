/** URL path under which the server serves the built `assets/` folder. */
export declare const DASHBOARD_ASSETS_PATH: string;
/** The files a build writes, relative to its output folder. */
export declare const DASHBOARD_FILES: readonly ['index.html', 'assets/dashboard.js', 'assets/dashboard.css'];
/** Builds the dashboard into `outdir` (default dist/) and returns each file's raw and gzipped size in bytes. */
export declare function buildDashboard(options?: {
  outdir?: string;
}): Promise<Record<(typeof DASHBOARD_FILES)[number], { bytes: number; gzipBytes: number }>>;
/** First 12 hex digits of the SHA-256 of `content`. */
export declare function contentHash(content: Uint8Array | string): string;
