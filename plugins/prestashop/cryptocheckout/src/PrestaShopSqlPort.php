<?php
/**
 * Crypto Checkout for PrestaShop
 *
 * @license MIT
 */

declare(strict_types=1);

namespace CryptoCheckout\PrestaShop;

use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Ledger\SqlPort;
use CryptoCheckout\PrestaShop\Vendor\Client\Kernel\Ledger\SqlText;

/**
 * The kernel's ledger over PrestaShop's Db. Db binds no parameters, so each '?' becomes a literal
 * quoted with pSQL() (HTML allowed: pSQL() would otherwise strip tags from the value). Db either
 * returns false or throws PrestaShopException on an error (it throws with PDO, and in debug mode);
 * both become the \RuntimeException the ledger expects. Nothing goes through Db's query cache.
 */
final class PrestaShopSqlPort implements SqlPort
{
    public function table(string $name): string
    {
        return _DB_PREFIX_ . $name;
    }

    public function select(string $sql, array $parameters = []): array
    {
        return array_values($this->run('executeS', $sql, $parameters));
    }

    public function execute(string $sql, array $parameters = []): int
    {
        $this->run('execute', $sql, $parameters);

        return \Db::getInstance()->Affected_Rows();
    }

    /** @return array|true what Db::executeS() or Db::execute() returned (without Db's cache), unless false */
    private function run(string $method, string $sql, array $parameters)
    {
        $db = \Db::getInstance();
        $query = SqlText::inline($sql, $parameters, static function (string $value): string {
            return "'" . pSQL($value, true) . "'";
        });
        try {
            $result = $method === 'executeS' ? $db->executeS($query, true, false) : $db->execute($query, false);
        } catch (\PrestaShopException $exception) {
            throw new \RuntimeException($exception->getMessage(), 0, $exception);
        }
        if ($result === false) {
            throw new \RuntimeException('The database refused the statement: ' . $db->getMsgError());
        }

        return $result;
    }
}
