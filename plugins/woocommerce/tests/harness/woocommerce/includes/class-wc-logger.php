<?php
/**
 * Harness (WooCommerce 10.0): WC_Logger with the file handler's layout, one file per source under
 * wp-content/uploads/wc-logs/ ("<ISO time> <LEVEL> <message>").
 */

defined('ABSPATH') || exit;

class WC_Logger
{
    public const LEVELS = ['emergency', 'alert', 'critical', 'error', 'warning', 'notice', 'info', 'debug'];

    public function log($level, $message, $context = [])
    {
        if (!in_array($level, self::LEVELS, true)) {
            wc_doing_it_wrong(__METHOD__, 'WC_Logger::log was called with an invalid level "' . $level . '".', '3.0');
            return;
        }
        $source = isset($context['source']) ? sanitize_file_name((string) $context['source']) : 'log';
        $dir = WP_CONTENT_DIR . '/uploads/wc-logs';
        wp_mkdir_p($dir);
        $line = gmdate('c') . ' ' . strtoupper($level) . ' ' . $message . "\n";
        file_put_contents($dir . '/' . $source . '.log', $line, FILE_APPEND | LOCK_EX);
    }

    public function emergency($message, $context = [])
    {
        $this->log('emergency', $message, $context);
    }

    public function alert($message, $context = [])
    {
        $this->log('alert', $message, $context);
    }

    public function critical($message, $context = [])
    {
        $this->log('critical', $message, $context);
    }

    public function error($message, $context = [])
    {
        $this->log('error', $message, $context);
    }

    public function warning($message, $context = [])
    {
        $this->log('warning', $message, $context);
    }

    public function notice($message, $context = [])
    {
        $this->log('notice', $message, $context);
    }

    public function info($message, $context = [])
    {
        $this->log('info', $message, $context);
    }

    public function debug($message, $context = [])
    {
        $this->log('debug', $message, $context);
    }
}
