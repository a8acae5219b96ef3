import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_DEADLINE_MS } from './deadline.js';

/** A throwaway MariaDB server, reachable over its Unix socket only. */
export interface MariaDb {
  /** Path of the server's Unix socket. */
  readonly socket: string;
  readonly user: string;
  readonly password: string;
  /** The empty database created for the caller. */
  readonly database: string;
  /** PDO DSN of {@link database} (`mysql:unix_socket=…;dbname=…;charset=utf8mb4`). */
  readonly dsn: string;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'Install Debian\'s server and PHP packages: apt-get update && apt-get install -y mariadb-server php-cli php-mysql (".ci/run" does this on CI).';

/** The first of `names` found on PATH or in /usr/sbin, or an error that says what to install. */
function findProgram(names: readonly string[]): string {
  for (const name of names) {
    for (const folder of ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin']) {
      const path = join(folder, name);
      if (existsSync(path)) return path;
    }
  }
  throw new Error(`None of ${names.join(', ')} is installed. ${INSTALL_HINT}`);
}

/**
 * Why a MariaDB test cannot run on this machine (the missing Debian packages), or null when it can.
 * Tests skip on a developer's machine without them; on CI (the `CI` environment variable set),
 * which installs them, this throws instead, so the tests can never be skipped there.
 * @throws Error on CI when a package is missing
 */
export function mariaDbUnavailable(): string | null {
  try {
    findProgram(['mariadbd', 'mysqld']);
    findProgram(['mariadb-install-db', 'mysql_install_db']);
    findProgram(['mariadb', 'mysql']);
    findDebianPhp();
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI) throw new Error(`CI must run the MariaDB tests: ${reason}`);
    return reason;
  }
}

/**
 * Debian's PHP command-line interpreter with PDO MySQL, for code that must talk to a real
 * MySQL/MariaDB server (php-wasm has no MySQL driver). Throws, naming the packages, when missing.
 */
export function findDebianPhp(): string {
  const php = findProgram(['php']);
  const modules = spawnSync(php, ['-m'], { encoding: 'utf8' }).stdout ?? '';
  if (!/^pdo_mysql$/m.test(modules)) {
    throw new Error(`${php} has no pdo_mysql extension. ${INSTALL_HINT}`);
  }
  return php;
}

/**
 * Starts a private MariaDB server (Debian's mariadbd) in a fresh temporary folder, without TCP
 * networking, and creates an empty database in it. Up to `timeoutMs` for the server to answer.
 * @throws Error naming the Debian packages when MariaDB is not installed
 */
export async function startMariaDb(
  options: { database?: string; timeoutMs?: number } = {},
): Promise<MariaDb> {
  const database = options.database ?? 'harness';
  const installDb = findProgram(['mariadb-install-db', 'mysql_install_db']);
  const server = findProgram(['mariadbd', 'mysqld']);
  const client = findProgram(['mariadb', 'mysql']);
  const root = mkdtempSync(join(tmpdir(), 'cc-mariadb-'));
  const dataDir = join(root, 'data');
  const socket = join(root, 'mysqld.sock');
  const user = process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'root');
  execFileSync(
    installDb,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--user=${user}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { stdio: 'pipe' },
  );
  const child: ChildProcess = spawn(
    server,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--socket=${socket}`,
      '--skip-networking',
      `--user=${user}`,
      `--pid-file=${join(root, 'mysqld.pid')}`,
      `--log-error=${join(root, 'error.log')}`,
      '--innodb-buffer-pool-size=32M',
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const sql = (statement: string) =>
    spawnSync(client, ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', statement], {
      encoding: 'utf8',
    });

  const deadline = Date.now() + (options.timeoutMs ?? EVENT_DEADLINE_MS);
  for (;;) {
    if (exited) {
      const log = existsSync(join(root, 'error.log'))
        ? readFileSync(join(root, 'error.log'), 'utf8').slice(-2000)
        : '';
      rmSync(root, { recursive: true, force: true });
      throw new Error(`mariadbd exited before it answered. Its log ends:\n${log}`);
    }
    if (existsSync(socket) && sql('SELECT 1').status === 0) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
      throw new Error('MariaDB did not answer in time.');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const created = sql(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  if (created.status !== 0) throw new Error(`Creating database ${database} failed: ${created.stderr}`);

  return {
    socket,
    user: 'root',
    password: '',
    database,
    dsn: `mysql:unix_socket=${socket};dbname=${database};charset=utf8mb4`,
    async stop() {
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 20_000))]);
        if (!exited) child.kill('SIGKILL');
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
