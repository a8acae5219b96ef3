<?php
/** Harness (WooCommerce 10.0): WC_DateTime, class-wc-datetime.php (a DateTime in UTC unless told otherwise). */

defined('ABSPATH') || exit;

class WC_DateTime extends DateTime
{
    #[\ReturnTypeWillChange]
    public function __toString()
    {
        return $this->format(DATE_ATOM);
    }

    public function getOffsetTimestamp()
    {
        return $this->getTimestamp() + $this->getOffset();
    }
}
