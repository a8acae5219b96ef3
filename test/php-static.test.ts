import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkPhpSource, describeEachPhp, platformForPath } from '@cryptocheckout/php-testkit';
import { beforeAll, describe, expect, it } from 'vitest';

// Static checks over every PHP file of the repository, tracked or new (ignored files excluded):
// PHP 7.4 syntax, no short open tags, and the direct-access guard each platform expects.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

const phpFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.php'], {
  cwd: repoRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((path) => path !== '' && !/(^|\/)(node_modules|vendor)\//.test(path))
  .sort();

describe('PHP sources', () => {
  it('are found', () => {
    expect(phpFiles).toContain('packages/php-client/src/Client.php');
  });

  it.each(phpFiles)('%s follows the static rules', (path) => {
    const source = readFileSync(`${repoRoot}/${path}`, 'utf8');
    expect(checkPhpSource(path, source, platformForPath(path))).toEqual([]);
  });
});

// php-parser knows most of PHP 7.4, not all (it accepts union types, for one); the real
// interpreters settle whether each file parses on the oldest and the newest PHP we support.
describeEachPhp(
  'PHP sources parse in the interpreter',
  ({ php }) => {
    let errors: Record<string, string> = {};
    beforeAll(async () => {
      errors = (await php().runJson(
        `
        $errors = [];
        foreach (json_decode(file_get_contents('php://input'), true) as $path) {
          try {
            token_get_all(file_get_contents('/repo/' . $path), TOKEN_PARSE);
          } catch (ParseError $error) {
            $errors[$path] = $error->getMessage() . ' on line ' . $error->getLine();
          }
        }
        echo json_encode((object) $errors);
      `,
        { body: JSON.stringify(phpFiles) },
      )) as Record<string, string>;
    });

    it.each(phpFiles)('%s', (path) => {
      expect(errors[path]).toBeUndefined();
    });
  },
  { mounts: { '/repo': repoRoot } },
);
