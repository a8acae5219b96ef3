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
 * {"do":"down"} / {"do":"up"} · {"do":"crash_at","call":3} (the request dies before its 3rd step: a
 * platform call or an SQL statement).
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
                        if (!isset($world->orders->orders[$order])) {
                            $world->orders->addOrder($order);
                        }
                        $outcomes[] = 'open:' . $world->kernel->open($order, $world->terms($order, (string) ($event['amount'] ?? '25.00')))['result'];
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
                            $outcomes[] = 'webhook:' . $world->webhook($code)['reply']->status;
                        }
                        break;
                    case 'poll':
                        foreach ($world->kernel->poll(new PollPolicy()) as $outcome) {
                            $outcomes[] = 'poll:' . $outcome->result;
                        }
                        break;
                    case 'return':
                        if (isset($world->orders->orders[$order])) {
                            $outcomes[] = 'return:' . $world->kernel->check($order, 'return', 0)->result;
                        }
                        break;
                    case 'cancel_by_hand':
                        if (isset($world->orders->orders[$order]) && $world->orders->orders[$order]['status'] !== 'paid') {
                            $world->orders->setStatus($order, 'cancelled');
                        }
                        break;
                    case 'wait':
                        // Time passes and the shop's scheduled poll runs, as cron does.
                        $world->clock->now += (int) $event['seconds'];
                        foreach ($world->kernel->poll(new PollPolicy()) as $outcome) {
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
                        $world->steps->crashAt = $world->steps->count() + (int) $event['call'];
                        break;
                }
            } catch (SimulatedCrash $crash) {
                $crashes++;
                $outcomes[] = 'crash';
                $world->steps->revive();
            } catch (CryptoCheckoutException $unavailable) {
                // Opening a checkout while the service is down: the shop shows an error.
                $outcomes[] = 'error';
            }
        }
        // Afterwards the service stays up and time passes beyond every claim's lease: two polls
        // must leave nothing half done.
        $world->service->down = false;
        $world->steps->crashAt = 0;
        for ($round = 0; $round < 2; $round++) {
            $world->clock->now += Claim::LEASE_SECONDS + 600;
            foreach ($world->kernel->poll(new PollPolicy(500)) as $outcome) {
                $outcomes[] = 'final:' . $outcome->result;
            }
        }
        $orders = [];
        foreach ($world->orders->orders as $id => $data) {
            $orders[(string) $id] = [
                'state' => $world->state((string) $id),
                'payments' => $data['payments'],
                'codes' => array_map(static function ($checkout): string {
                    return $checkout->transactionCode;
                }, $world->ledger->checkouts((string) $id)),
                'claimed' => $world->ledger->isClaimed((string) $id, $world->clock->now),
                'owner_notes' => count(array_filter($data['notes'], static function (string $note): bool {
                    return strpos($note, 'owner: ') === 0;
                })),
            ];
        }
        return ['orders' => $orders, 'outcomes' => $outcomes, 'crashes' => $crashes, 'settledFull' => $settledFull];
    }

    private static function newestCode(World $world, string $order): ?string
    {
        if (!isset($world->orders->orders[$order])) {
            return null;
        }
        $checkouts = $world->ledger->checkouts($order);
        return $checkouts === [] ? null : $checkouts[0]->transactionCode;
    }
}
