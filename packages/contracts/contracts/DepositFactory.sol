// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {DepositForwarder} from "./DepositForwarder.sol";

/// @title Deposit addresses for checkouts, and their forwards to the merchants' wallets.
/// @notice A checkout's deposit address is the CREATE2 address of a DepositForwarder clone whose
/// immutable argument is the merchant's wallet, under a salt that names the checkout. It is known
/// before anything is deployed; the first forward deploys it. No function takes a destination:
/// money at a deposit address can only go to the wallet that fixed the address.
contract DepositFactory {
    /// @notice The code every deposit address runs (through a minimal clone).
    address public immutable implementation;

    /// @notice One deposit to forward: the checkout's salt, the merchant's wallet, the token.
    struct Deposit {
        address merchant;
        bytes32 salt;
        IERC20 token;
    }

    /// @notice A forward in a batch failed (its token reverted); the others went ahead.
    event ForwardFailed(address indexed depositAddress, IERC20 indexed token, bytes reason);

    /// @notice A deposit address must pay someone.
    error ZeroMerchant();

    constructor() {
        implementation = address(new DepositForwarder());
    }

    /// @notice The deposit address for `merchant` and `salt`, deployed or not.
    function depositAddress(address merchant, bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddressWithImmutableArgs(implementation, abi.encode(merchant), salt);
    }

    /// @notice Deploys the deposit address when it has no code yet and forwards its `token` balance.
    /// @return amount What was forwarded (0 when there was nothing).
    function forward(address merchant, bytes32 salt, IERC20 token) public returns (uint256 amount) {
        address deposit = deploy(merchant, salt);
        return DepositForwarder(deposit).forward(token);
    }

    /// @notice Deploys the deposit address when needed and forwards the chain's own coin it holds
    /// (a buyer who sent ETH or POL instead of a token).
    function forwardNative(address merchant, bytes32 salt) external returns (uint256 amount) {
        address deposit = deploy(merchant, salt);
        return DepositForwarder(deposit).forwardNative();
    }

    /// @notice `forward` for several deposits in one transaction. A deposit whose token reverts is
    /// reported by ForwardFailed and skipped, so one bad token cannot hold back the others.
    /// @return amounts What each deposit forwarded (0 for a failed or empty one).
    function forwardBatch(Deposit[] calldata deposits) external returns (uint256[] memory amounts) {
        amounts = new uint256[](deposits.length);
        for (uint256 index = 0; index < deposits.length; index++) {
            Deposit calldata item = deposits[index];
            address deposit = deploy(item.merchant, item.salt);
            try DepositForwarder(deposit).forward(item.token) returns (uint256 amount) {
                amounts[index] = amount;
            } catch (bytes memory reason) {
                emit ForwardFailed(deposit, item.token, reason);
            }
        }
    }

    function deploy(address merchant, bytes32 salt) private returns (address deposit) {
        if (merchant == address(0)) revert ZeroMerchant();
        deposit = depositAddress(merchant, salt);
        if (deposit.code.length == 0) {
            Clones.cloneDeterministicWithImmutableArgs(implementation, abi.encode(merchant), salt);
        }
    }
}
