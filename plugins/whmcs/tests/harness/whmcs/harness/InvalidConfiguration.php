<?php
// Test harness (WHMCS 8.13): thrown by a module's _config_validate() to refuse saving its settings.

namespace WHMCS\Exception\Module;

class InvalidConfiguration extends \Exception
{
}
