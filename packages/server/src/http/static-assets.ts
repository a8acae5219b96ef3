import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ServiceProblem } from '../domain/service-problem.js';

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

/**
 * Serves the files of a built assets folder at `<urlPath>/<file>`: plain file names of known types
 * only (nothing outside the folder), cached for five minutes. The pages name their assets with a
 * content hash in the query, so a new build still reaches every browser at once.
 * @throws ServiceProblem `not_found` for any other name, or when the folder is not built.
 */
export function registerAssetRoute(
  app: FastifyInstance,
  urlPath: string,
  directory: string | undefined,
): void {
  app.get<{ Params: { file: string } }>(
    `${urlPath}/:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      const file = request.params.file;
      const type = ASSET_TYPES[file.slice(file.lastIndexOf('.'))];
      const path = directory ? join(directory, file) : '';
      if (!/^[a-z0-9_.-]+$/i.test(file) || !type || !path || !existsSync(path)) {
        throw new ServiceProblem('not_found', `No asset ${file}.`);
      }
      reply.header('cache-control', 'public, max-age=300');
      return reply.type(type).send(createReadStream(path));
    },
  );
}
