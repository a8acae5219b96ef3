<?php

declare(strict_types=1);

namespace CryptoCheckout\KernelTest;

use CryptoCheckout\Client\Exception\CryptoCheckoutException;
use CryptoCheckout\Client\Kernel\Claim;
use CryptoCheckout\Client\Kernel\PollPolicy;

/**
 * Plays a list of events against one World and reports what happened, for the property tests:
 * the generator (TypeScript, fast-check) chooses the events, this file only carries them out.
 *
 * Events: {"do":"open","order":"1","amount":"25.00"} · {"do":"pay","order":"1","usd":"27.00","status":"settled"}
 * (pays the order's newest checkout) · {"do":"expire","order":"1"} · {"do":"webhook","order":"1"} ·
 * {"do":"poll"} · {"do":"return","order":"1"} · {"do":"cancel_by_hand","order":"1"} · {"do":"wait","seconds":60} (then a scheduled poll) ·
 * {"do":"down"} / {"do":"up"} · {"do":"crash_at","call":3} (the next run dies before its 3rd port call).
 */
final class Scenario
{
    /**
     * @param list<array<string, mixed>> $events
     * @return array{orders: array<string, array<string, mixed>>, outcomes: list<string>, crashes: int, settledFull: array<string, bool>}
     */
    public static function play(array $events): array
    {
        $world = new World();
        $outcomes = [];
        $crashes = 0;
        // Per code: whether the service ever reported it settled with received >= due.
        $settledFull = [];
        foreach ($events as $event) {
            $order = isset($event['order']) ? (string) $event['order'] : '1';
            try {
                switch ($event['do']) {
                    case 'open':
                        if (!isset($world->port->orders[$order])) {
                            $world->port->addOrder($order);
                        }
                        $outcomes[] = 'open:' . $world->opener->open($order, $world->terms($order, (string) ($event['amount'] ?? '25.00')))['result'];
                        break;
                    case 'pay':
                        $code = self::newestCode($world, $order);
                        $current = $code === null ? null : $world->service->transactions[$code]['status'];
                        if ($code !== null && $current !== 'settled') {
                            // The service's status never goes back from settled; after expiry only a
                            // full payment settles (late), a partial one leaves it expired.
                            $usd = (string) $event['usd'];
                            $status = (string) $event['status'];
                            $late = $current === 'expired';
                            if ($late && $status !== 'settled') {
                                $status = 'expired';
                            }
                            $world->pay($code, $usd, $status, $late);
                            $due = (string) $world->service->transactions[$code]['amount_in_usd'];
                            if ($status === 'settled' && (float) $usd >= (float) $due) {
                                // (floats only label the test's oracle; the kernel compares decimals)
                                $settledFull[$code] = true;
                            }
                        }
                        break;
                    case 'webhook':
                        $code = self::newestCode($world, $order);
                        if ($code !== null) {
                            $outcomes[] = 'webhook:' . $world->webhooks->handle('POST', $world->webhookBody($code))['reply']->status;
                        }
                        break;
                    case 'poll':
                        foreach ($world->runner->poll(new PollPolicy()) as $outcome) {
                            $outcomes[] = 'poll:' . $outcome->result;
                        }
                        break;
                    case 'return':
                        if (isset($world->port->orders[$order])) {
                            $outcomes[] = 'return:' . $world->runner->run($order, 'return')->result;
                        }
                        break;
                    case 'cancel_by_hand':
                        if (isset($world->port->orders[$order]) && $world->port->orders[$order]['state'] !== 'paid') {
                            $world->port->orders[$order]['state'] = 'cancelled';
                        }
                        break;
                    case 'wait':
                        // Time passes and the shop's scheduled poll runs, as cron does.
                        $world->clock->now += (int) $event['seconds'];
                        foreach ($world->runner->poll(new PollPolicy()) as $outcome) {
                            $outcomes[] = 'poll:' . $outcome->result;
                        }
                        break;
                    case 'down':
                        $world->service->down = true;
                        break;
                    case 'up':
                        $world->service->down = false;
                        break;
                    case 'crash_at':
                        $world->port->crashAtCall = count($world->port->calls) + (int) $event['call'];
                        break;
                }
            } catch (SimulatedCrash $crash) {
                $crashes++;
                $outcomes[] = 'crash';
            } catch (CryptoCheckoutException $unavailable) {
                // Opening a checkout while the service is down: the shop shows an error.
                $outcomes[] = 'error';
            }
        }
        // Afterwards the service stays up and time passes beyond every claim's lease: two polls
        // must leave nothing half done.
        $world->service->down = false;
        $world->port->crashAtCall = 0;
        for ($round = 0; $round < 2; $round++) {
            $world->clock->now += Claim::LEASE_SECONDS + 600;
            foreach ($world->runner->poll(new PollPolicy(500)) as $outcome) {
                $outcomes[] = 'final:' . $outcome->result;
            }
        }
        // And each buyer comes back once: a claim left by a run that died after its work was done
        // (nothing left to watch) is cleared by the next run on that order.
        foreach (array_keys($world->port->orders) as $id) {
            $outcomes[] = 'final:' . $world->runner->run((string) $id, 'return')->result;
        }
        $orders = [];
        foreach ($world->port->orders as $id => $data) {
            $orders[(string) $id] = [
                'state' => $data['state'],
                'payments' => $data['payments'],
                'codes' => array_keys($data['checkouts']),
                'claim' => $data['claim'],
                'owner_notes' => count(array_filter($data['notes'], static function (string $note): bool {
                    return strpos($note, 'owner: ') === 0;
                })),
            ];
        }
        return ['orders' => $orders, 'outcomes' => $outcomes, 'crashes' => $crashes, 'settledFull' => $settledFull];
    }

    private static function newestCode(World $world, string $order): ?string
    {
        if (!isset($world->port->orders[$order])) {
            return null;
        }
        $checkouts = $world->port->checkouts($order);
        return $checkouts === [] ? null : $checkouts[0]->transactionCode;
    }
}
