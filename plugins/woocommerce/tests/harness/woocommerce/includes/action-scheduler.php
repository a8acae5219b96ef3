<?php
/**
 * Harness (Action Scheduler 3.9, bundled with WooCommerce 10.0): the public as_* functions the
 * plugin uses, over a small store. action_scheduler_init fires on init (priority 1), as the real
 * library does; wc_harness_run_due_actions() plays the queue runner.
 */

defined('ABSPATH') || exit;

add_action('init', static function () {
    do_action('action_scheduler_init');
}, 1);

function wc_harness_as_actions(): array
{
    $actions = get_option('wc_harness_as_actions', []);
    return is_array($actions) ? $actions : [];
}

function wc_harness_as_save(array $actions): void
{
    update_option('wc_harness_as_actions', $actions, false);
}

function as_schedule_recurring_action($timestamp, $interval_in_seconds, $hook, $args = [], $group = '', $unique = false, $priority = 10)
{
    if (!did_action('action_scheduler_init')) {
        _doing_it_wrong(__FUNCTION__, 'as_schedule_recurring_action() was called before the Action Scheduler data store was initialized', '3.1.6'); // phpcs:ignore
        return 0;
    }
    if ($unique && as_next_scheduled_action($hook, $args, $group) !== false) {
        return 0;
    }
    $actions = wc_harness_as_actions();
    $id = (int) get_option('wc_harness_as_next_id', 1);
    update_option('wc_harness_as_next_id', $id + 1, false);
    $actions[$id] = ['hook' => $hook, 'args' => (array) $args, 'group' => (string) $group, 'timestamp' => (int) $timestamp, 'interval' => (int) $interval_in_seconds, 'status' => 'pending'];
    wc_harness_as_save($actions);
    return $id;
}

function as_schedule_single_action($timestamp, $hook, $args = [], $group = '', $unique = false, $priority = 10)
{
    $id = as_schedule_recurring_action($timestamp, 0, $hook, $args, $group, $unique, $priority);
    return $id;
}

function as_enqueue_async_action($hook, $args = [], $group = '', $unique = false, $priority = 10)
{
    return as_schedule_single_action(time(), $hook, $args, $group, $unique, $priority);
}

function as_next_scheduled_action($hook, $args = null, $group = '')
{
    foreach (wc_harness_as_actions() as $action) {
        if ($action['hook'] !== $hook || ($group !== '' && $action['group'] !== $group) || ($args !== null && $action['args'] !== (array) $args)) {
            continue;
        }
        if ($action['status'] === 'in-progress') {
            return true;
        }
        if ($action['status'] === 'pending') {
            return (int) $action['timestamp'];
        }
    }
    return false;
}

function as_unschedule_all_actions($hook, $args = [], $group = '')
{
    $actions = wc_harness_as_actions();
    foreach ($actions as $id => $action) {
        if ($action['hook'] === $hook && ($group === '' || $action['group'] === $group) && (empty($args) || $action['args'] === (array) $args) && $action['status'] === 'pending') {
            $actions[$id]['status'] = 'canceled';
        }
    }
    wc_harness_as_save($actions);
}

/** Harness: runs every pending action due at $now and reschedules recurring ones; returns the hooks run. */
function wc_harness_run_due_actions(?int $now = null): array
{
    $now = $now ?? time();
    $ran = [];
    foreach (wc_harness_as_actions() as $id => $action) {
        if ($action['status'] !== 'pending' || $action['timestamp'] > $now) {
            continue;
        }
        $actions = wc_harness_as_actions();
        $actions[$id]['status'] = 'in-progress';
        wc_harness_as_save($actions);
        do_action_ref_array($action['hook'], array_values($action['args']));
        $actions = wc_harness_as_actions();
        $actions[$id]['status'] = 'complete';
        wc_harness_as_save($actions);
        if ($action['interval'] > 0) {
            as_schedule_recurring_action($now + $action['interval'], $action['interval'], $action['hook'], $action['args'], $action['group']);
        }
        $ran[] = $action['hook'];
    }
    return $ran;
}
