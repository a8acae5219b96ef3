// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A 6-decimal ERC-20 like USDC: the deployer holds the supply.
contract StandardToken is ERC20 {
    constructor() ERC20("Test USD Coin", "USDC") {
        _mint(msg.sender, 10 ** 15);
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }
}

/// @notice USDT's shape on Ethereum: `transfer` returns nothing.
contract NoBoolToken {
    mapping(address => uint256) public balanceOf;

    constructor() {
        balanceOf[msg.sender] = 10 ** 15;
    }

    function transfer(address to, uint256 amount) external {
        require(balanceOf[msg.sender] >= amount, "balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
    }
}

/// @notice A token that reports failure instead of reverting: `transfer` moves nothing and returns false.
contract FalseToken {
    mapping(address => uint256) public balanceOf;

    constructor() {
        balanceOf[msg.sender] = 10 ** 15;
    }

    function give(address to, uint256 amount) external {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
    }

    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }
}
