import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// Read through a variable: in a DOM test environment Vite rewrites `new URL('…', import.meta.url)`
// into a dev-server address.
const HERE = import.meta.url;

/** Host path of this package; tests mount it at {@link CLIENT_MOUNT} inside PHP. */
export const CLIENT_ROOT = fileURLToPath(new URL('..', HERE));

/**
 * Host path (with a trailing separator) of the conformance vectors shared with @cryptocheckout/core,
 * found through the package's `./vectors/*` export rather than a path into its folder.
 */
export const VECTORS_ROOT =
  dirname(createRequire(HERE).resolve('@cryptocheckout/core/vectors/README.md')) + sep;

export const CLIENT_MOUNT = '/client';
export const VECTORS_MOUNT = '/vectors';

/** Mounts for `describeEachPhp`: the client sources and the vectors. */
export const CLIENT_MOUNTS = { [CLIENT_MOUNT]: CLIENT_ROOT, [VECTORS_MOUNT]: VECTORS_ROOT };

/** PHP that loads the client through its own autoloader, with errors surfacing as failures. */
export const LOAD_CLIENT = `
error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});
require '${CLIENT_MOUNT}/src/autoload.php';
`;
