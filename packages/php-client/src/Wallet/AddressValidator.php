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

    private const COPY_KEY_AGAIN = 'Copy the key again from your wallet.';
    private const COPY_DESCRIPTOR_AGAIN = 'Copy the descriptor again from your wallet.';
    private const PRIVATE_KEY_MESSAGE = 'This is a private key, which must never be shared: anyone who has it can spend the bitcoin of this wallet. Enter the extended public key (xpub or zpub) instead, from your wallet\'s "receive" or "account keys" view.';
    private const TESTNET_KEY_MESSAGE = 'This is a Bitcoin testnet key, which cannot receive real bitcoin. Use the mainnet extended public key (it starts with xpub, ypub or zpub).';
    private const UNSUPPORTED_DESCRIPTOR_MESSAGE = 'Only single-key receive descriptors are accepted: wpkh(KEY/0/*), sh(wpkh(KEY/0/*)) or tr(KEY/0/*), where KEY is an xpub, ypub or zpub, optionally preceded by its [fingerprint/path] origin. Export the receive descriptor of a single-signature wallet, or enter its xpub or zpub.';
    private const MULTISIG_KEY_MESSAGE = 'This is a multisig extended key (Ypub, Zpub), which this checkout cannot receive to. Enter the xpub or zpub of a single-signature wallet.';

    // SLIP-0132 version bytes => [prefix, kind]. Only the three mainnet single-signature public
    // versions are accepted; the others are listed so that the message can say what the key is.
    private const KEY_VERSIONS = [
        0x0488b21e => ['xpub', 'mainnet'],
        0x049d7cb2 => ['ypub', 'mainnet'],
        0x04b24746 => ['zpub', 'mainnet'],
        0x043587cf => ['tpub', 'testnet'],
        0x044a5262 => ['upub', 'testnet'],
        // Not registered, but named as upub in the issue; refusing it as testnet costs nothing.
        0x044a5256 => ['upub', 'testnet'],
        0x045f1cf6 => ['vpub', 'testnet'],
        0x024289ef => ['Upub', 'testnet'],
        0x02575483 => ['Vpub', 'testnet'],
        0x0295b43f => ['Ypub', 'multisig'],
        0x02aa7ed3 => ['Zpub', 'multisig'],
        0x0488ade4 => ['xprv', 'private'],
        0x049d7878 => ['yprv', 'private'],
        0x04b2430c => ['zprv', 'private'],
        0x04358394 => ['tprv', 'private'],
        0x044a4e28 => ['uprv', 'private'],
        0x045f18bc => ['vprv', 'private'],
        0x024285b5 => ['Uprv', 'private'],
        0x02575048 => ['Vprv', 'private'],
        0x0295b005 => ['Yprv', 'private'],
        0x02aa7a99 => ['Zprv', 'private'],
    ];
    // The text of every extended key starts with its version's prefix, so these are recognisable even when damaged.
    private const EXTENDED_KEY_START = '/\A[xyztuvUVYZ](?:pub|prv)/';
    private const PRIVATE_KEY_START = '/\A[xyztuvUVYZ]prv/';
    // The script functions accepted, outermost first: [opening, closing, scheme].
    private const DESCRIPTOR_WRAPPERS = [
        ['sh(wpkh(', '))', 'p2sh-p2wpkh'],
        ['wpkh(', ')', 'p2wpkh'],
        ['tr(', ')', 'p2tr'],
    ];
    // [8 hex digits of the master fingerprint, then /NUM steps, each hardened with h or ' or not].
    private const KEY_ORIGIN = '/\A\[[0-9a-fA-F]{8}((?:\/[0-9]{1,10}[\'h]?)*)\]/';
    // The receive chain: none (meaning /0/*), /0/*, or BIP389's /<0;1>/* whose first path is the receive chain.
    private const RECEIVE_CHAINS = ['', '/0/*', '/<0;1>/*'];

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
     * regtest addresses are reported as testnet. Or a receiving key: see checkBitcoinKey().
     */
    private static function checkBitcoin(string $address): array
    {
        // Text shaped like an extended key or an output descriptor is a receiving key, never an address.
        if (self::looksLikeBitcoinKey($address)) {
            return self::checkBitcoinKey($address);
        }
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

    private static function looksLikeBitcoinKey(string $text): bool
    {
        return preg_match(self::EXTENDED_KEY_START, $text) === 1
            || strpos($text, '(') !== false
            || Text::startsWith($text, '[')
            || self::isWifPrivateKey($text);
    }

    /**
     * A mainnet receiving key, kept as entered: an xpub, ypub or zpub (BIP32 serialization,
     * base58check, 78 bytes, key byte 02 or 03), or the descriptor wpkh(KEY), sh(wpkh(KEY)) or tr(KEY)
     * where KEY is such a key with an optional [fingerprint/path] origin and the receive chain /0/* or
     * /<0;1>/* (none means /0/*), with an optional BIP380 #checksum that must match. Private keys
     * anywhere in the text are refused first (private_key), testnet keys as testnet. Byte-level checks
     * only: whether the key is a point on the curve is left to the server.
     */
    private static function checkBitcoinKey(string $text): array
    {
        if (self::containsPrivateKey($text)) {
            return self::refuse('private_key', self::PRIVATE_KEY_MESSAGE);
        }
        $isDescriptor = strpos($text, '(') !== false || strpos($text, '[') !== false || strpos($text, '#') !== false;
        return $isDescriptor ? self::checkDescriptor($text) : self::checkExtendedKey($text);
    }

    // Private material is named before anything else: the writer must learn it leaked, whatever else is wrong.
    private static function containsPrivateKey(string $text): bool
    {
        foreach ((array) preg_split('/[^1-9A-HJ-NP-Za-km-z]+/', $text) as $token) {
            if (preg_match(self::PRIVATE_KEY_START, (string) $token) === 1 || self::isWifPrivateKey((string) $token)) {
                return true;
            }
        }
        return false;
    }

    /** Wallet import format: version 0x80 or 0xef, 32-byte key, 0x01 when compressed, checksum. */
    private static function isWifPrivateKey(string $text): bool
    {
        $length = strlen($text);
        if (($length !== 51 && $length !== 52) || Base58::firstInvalidCharacter($text) !== null) {
            return false;
        }
        $bytes = Base58::decode($text);
        $byteCount = strlen($bytes);
        if (($byteCount !== 37 && $byteCount !== 38) || !Base58::hasChecksum($bytes)) {
            return false;
        }
        $version = ord($bytes[0]);
        return ($version === 0x80 || $version === 0xef) && ($byteCount === 37 || ord($bytes[33]) === 0x01);
    }

    private static function checkExtendedKey(string $key): array
    {
        $badCharacter = Base58::firstInvalidCharacter($key);
        if ($badCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf(
                    'The key contains %s, which never appears in an extended public key (there is no 0, O, I or l). %s',
                    Text::showCharacter($badCharacter),
                    self::COPY_KEY_AGAIN
                )
            );
        }
        $bytes = strlen($key) > 120 ? null : Base58::decode($key);
        if ($bytes === null || strlen($bytes) !== 82) {
            $shape = $bytes !== null && strlen($bytes) < 82 ? 'too short' : 'too long';
            return self::refuse(
                'bad_length',
                sprintf('The key is %s for an extended public key, which is 111 characters long. %s', $shape, self::COPY_KEY_AGAIN)
            );
        }
        if (!Base58::hasChecksum($bytes)) {
            return self::refuse('checksum_mismatch', 'The key checksum does not match, so a character was probably changed. ' . self::COPY_KEY_AGAIN);
        }
        $version = (int) unpack('N', substr($bytes, 0, 4))[1];
        $kind = self::KEY_VERSIONS[$version][1] ?? null;
        if ($kind === 'private') {
            return self::refuse('private_key', self::PRIVATE_KEY_MESSAGE);
        }
        if ($kind === 'testnet') {
            return self::refuse('testnet', self::TESTNET_KEY_MESSAGE);
        }
        if ($kind === 'multisig') {
            return self::refuse('bad_format', self::MULTISIG_KEY_MESSAGE);
        }
        if ($kind === null) {
            return self::refuse('bad_format', 'This is not a Bitcoin extended public key; it starts with xpub, ypub or zpub. ' . self::COPY_KEY_AGAIN);
        }
        $keyByte = ord($bytes[45]);
        // A depth-0 (master) key has no parent and no child number (BIP32); a public key starts with 02 or 03.
        $masterWithParent = ord($bytes[4]) === 0 && substr($bytes, 5, 8) !== str_repeat("\x00", 8);
        if (($keyByte !== 0x02 && $keyByte !== 0x03) || $masterWithParent) {
            return self::refuse('bad_format', 'This extended public key is damaged: its content is not a valid public key. ' . self::COPY_KEY_AGAIN);
        }
        return ['ok' => true, 'canonical' => $key];
    }

    /** Output descriptors (BIP380-386, BIP389 for <0;1>). */
    private static function checkDescriptor(string $text): array
    {
        $hash = strpos($text, '#');
        $body = $hash === false ? $text : substr($text, 0, $hash);
        if ($hash !== false) {
            $problem = self::checkDescriptorChecksum($body, (string) substr($text, $hash + 1));
            if ($problem !== null) {
                return $problem;
            }
        }
        $keyExpression = null;
        foreach (self::DESCRIPTOR_WRAPPERS as [$open, $close]) {
            $minimum = strlen($open) + strlen($close);
            if (strlen($body) >= $minimum && Text::startsWith($body, $open) && substr($body, -strlen($close)) === $close) {
                $keyExpression = substr($body, strlen($open), strlen($body) - $minimum);
                break;
            }
        }
        if ($keyExpression === null) {
            return self::refuse('bad_format', self::UNSUPPORTED_DESCRIPTOR_MESSAGE);
        }
        if (preg_match(self::KEY_ORIGIN, $keyExpression, $origin) === 1) {
            foreach (array_slice(explode('/', $origin[1]), 1) as $step) {
                if ((int) rtrim($step, "h'") >= 0x80000000) {
                    return self::refuse('bad_format', self::UNSUPPORTED_DESCRIPTOR_MESSAGE);
                }
            }
            $keyExpression = (string) substr($keyExpression, strlen($origin[0]));
        }
        $slash = strpos($keyExpression, '/');
        $key = $slash === false ? $keyExpression : substr($keyExpression, 0, $slash);
        $chain = $slash === false ? '' : substr($keyExpression, $slash);
        // Letters and digits only: a typo inside the key is then reported by the key check, anything
        // else (a comma of a second key or script, a parenthesis too many) as an unsupported descriptor.
        if (
            preg_match(self::EXTENDED_KEY_START, $key) !== 1
            || preg_match('/\A[0-9A-Za-z]+\z/', $key) !== 1
            || !in_array($chain, self::RECEIVE_CHAINS, true)
        ) {
            return self::refuse('bad_format', self::UNSUPPORTED_DESCRIPTOR_MESSAGE);
        }
        $checked = self::checkExtendedKey($key);
        return $checked['ok'] ? ['ok' => true, 'canonical' => $text] : $checked;
    }

    /** @return array{ok: false, code: string, message: string}|null */
    private static function checkDescriptorChecksum(string $body, string $checksum): ?array
    {
        // Characters first, so that the length counts ASCII characters in every port.
        $badChecksumCharacter = Text::firstMatch($checksum, '[^qpzry9x8gf2tvdw0s3jn54khce6mua7l]');
        if ($badChecksumCharacter !== null) {
            return self::refuse(
                'bad_character',
                sprintf(
                    'The descriptor checksum contains %s, which never appears in a checksum (there is no 1, b, i or o, and no capital letter). %s',
                    Text::showCharacter($badChecksumCharacter),
                    self::COPY_DESCRIPTOR_AGAIN
                )
            );
        }
        if (strlen($checksum) !== 8) {
            return self::refuse('bad_length', 'The descriptor checksum after # must be 8 characters long. ' . self::COPY_DESCRIPTOR_AGAIN);
        }
        $expected = DescriptorChecksum::of($body);
        if ($expected === null) {
            $rest = (string) substr($body, strspn($body, DescriptorChecksum::INPUT_CHARSET));
            $badCharacter = Text::isUtf8($rest) && preg_match('/\A./su', $rest, $match) === 1 ? $match[0] : $rest[0];
            return self::refuse(
                'bad_character',
                sprintf('The descriptor contains %s, which never appears in a descriptor. %s', Text::showCharacter($badCharacter), self::COPY_DESCRIPTOR_AGAIN)
            );
        }
        if (!hash_equals($expected, $checksum)) {
            return self::refuse('checksum_mismatch', 'The descriptor checksum (after #) does not match, so a character was probably changed. ' . self::COPY_DESCRIPTOR_AGAIN);
        }
        return null;
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
