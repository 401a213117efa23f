import { createEventBus, type EventBus } from './platform/events.js';
import { alertsSubscriptions } from './modules/alerts/index.js';
import { huntSubscriptions } from './modules/hunt/index.js';
import { deliverySubscriptions } from './modules/delivery/index.js';
import { runsSubscriptions } from './modules/runs/index.js';
import { triggerRunSubscriptions, triggersSubscriptions, type IntakeTriggerCache } from './modules/triggers/index.js';
import type { HasSubscribers } from './modules/destinations/index.js';
import { evaluationsSubscriptions } from './modules/evaluations/index.js';

/**
 * The service's domain-event bus: every module's subscriptions, in this order (an event's
 * subscribers run in it). `agent.changed` pins the agent's unfinished runs (runs) and drops
 * intake's trigger cache (triggers, API only: `intakeCache`); `run.ended` of a trigger's run
 * stamps the trigger (triggers, every role). `run.ended` reaches alerts (a triage run's outcome on its alert,
 * whose answer goes into the run's output event) before the run emits `run.output` for delivery;
 * `threat.alert_qualified` reaches the hunt-alert subscriber; the alert events and a run's output
 * reach delivery. Built once per process role: the API (`hasSubscribers`: destinations' cache,
 * so an alert event nobody subscribes to costs no query), the job catalog and the scheduler.
 */
export function serviceEvents(opts: { hasSubscribers?: HasSubscribers; intakeCache?: IntakeTriggerCache } = {}): EventBus {
  return createEventBus([
    runsSubscriptions,
    ...(opts.intakeCache ? [triggersSubscriptions(opts.intakeCache)] : []),
    triggerRunSubscriptions,
    alertsSubscriptions,
    huntSubscriptions,
    deliverySubscriptions(opts.hasSubscribers),
    evaluationsSubscriptions,
  ]);
}
