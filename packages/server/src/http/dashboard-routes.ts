import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownAssetsPolicy } from '@cryptocheckout/pay-page';
import type { FastifyInstance } from 'fastify';
import { registerAssetRoute } from './static-assets.js';

/**
 * The dashboard's page: the pay page's policy (its own script, styles and API only), but never
 * framed: it acts on the operator's behalf, so no other page may overlay it.
 */
const DASHBOARD_HEADERS = {
  'content-security-policy': ownAssetsPolicy("frame-ancestors 'none'"),
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'cache-control': 'no-store',
};

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head><body><h1>The operator dashboard is not built</h1><p>Run <code>npm run build</code> in the project (or <code>npm run build -w apps/dashboard</code>) and restart the server, or start it with <code>--dashboard-dir</code> pointing at a built dashboard. The operator API under <code>/api/operator/</code> works without it.</p></body></html>';

/**
 * Serves the operator dashboard's built files (`index.html`, `assets/*`) from `dashboardDir` at
 * `/dashboard`. The server ships no dashboard code: the folder is the `@cryptocheckout/dashboard`
 * build, found at start or given with `--dashboard-dir` (docs/operator-dashboard.md).
 */
export function registerDashboardRoutes(app: FastifyInstance, dashboardDir: string | undefined): void {
  const indexPath = dashboardDir ? join(dashboardDir, 'index.html') : undefined;
  app.get('/dashboard', { schema: { hide: true } }, async (_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
    if (!indexPath || !existsSync(indexPath)) {
      return reply.code(404).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    }
    return reply.type('text/html; charset=utf-8').send(readFileSync(indexPath));
  });
  registerAssetRoute(app, '/dashboard/assets', dashboardDir ? join(dashboardDir, 'assets') : undefined);
}
