<?php

declare(strict_types=1);

namespace CryptoCheckout\Client\Wallet;

use CryptoCheckout\Client\Support\Text;

/**
 * Wallet address validation, the port of @cryptocheckout/core's validateWalletAddress; both run
 * the conformance vectors in packages/core/vectors/addresses.json.
 *
 * Checks run in this order and the first failure wins: unknown_network (not a catalog id), empty,
 * whitespace (anywhere; nothing is trimmed), then the network family's own format (EVM, TRON,
 * Solana, Bitcoin). When that fails but the address is valid in another family, the answer is
 * wrong_network with detectedNetwork 'EVM', 'TRON', 'SOLANA' or 'BITCOIN'.
 */
final class AddressValidator
{
    private const COPY_AGAIN = 'Copy the address again from your wallet.';

    // ASCII whitespace, Unicode spaces, and the invisible characters that copy-paste brings along
    // (zero-width space/joiners, word joiner, byte-order mark): the same list as the TypeScript port.
    private const WHITESPACE = '[\x{09}-\x{0D}\x{20}\x{85}\x{A0}\x{1680}\x{180E}\x{2000}-\x{200D}\x{2028}\x{2029}\x{202F}\x{205F}\x{2060}\x{3000}\x{FEFF}]';

    private const FAMILY_ORDER = [Networks::FAMILY_EVM, Networks::FAMILY_TRON, Networks::FAMILY_SOLANA, Networks::FAMILY_BITCOIN];

    private const DETECTED = [
        Networks::FAMILY_EVM => 'EVM',
        Networks::FAMILY_TRON => 'TRON',
        Networks::FAMILY_SOLANA => 'SOLANA',
        Networks::FAMILY_BITCOIN => 'BITCOIN',
    ];

    private const DESCRIBED = [
        Networks::FAMILY_EVM => 'an EVM address (Ethereum, Polygon, Base, Arbitrum, BSC)',
        Networks::FAMILY_TRON => 'a TRON address',
        Networks::FAMILY_SOLANA => 'a Solana address',
        Networks::FAMILY_BITCOIN => 'a Bitcoin address',
    ];

    private const BITCOIN_MAINNET_HRP = 'bc';
    private const BITCOIN_HRPS = ['bc', 'tb', 'bcrt'];
    private const BASE58_FIRST_CHARACTERS = ['1', '3', 'm', 'n', '2'];
    private const BITCOIN_TESTNET_MESSAGE = 'This is a Bitcoin testnet address, which cannot receive real bitcoin. Use a mainnet address (it starts with 1, 3 or bc1).';

    private function __construct()
    {
    }

    /**
     * Validates $address as a mainnet receiving address on $network (a catalog id such as "POLYGON").
     * Strict: no trimming, no case folding except what the address format itself allows.
     *
     * @return array{valid: bool, address?: string, code?: string, message?: string, detectedNetwork?: string}
     *     valid: ['valid' => true, 'address' => canonical form to store (EIP-55 for EVM, lowercase bech32)];
     *     invalid: ['valid' => false, 'code' => ..., 'message' => ..., 'detectedNetwork' => ... (wrong_network only)]
     */
    public static function validate(string $network, string $address): array
    {
        $info = Networks::get($network);
        if ($info === null) {
            return self::invalid(
                'unknown_network',
                sprintf('Unknown network %s. Use one of: %s.', (string) json_encode($network, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), implode(', ', Networks::ids()))
            );
        }
        if ($address === '') {
            return self::invalid('empty', 'Enter the wallet address.');
        }
        if (self::hasWhitespace($address)) {
            return self::invalid(
                'whitespace',
                'The address contains spaces or invisible characters. Remove them, or copy the address again from your wallet.'
            );
        }
        $own = self::checkFamily($info['family'], $address);
        if ($own['ok']) {
            return ['valid' => true, 'address' => $own['canonical']];
        }
        foreach (self::FAMILY_ORDER as $family) {
            if ($family !== $info['family'] && self::checkFamily($family, $address)['ok']) {
                $result = self::invalid(
                    'wrong_network',
                    sprintf(
                        'This is %s, but the network is %s. Choose the network your wallet uses, or enter a %s address.',
                        self::DESCRIBED[$family],
                        $info['id'],
                        $info['name']
                    )
                );
                $result['detectedNetwork'] = self::DETECTED[$family];
                return $result;
            }
        }
        return self::invalid($own['code'], $own['message']);
    }

    /**
     * EIP-55 form of 40 lowercase hex digits: a letter is uppercased when the matching nibble of
     * keccak-256(lowercase hex text) is 8 or more.
     */
    public static function toChecksumAddress(string $lowercaseHex): string
    {
        $hash = Keccak::hash256Hex($lowercaseHex);
        $checksummed = '0x';
        $length = strlen($lowercaseHex);
        for ($i = 0; $i < $length; $i++) {
            $character = $lowercaseHex[$i];
            $checksummed .= hexdec($hash[$i]) >= 8 ? Text::asciiUpper($character) : $character;
        }
        return $checksummed;
    }

    private static function hasWhitespace(string $address): bool
    {
        if (Text::isUtf8($address)) {
            return preg_match('/' . self::WHITESPACE . '/u', $address) === 1;
        }
        return preg_match('/[\x09-\x0D\x20]/', $address) === 1;
    }

    /**
     * @return array{ok: bool, canonical?: string, code?: string, message?: string}
     */
    private static function checkFamily(string $family, string $address): array
    {
        switch ($family) {
            case Networks::FAMILY_EVM:
                return self::checkEvm($address);
            case Networks::FAMILY_TRON:
                return self::checkTron($address);
            case Networks::FAMILY_SOLANA:
                return self::checkSolana($address);
            default:
                return self::checkBitcoin($address);
        }
    }

    /** EVM: 0x + 40 hex digits; single-case is accepted, mixed case must carry a valid EIP-55 checksum. */
    private static function checkEvm(string $address): array
    {
        if (!Text::startsWith($address, '0x')) {
            return self::refuse('bad_format', 'An EVM address starts with 0x followed by 40 hexadecimal characters.');
        }
        $hex = substr($address, 2);
        $badCharacter = Text::firstMatch($hex, '[^0-9a-fA-F]');
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf('The address contains %s; after 0x an EVM address has only 0-9 and a-f. %s', Text::showCharacter($badCharacter), self::COPY_AGAIN)
            );
        }
        if (strlen($hex) !== 40) {
            return self::refuse(
                'bad_length',
                sprintf(
                    'The address is %s: it has %d characters after 0x, an EVM address has 40. %s',
                    strlen($hex) < 40 ? 'too short' : 'too long',
                    strlen($hex),
                    self::COPY_AGAIN
                )
            );
        }
        $lower = Text::asciiLower($hex);
        $checksummed = self::toChecksumAddress($lower);
        // A single-case address carries no checksum, so it cannot be checked, only normalised.
        $singleCase = $hex === $lower || $hex === Text::asciiUpper($hex);
        if ($singleCase || $address === $checksummed) {
            return ['ok' => true, 'canonical' => $checksummed];
        }
        return self::refuse(
            'checksum_mismatch',
            'The mix of capital and small letters does not match the address checksum (EIP-55), so a character was probably changed. ' . self::COPY_AGAIN
        );
    }

    /** TRON: base58check account address, T…, 34 characters, version byte 0x41. */
    private static function checkTron(string $address): array
    {
        if (!Text::startsWith($address, 'T')) {
            return self::refuse('bad_format', 'A TRON address starts with T and is 34 characters long.');
        }
        $badCharacter = Base58::firstInvalidCharacter($address);
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf('The address contains %s, which never appears in a TRON address (there is no 0, O, I or l). %s', Text::showCharacter($badCharacter), self::COPY_AGAIN)
            );
        }
        if (strlen($address) !== 34) {
            return self::refuse(
                'bad_length',
                sprintf(
                    'The address is %s: it has %d characters, a TRON address has 34. %s',
                    strlen($address) < 34 ? 'too short' : 'too long',
                    strlen($address),
                    self::COPY_AGAIN
                )
            );
        }
        $bytes = Base58::decode($address);
        if (strlen($bytes) !== 25) {
            return self::refuse('bad_format', 'This is not a TRON account address. ' . self::COPY_AGAIN);
        }
        if (!Base58::hasChecksum($bytes)) {
            return self::refuse('checksum_mismatch', 'The address checksum does not match, so a character was probably changed. ' . self::COPY_AGAIN);
        }
        if (ord($bytes[0]) !== 0x41) {
            return self::refuse('bad_format', 'This is not a TRON account address. ' . self::COPY_AGAIN);
        }
        return ['ok' => true, 'canonical' => $address];
    }

    /** Solana: base58 text of exactly 32 bytes (a public key or program address). */
    private static function checkSolana(string $address): array
    {
        $badCharacter = Base58::firstInvalidCharacter($address);
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf('The address contains %s, which never appears in a Solana address (there is no 0, O, I or l). %s', Text::showCharacter($badCharacter), self::COPY_AGAIN)
            );
        }
        // 32 bytes encode to 32 (all zero bytes) through 44 characters; skipping the decode outside
        // that range keeps huge inputs cheap.
        $tooShort = strlen($address) < 32;
        $tooLong = strlen($address) > 44;
        if (!$tooShort && !$tooLong) {
            $byteCount = strlen(Base58::decode($address));
            $tooShort = $byteCount < 32;
            $tooLong = $byteCount > 32;
        }
        if ($tooShort || $tooLong) {
            return self::refuse(
                'bad_length',
                sprintf('The address is %s for a Solana address, which is 32 to 44 characters long. %s', $tooShort ? 'too short' : 'too long', self::COPY_AGAIN)
            );
        }
        return ['ok' => true, 'canonical' => $address];
    }

    /**
     * Bitcoin mainnet: base58check P2PKH (1…) or P2SH (3…), segwit v0 in bech32 (bc1q…, 20- or
     * 32-byte program) or taproot v1 in bech32m (bc1p…, 32-byte program). Well-formed testnet and
     * regtest addresses are reported as testnet.
     */
    private static function checkBitcoin(string $address): array
    {
        // Case mapping stays within A-Z so that non-ASCII input gets the same verdict in every port.
        $lower = Text::asciiLower($address);
        foreach (self::BITCOIN_HRPS as $hrp) {
            if (Text::startsWith($lower, $hrp . '1')) {
                return self::checkSegwit($address, $hrp);
            }
        }
        return self::checkBitcoinBase58($address);
    }

    private static function checkSegwit(string $address, string $hrp): array
    {
        $lower = Text::asciiLower($address);
        // BIP-173 allows all-uppercase (compact QR codes) but never a mix, which hides transcription errors.
        if ($address !== $lower && $address !== Text::asciiUpper($address)) {
            return self::refuse(
                'bad_format',
                'The address mixes capital and small letters; a bc1 address is all small or all capital letters. ' . self::COPY_AGAIN
            );
        }
        $data = (string) substr($address, strlen($hrp) + 1);
        $badCharacter = Text::firstMatch($data, '[^qpzry9x8gf2tvdw0s3jn54khce6mua7lQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]');
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf(
                    'The address contains %s, which never appears after the bc1 prefix (there is no 1, b, i or o). %s',
                    Text::showCharacter($badCharacter),
                    self::COPY_AGAIN
                )
            );
        }
        if (strlen($lower) > 90) {
            return self::refuse('bad_length', 'The address is too long for a Bitcoin address. ' . self::COPY_AGAIN);
        }
        if (strlen($data) < 7) {
            return self::refuse('bad_length', 'The address is too short for a Bitcoin address. ' . self::COPY_AGAIN);
        }
        $asBech32 = Bech32::decode($lower, Bech32::BECH32);
        $asBech32m = Bech32::decode($lower, Bech32::BECH32M);
        $decoded = $asBech32 ?? $asBech32m;
        if ($decoded === null) {
            return self::refuse('checksum_mismatch', 'The address checksum does not match, so a character was probably changed. ' . self::COPY_AGAIN);
        }
        $version = $decoded['words'][0] ?? null;
        if ($version === null || $version > 16) {
            return self::refuse('bad_format', 'This is not a valid Bitcoin segwit address. ' . self::COPY_AGAIN);
        }
        // BIP-350: version 0 keeps the original bech32 checksum, every later version must use bech32m.
        if ($version === 0 && $asBech32 === null) {
            return self::refuse('checksum_mismatch', 'The address uses the bech32m checksum, but a bc1q address must use bech32. ' . self::COPY_AGAIN);
        }
        if ($version > 0 && $asBech32m === null) {
            return self::refuse(
                'checksum_mismatch',
                sprintf('The address uses the old bech32 checksum, but a segwit v%d address must use bech32m. %s', $version, self::COPY_AGAIN)
            );
        }
        $program = Bech32::wordsToBytes(array_slice($decoded['words'], 1));
        if ($program === null) {
            return self::refuse('bad_format', 'This is not a valid Bitcoin segwit address. ' . self::COPY_AGAIN);
        }
        if ($version === 0 && strlen($program) !== 20 && strlen($program) !== 32) {
            return self::refuse('bad_length', 'The address has the wrong length for a bc1q address. ' . self::COPY_AGAIN);
        }
        if ($version === 1 && strlen($program) !== 32) {
            return self::refuse('bad_length', 'The address has the wrong length for a bc1p (taproot) address. ' . self::COPY_AGAIN);
        }
        // Versions 2-16 are reserved for future upgrades; coins sent there today can be taken by anyone.
        if ($version > 1) {
            return self::refuse(
                'bad_format',
                sprintf('The address uses segwit version %d, which Bitcoin does not use yet; a payment to it could be lost.', $version)
            );
        }
        if ($hrp !== self::BITCOIN_MAINNET_HRP) {
            return self::refuse('testnet', self::BITCOIN_TESTNET_MESSAGE);
        }
        return ['ok' => true, 'canonical' => $lower];
    }

    private static function checkBitcoinBase58(string $address): array
    {
        // Mainnet 1 (P2PKH) and 3 (P2SH); testnet m, n (P2PKH) and 2 (P2SH) pass on so they can be named as testnet.
        if (!in_array($address[0], self::BASE58_FIRST_CHARACTERS, true)) {
            return self::refuse('bad_format', 'This is not a Bitcoin address; a Bitcoin address starts with 1, 3 or bc1.');
        }
        $badCharacter = Base58::firstInvalidCharacter($address);
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf(
                    'The address contains %s, which never appears in a Bitcoin address starting with 1 or 3 (there is no 0, O, I or l). %s',
                    Text::showCharacter($badCharacter),
                    self::COPY_AGAIN
                )
            );
        }
        $bytes = strlen($address) > 35 ? null : Base58::decode($address);
        if ($bytes === null || strlen($bytes) !== 25) {
            $shape = $bytes !== null && strlen($bytes) < 25 ? 'too short' : 'too long';
            return self::refuse('bad_length', sprintf('The address is %s for a Bitcoin address. %s', $shape, self::COPY_AGAIN));
        }
        if (!Base58::hasChecksum($bytes)) {
            return self::refuse('checksum_mismatch', 'The address checksum does not match, so a character was probably changed. ' . self::COPY_AGAIN);
        }
        $version = ord($bytes[0]);
        if ($version === 0x00 || $version === 0x05) {
            return ['ok' => true, 'canonical' => $address];
        }
        if ($version === 0x6f || $version === 0xc4) {
            return self::refuse('testnet', self::BITCOIN_TESTNET_MESSAGE);
        }
        return self::refuse('bad_format', 'This is not a Bitcoin address; a Bitcoin address starts with 1, 3 or bc1.');
    }

    /** @return array{ok: false, code: string, message: string} */
    private static function refuse(string $code, string $message): array
    {
        return ['ok' => false, 'code' => $code, 'message' => $message];
    }

    /** @return array{valid: false, code: string, message: string} */
    private static function invalid(string $code, string $message): array
    {
        return ['valid' => false, 'code' => $code, 'message' => $message];
    }
}
