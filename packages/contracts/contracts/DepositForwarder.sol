// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";

/// @title One checkout's deposit address.
/// @notice Deployed by DepositFactory as a minimal clone whose immutable argument is the merchant's
/// wallet: that wallet is part of the clone's code, so it fixes the CREATE2 address, and no call can
/// change it. Anyone may call `forward`; it can only ever pay that wallet.
contract DepositForwarder {
    using SafeERC20 for IERC20;

    /// @notice `amount` of `token` left this deposit address for `merchant`.
    event Forwarded(IERC20 indexed token, address indexed merchant, uint256 amount);

    /// @notice `amount` of the chain's own coin left this deposit address for `merchant`.
    event ForwardedNative(address indexed merchant, uint256 amount);

    /// @notice The merchant's wallet did not accept the chain's own coin.
    error NativeTransferFailed(address merchant, uint256 amount);

    /// @notice The wallet this deposit address pays: the clone's immutable argument.
    function merchant() public view returns (address wallet) {
        bytes memory args = Clones.fetchCloneArgs(address(this));
        wallet = abi.decode(args, (address));
    }

    /// @notice Pays the whole balance of `token` held here to the merchant; nothing happens when it is zero.
    /// @dev SafeERC20 accepts tokens that return no bool (USDT) and reverts on a token that returns false.
    function forward(IERC20 token) external returns (uint256 amount) {
        amount = token.balanceOf(address(this));
        if (amount == 0) return 0;
        address wallet = merchant();
        token.safeTransfer(wallet, amount);
        emit Forwarded(token, wallet, amount);
    }

    /// @notice Pays the chain's own coin held here (sent before the address had code) to the merchant.
    function forwardNative() external returns (uint256 amount) {
        amount = address(this).balance;
        if (amount == 0) return 0;
        address wallet = merchant();
        (bool sent, ) = wallet.call{value: amount}("");
        if (!sent) revert NativeTransferFailed(wallet, amount);
        emit ForwardedNative(wallet, amount);
    }
}
