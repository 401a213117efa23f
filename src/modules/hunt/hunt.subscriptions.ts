import type { Subscriptions } from '../../platform/events.js';
import { raiseHuntAlert } from './hunt-alerts.adapter.js';

/** Hunt's subscriptions: a qualified threat raises its hunt alert (over alerts' front door: hunt-alerts.adapter.ts). */
export const huntSubscriptions: Subscriptions = { 'threat.alert_qualified': (tx, input, events) => raiseHuntAlert(tx, input, events) };
